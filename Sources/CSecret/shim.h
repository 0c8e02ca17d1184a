#pragma once
// libsecret, loaded when first used (dlopen), not when the process starts.
//
// Every `rampart` command used to map libsecret and GLib (gio, gobject, glib, gcrypt) at start although only the
// Secret Service vault backend calls them (issue 14 item 6). This header declares the few libsecret and GLib entry
// points that backend uses, with the types it touches spelled out as GLib 2 and libsecret 0.20 define them (their
// ABI is stable), and resolves each with dlsym from `libsecret-1.so.0` the first time it is called. No GLib header
// is needed to build, and nothing is linked: where libsecret is missing, CSecret_available() is 0 and the backend
// reports the Secret Service as not available.
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>

/// GLib's GError (glib/gerror.h): `GQuark domain; gint code; gchar *message;`.
typedef struct CSecret_GError {
    uint32_t domain;
    int code;
    char *message;
} CSecret_GError;

/// GLib's GList (glib/glist.h).
typedef struct CSecret_GList {
    void *data;
    struct CSecret_GList *next;
    struct CSecret_GList *prev;
} CSecret_GList;

/// GLib's GHashTableIter (glib/ghash.h): private fields, stack-allocated by callers.
typedef struct CSecret_GHashTableIter {
    void *dummy1;
    void *dummy2;
    void *dummy3;
    int dummy4;
    int dummy5;
    void *dummy6;
} CSecret_GHashTableIter;

/// SecretServiceFlags, SecretSearchFlags, SecretSchemaFlags (libsecret/secret-service.h, secret-types.h,
/// secret-schema.h).
enum {
    CSecret_SERVICE_OPEN_SESSION = 1 << 1,
    CSecret_SERVICE_LOAD_COLLECTIONS = 1 << 2,
    CSecret_SEARCH_ALL = 1 << 1,
    CSecret_SEARCH_LOAD_SECRETS = 1 << 3,
    CSecret_SCHEMA_NONE = 0,
};

/// SECRET_COLLECTION_DEFAULT (libsecret/secret-types.h).
#define CSecret_COLLECTION_DEFAULT "default"

/// The loaded libsecret (which brings GLib with it), or NULL when it cannot be loaded. dlopen is thread-safe and
/// reference-counted, so a race between first callers only opens it twice.
static inline void *CSecret_library(void) {
    static void *volatile handle = NULL;
    void *found = handle;
    if (found == NULL) {
        found = dlopen("libsecret-1.so.0", RTLD_NOW | RTLD_LOCAL);
        handle = found;
    }
    return found;
}

/// The address of `name` in libsecret (or the GLib it loads), or NULL.
static inline void *CSecret_symbol(const char *name) {
    void *library = CSecret_library();
    return library == NULL ? NULL : dlsym(library, name);
}

// Each function below calls the libsecret or GLib function it names (without the `CSecret_` prefix), with that
// function's signature; opaque pointers stand for GObject types. They must only be called once CSecret_available()
// has returned 1. `CSecret_resolve` caches the address per translation unit.
#define CSecret_resolve(type, name)                                                                                   \
    static type resolved = NULL;                                                                                      \
    if (resolved == NULL) resolved = (type)CSecret_symbol(#name);

typedef void *(*CSecret_service_get_sync_fn)(int, void *, CSecret_GError **);
typedef void *(*CSecret_schema_newv_fn)(const char *, int, void *);
typedef void (*CSecret_unref_fn)(void *);
typedef void *(*CSecret_ref_fn)(void *);
typedef void *(*CSecret_value_new_fn)(const char *, ptrdiff_t, const char *);
typedef const char *(*CSecret_value_get_fn)(void *, size_t *);
typedef int (*CSecret_store_sync_fn)(void *, const void *, void *, const char *, const char *, void *, void *,
    CSecret_GError **);
typedef CSecret_GList *(*CSecret_search_sync_fn)(void *, const void *, void *, int, void *, CSecret_GError **);
typedef int (*CSecret_delete_sync_fn)(void *, void *, CSecret_GError **);
typedef void *(*CSecret_get_fn)(void *);
typedef void (*CSecret_list_free_full_fn)(CSecret_GList *, void (*)(void *));
typedef unsigned int (*CSecret_hash_fn)(const void *);
typedef int (*CSecret_equal_fn)(const void *, const void *);
typedef void *(*CSecret_hash_table_new_full_fn)(CSecret_hash_fn, CSecret_equal_fn, void (*)(void *), void (*)(void *));
typedef int (*CSecret_hash_table_insert_fn)(void *, void *, void *);
typedef char *(*CSecret_strdup_fn)(const char *);
typedef void (*CSecret_iter_init_fn)(CSecret_GHashTableIter *, void *);
typedef int (*CSecret_iter_next_fn)(CSecret_GHashTableIter *, void **, void **);
typedef void (*CSecret_error_free_fn)(CSecret_GError *);

/// 1 when libsecret loads and has every entry point used here; 0 otherwise (then the Secret Service is not
/// available to this process).
static inline int CSecret_available(void) {
    static const char *const names[] = {
        "secret_service_get_sync", "secret_schema_newv", "secret_schema_unref", "secret_value_new",
        "secret_value_unref", "secret_value_get", "secret_service_store_sync", "secret_service_search_sync",
        "secret_item_delete_sync", "secret_item_get_attributes", "secret_item_get_secret", "g_object_ref",
        "g_object_unref", "g_list_free_full", "g_hash_table_new_full", "g_hash_table_insert", "g_hash_table_unref",
        "g_hash_table_iter_init", "g_hash_table_iter_next", "g_error_free", "g_str_hash", "g_str_equal", "g_free",
        "g_strdup",
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (CSecret_symbol(names[i]) == NULL) return 0;
    }
    return 1;
}

static inline void *CSecret_secret_service_get_sync(int flags, void *cancellable, CSecret_GError **error) {
    CSecret_resolve(CSecret_service_get_sync_fn, secret_service_get_sync);
    return resolved(flags, cancellable, error);
}

static inline void *CSecret_secret_schema_newv(const char *name, int flags, void *attribute_names) {
    CSecret_resolve(CSecret_schema_newv_fn, secret_schema_newv);
    return resolved(name, flags, attribute_names);
}

static inline void CSecret_secret_schema_unref(void *schema) {
    CSecret_resolve(CSecret_unref_fn, secret_schema_unref);
    resolved(schema);
}

static inline void *CSecret_secret_value_new(const char *secret, ptrdiff_t length, const char *content_type) {
    CSecret_resolve(CSecret_value_new_fn, secret_value_new);
    return resolved(secret, length, content_type);
}

static inline void CSecret_secret_value_unref(void *value) {
    CSecret_resolve(CSecret_unref_fn, secret_value_unref);
    resolved(value);
}

static inline const char *CSecret_secret_value_get(void *value, size_t *length) {
    CSecret_resolve(CSecret_value_get_fn, secret_value_get);
    return resolved(value, length);
}

static inline int CSecret_secret_service_store_sync(
    void *service, const void *schema, void *attributes, const char *collection, const char *label, void *value,
    void *cancellable, CSecret_GError **error) {
    CSecret_resolve(CSecret_store_sync_fn, secret_service_store_sync);
    return resolved(service, schema, attributes, collection, label, value, cancellable, error);
}

static inline CSecret_GList *CSecret_secret_service_search_sync(
    void *service, const void *schema, void *attributes, int flags, void *cancellable, CSecret_GError **error) {
    CSecret_resolve(CSecret_search_sync_fn, secret_service_search_sync);
    return resolved(service, schema, attributes, flags, cancellable, error);
}

static inline int CSecret_secret_item_delete_sync(void *item, void *cancellable, CSecret_GError **error) {
    CSecret_resolve(CSecret_delete_sync_fn, secret_item_delete_sync);
    return resolved(item, cancellable, error);
}

static inline void *CSecret_secret_item_get_attributes(void *item) {
    CSecret_resolve(CSecret_get_fn, secret_item_get_attributes);
    return resolved(item);
}

static inline void *CSecret_secret_item_get_secret(void *item) {
    CSecret_resolve(CSecret_get_fn, secret_item_get_secret);
    return resolved(item);
}

static inline void *CSecret_g_object_ref(void *object) {
    CSecret_resolve(CSecret_ref_fn, g_object_ref);
    return resolved(object);
}

static inline void CSecret_g_object_unref(void *object) {
    CSecret_resolve(CSecret_unref_fn, g_object_unref);
    resolved(object);
}

/// g_list_free_full(list, g_object_unref): frees a list of GObjects it owns.
static inline void CSecret_g_list_free_objects(CSecret_GList *list) {
    CSecret_resolve(CSecret_list_free_full_fn, g_list_free_full);
    resolved(list, (void (*)(void *))CSecret_symbol("g_object_unref"));
}

/// g_hash_table_new_full(g_str_hash, g_str_equal, g_free, owns_values ? g_free : NULL): a table of strings that
/// frees its keys (and values) when unreffed.
static inline void *CSecret_g_hash_table_new_strings(int owns_values) {
    CSecret_resolve(CSecret_hash_table_new_full_fn, g_hash_table_new_full);
    void (*free_function)(void *) = (void (*)(void *))CSecret_symbol("g_free");
    return resolved(
        (CSecret_hash_fn)CSecret_symbol("g_str_hash"), (CSecret_equal_fn)CSecret_symbol("g_str_equal"),
        free_function, owns_values ? free_function : NULL);
}

/// g_hash_table_insert(table, g_strdup(key), value ? g_strdup(value) : NULL).
static inline void CSecret_g_hash_table_insert_copies(void *table, const char *key, const char *value) {
    CSecret_resolve(CSecret_hash_table_insert_fn, g_hash_table_insert);
    CSecret_strdup_fn copy = (CSecret_strdup_fn)CSecret_symbol("g_strdup");
    resolved(table, copy(key), value == NULL ? NULL : copy(value));
}

static inline void CSecret_g_hash_table_unref(void *table) {
    CSecret_resolve(CSecret_unref_fn, g_hash_table_unref);
    resolved(table);
}

static inline void CSecret_g_hash_table_iter_init(CSecret_GHashTableIter *iterator, void *table) {
    CSecret_resolve(CSecret_iter_init_fn, g_hash_table_iter_init);
    resolved(iterator, table);
}

static inline int CSecret_g_hash_table_iter_next(CSecret_GHashTableIter *iterator, void **key, void **value) {
    CSecret_resolve(CSecret_iter_next_fn, g_hash_table_iter_next);
    return resolved(iterator, key, value);
}

static inline void CSecret_g_error_free(CSecret_GError *error) {
    CSecret_resolve(CSecret_error_free_fn, g_error_free);
    resolved(error);
}
