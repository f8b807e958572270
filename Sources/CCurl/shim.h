// libcurl as tipledger uses it, with typed wrappers for the variadic calls Swift cannot import.
#ifndef TIPLEDGER_CCURL_SHIM_H
#define TIPLEDGER_CCURL_SHIM_H

#include <curl/curl.h>

// curl_easy_setopt is variadic; one wrapper per type of value tipledger passes ("CURLOPT_*(3)"
// says which type each option takes).
static inline CURLcode tl_curl_setopt_long(CURL *curl, CURLoption option, long value) {
    return curl_easy_setopt(curl, option, value);
}

// A C string option; libcurl copies the text ("curl_easy_setopt(3)": strings are copied).
static inline CURLcode tl_curl_setopt_text(CURL *curl, CURLoption option, const char *value) {
    return curl_easy_setopt(curl, option, value);
}

// A pointer option (a header list, a blob, the write callback's context, the error buffer).
static inline CURLcode tl_curl_setopt_pointer(CURL *curl, CURLoption option, void *value) {
    return curl_easy_setopt(curl, option, value);
}

// A curl_off_t option (the *_LARGE sizes).
static inline CURLcode tl_curl_setopt_offset(CURL *curl, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(curl, option, value);
}

// CURLOPT_WRITEFUNCTION takes a function pointer, a type of its own among the variadic values.
static inline CURLcode tl_curl_setopt_write_function(CURL *curl, curl_write_callback callback) {
    return curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, callback);
}

// curl_easy_getinfo is variadic; a long answer (CURLINFO_RESPONSE_CODE).
static inline CURLcode tl_curl_getinfo_long(CURL *curl, CURLINFO info, long *value) {
    return curl_easy_getinfo(curl, info, value);
}

// curl_easy_getinfo for a text answer (CURLINFO_CAINFO); the text belongs to libcurl.
static inline CURLcode tl_curl_getinfo_text(CURL *curl, CURLINFO info, const char **value) {
    return curl_easy_getinfo(curl, info, value);
}

#endif
