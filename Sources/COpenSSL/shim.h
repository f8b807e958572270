// The parts of OpenSSL's libcrypto that tipledger uses, with a Swift-callable wrapper for each
// function-like macro Swift cannot import. Deprecated OpenSSL calls are compile errors.
#ifndef TIPLEDGER_COPENSSL_SHIM_H
#define TIPLEDGER_COPENSSL_SHIM_H

#define OPENSSL_API_COMPAT 30000
#define OPENSSL_NO_DEPRECATED

#include <openssl/asn1.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/objects.h>
#include <openssl/ocsp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

// OPENSSL_free is a macro adding file and line for the allocator's debug hooks.
static inline void tl_openssl_free(void *pointer) { OPENSSL_free(pointer); }

// BIO_get_mem_data is a macro over BIO_ctrl; returns the length and points *data at the bytes.
static inline long tl_bio_get_mem_data(BIO *bio, char **data) { return BIO_get_mem_data(bio, data); }

// XN_FLAG_RFC2253 is an OR of several macros, which Swift does not import.
static inline unsigned long tl_xn_flag_rfc2253(void) { return XN_FLAG_RFC2253; }

#endif
