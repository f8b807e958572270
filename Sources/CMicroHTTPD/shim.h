// libmicrohttpd as tipledger uses it, with wrappers for the variadic calls Swift cannot import.
#ifndef TIPLEDGER_CMICROHTTPD_SHIM_H
#define TIPLEDGER_CMICROHTTPD_SHIM_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>
#include <microhttpd.h>

// The calling thread's id, for a setting Linux keeps per thread such as its niceness (glibc
// declares gettid only under _GNU_SOURCE).
static inline pid_t tl_thread_id(void) { return (pid_t)syscall(SYS_gettid); }

// Percent-decodes a request's path and query arguments as libmicrohttpd does (MHD_http_unescape),
// except a text holding %00, or a path (it starts with '/') holding %2F (either case): those are
// left as they came. Decoded, %00 would end the path early for a reader of C strings
// ("/metrics%00.css" read as "/metrics"), and %2F would make a slash that a proxy's path rules did
// not see. Left encoded, such a path matches no route. libmicrohttpd calls this for each query key
// and value too, and cannot say which text is the path: an argument starting with '/' keeps its
// %2F as well (no route takes one).
static inline size_t tl_mhd_unescape(void *context, struct MHD_Connection *connection, char *text) {
    (void)context;
    (void)connection;
    bool isPath = text[0] == '/';
    for (const char *at = text; *at != '\0'; at++) {
        // Each test stops at the first byte that differs, so none reads past the terminator.
        bool nul = at[0] == '%' && at[1] == '0' && at[2] == '0';
        bool slash = isPath && at[0] == '%' && at[1] == '2' && (at[2] == 'F' || at[2] == 'f');
        if (nul || slash) return strlen(text);
    }
    return MHD_http_unescape(text);
}

// accept4(2) is declared only under _GNU_SOURCE, which Swift's Glibc module is built without; glibc
// has had it since 2.10. It makes the accepted socket non-blocking and close-on-exec at once.
extern int accept4(int sockfd, struct sockaddr *addr, socklen_t *addrlen, int flags);

// MHD_OPTION_URI_LOG_CALLBACK's function: called with each request's target as it came, before
// libmicrohttpd parses it in place; its result becomes the request's *con_cls.
typedef void *(*TLURILogCallback)(void *context, const char *uri, struct MHD_Connection *connection);

// MHD_start_daemon is variadic; this fixes the options tipledger uses (see HTTPServer.init). The
// daemon has no listening socket of its own: connections come through MHD_add_connection.
// With a PEM certificate chain and private key it serves HTTPS (MHD_USE_TLS); libmicrohttpd hands
// both to GnuTLS while starting (gnutls_certificate_set_x509_key_mem copies them), so they need not
// outlive this call. Both NULL serve plain HTTP.
static inline struct MHD_Daemon *tl_mhd_start_daemon(unsigned int flags, MHD_AccessHandlerCallback handler,
                                                     void *handler_context,
                                                     MHD_RequestCompletedCallback completed,
                                                     void *completed_context,
                                                     MHD_NotifyConnectionCallback connection_notify,
                                                     void *connection_context, TLURILogCallback request_line_read,
                                                     unsigned int worker_threads,
                                                     unsigned int connection_limit,
                                                     unsigned int connections_per_client,
                                                     unsigned int connection_timeout_seconds,
                                                     const char *certificate_pem, const char *key_pem) {
    // MHD_OPTION_ARRAY lets the TLS options be left out: its list ends at the first MHD_OPTION_END.
    struct MHD_OptionItem tls[] = {
        {MHD_OPTION_HTTPS_MEM_CERT, 0, (void *)certificate_pem},
        {MHD_OPTION_HTTPS_MEM_KEY, 0, (void *)key_pem},
        {MHD_OPTION_END, 0, NULL},
    };
    bool serves_tls = certificate_pem != NULL && key_pem != NULL;
    return MHD_start_daemon(flags | (serves_tls ? MHD_USE_TLS : 0), 0, NULL, NULL, handler, handler_context,
                            MHD_OPTION_ARRAY, serves_tls ? tls : tls + 2,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, completed_context,
                            MHD_OPTION_NOTIFY_CONNECTION, connection_notify, connection_context,
                            MHD_OPTION_URI_LOG_CALLBACK, request_line_read, NULL,
                            MHD_OPTION_THREAD_POOL_SIZE, worker_threads,
                            MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                            MHD_OPTION_PER_IP_CONNECTION_LIMIT, connections_per_client,
                            MHD_OPTION_CONNECTION_TIMEOUT, connection_timeout_seconds,
                            MHD_OPTION_UNESCAPE_CALLBACK, tl_mhd_unescape, NULL,
                            MHD_OPTION_END);
}

// MHD_get_connection_info is variadic; the peer address (valid while the connection is open) or NULL.
static inline const struct sockaddr *tl_mhd_client_address(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info == NULL ? NULL : info->client_addr;
}

// The connection's socket (valid until libmicrohttpd reports the connection closed), or -1.
static inline int tl_mhd_connection_socket(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}

// MHD_get_connection_info is variadic; the bytes from the start of the request line to the end of
// the blank line after the header fields, or 0 before the headers are in.
static inline size_t tl_mhd_request_header_size(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);
    return info == NULL ? 0 : info->header_size;
}

#endif
