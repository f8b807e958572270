// libmicrohttpd as tipledger uses it, with wrappers for the variadic calls Swift cannot import.
#ifndef TIPLEDGER_CMICROHTTPD_SHIM_H
#define TIPLEDGER_CMICROHTTPD_SHIM_H

#include <stdarg.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <microhttpd.h>

#endif
