// Rampart's window onto OpenSSL 3. Function-like macros cannot be imported into Swift, so each one used is wrapped
// here in a `static inline` function carrying the `COpenSSL_` prefix (STYLE 3.5, 6.2).
#pragma once

#include <openssl/opensslv.h>
#if OPENSSL_VERSION_MAJOR < 3
#error "Rampart needs OpenSSL 3 or later (Debian 12: apt-get install libssl-dev)"
#endif

#include <openssl/asn1.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/kdf.h>
#include <openssl/objects.h>
#include <openssl/param_build.h>
#include <openssl/params.h>
#include <openssl/pem.h>
#include <openssl/pkcs7.h>
#include <openssl/cms.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

static inline void COpenSSL_OPENSSL_free(void *ptr) { OPENSSL_free(ptr); }

static inline int COpenSSL_EVP_MD_CTX_get_size(const EVP_MD_CTX *ctx) { return EVP_MD_CTX_get_size(ctx); }

// MARK: STACK_OF(X509)

static inline STACK_OF(X509) *COpenSSL_sk_X509_new_null(void) { return sk_X509_new_null(); }
static inline int COpenSSL_sk_X509_num(const STACK_OF(X509) *sk) { return sk_X509_num(sk); }
static inline X509 *COpenSSL_sk_X509_value(const STACK_OF(X509) *sk, int i) { return sk_X509_value(sk, i); }
static inline int COpenSSL_sk_X509_push(STACK_OF(X509) *sk, X509 *x) { return sk_X509_push(sk, x); }
static inline void COpenSSL_sk_X509_free(STACK_OF(X509) *sk) { sk_X509_free(sk); }
static inline void COpenSSL_sk_X509_pop_free(STACK_OF(X509) *sk) { sk_X509_pop_free(sk, X509_free); }

// MARK: STACK_OF(X509_CRL)

static inline STACK_OF(X509_CRL) *COpenSSL_sk_X509_CRL_new_null(void) { return sk_X509_CRL_new_null(); }
static inline int COpenSSL_sk_X509_CRL_push(STACK_OF(X509_CRL) *sk, X509_CRL *crl) { return sk_X509_CRL_push(sk, crl); }
static inline void COpenSSL_sk_X509_CRL_free(STACK_OF(X509_CRL) *sk) { sk_X509_CRL_free(sk); }

// MARK: TLS

static inline long COpenSSL_SSL_set_tlsext_host_name(SSL *ssl, const char *name) {
    return SSL_set_tlsext_host_name(ssl, name);
}

// MARK: key selections (expression macros)

static inline int COpenSSL_EVP_PKEY_PUBLIC_KEY(void) { return EVP_PKEY_PUBLIC_KEY; }
static inline int COpenSSL_EVP_PKEY_KEYPAIR(void) { return EVP_PKEY_KEYPAIR; }

// MARK: trust (chain evaluation and the TLS client)

static inline long COpenSSL_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version) {
    return SSL_CTX_set_min_proto_version(ctx, version);
}
