internal import CSecret
import Synchronization

/// The libsecret calls the ``SecretServiceBackend`` makes, with GLib ownership handled here and nowhere else.
///
/// libsecret is loaded on first use (CSecret's shim dlopens it), so no other command of the process maps it; when
/// it cannot be loaded, connecting throws ``VaultError/Code/notAvailable``.
///
/// Every call is synchronous (libsecret's `_sync` functions run their own main-loop iteration) and serialised by a
/// lock, since one `SecretService` proxy is shared.
final class SecretServiceConnection: Sendable {
    /// One item found by a search: its attributes, its secret (nil when its collection is locked) and a handle to
    /// delete it.
    struct Found {
        let attributes: [String: String]
        let secret: [UInt8]?
        let handle: ItemHandle
    }

    /// Owns one `SecretItem` reference.
    ///
    /// `@unchecked Sendable`: the pointer is immutable after init and only used under the connection's lock.
    final class ItemHandle: @unchecked Sendable {
        let pointer: UnsafeMutableRawPointer

        init(retaining pointer: UnsafeMutableRawPointer) {
            // g_object_ref: the list that handed us the item frees its own reference.
            _ = CSecret_g_object_ref(pointer)
            self.pointer = pointer
        }

        deinit { CSecret_g_object_unref(pointer) }
    }

    /// Owns the `SecretService` proxy and schema.
    ///
    /// `@unchecked Sendable`: both pointers are immutable after init, and every use is under `lock`.
    private final class Handles: @unchecked Sendable {
        let service: UnsafeMutableRawPointer
        let schema: UnsafeMutableRawPointer

        init(service: UnsafeMutableRawPointer, schema: UnsafeMutableRawPointer) {
            self.service = service
            self.schema = schema
        }

        deinit {
            CSecret_secret_schema_unref(schema)
            CSecret_g_object_unref(service)
        }
    }

    private let handles: Handles
    private let lock = Mutex(())

    /// Connects to the Secret Service on the session bus and opens a transfer session.
    ///
    /// - Parameters:
    ///   - schemaName: The schema name recorded on each item (`xdg:schema`).
    ///   - attributeNames: Every attribute name the schema declares (all strings).
    /// - Throws: ``VaultError/Code/notAvailable`` when no Secret Service answers.
    init(schemaName: String, attributeNames: [String]) throws {
        guard CSecret_available() == 1 else {
            throw VaultError.notAvailable(
                "libsecret (libsecret-1.so.0) could not be loaded; install libsecret-1-0, or use a FileVault")
        }
        var error: UnsafeMutablePointer<CSecret_GError>?
        let flags = Int32(CSecret_SERVICE_OPEN_SESSION | CSecret_SERVICE_LOAD_COLLECTIONS)
        // secret_service_get_sync: "(transfer full): a new reference to a SecretService proxy, which should be
        // released with g_object_unref()".
        guard let service = CSecret_secret_service_get_sync(flags, nil, &error) else {
            throw VaultError.notAvailable(
                "no Secret Service on the session bus; start gnome-keyring-daemon or KWallet, or use a FileVault",
                detail: Self.consume(error))
        }
        let table = Self.table(Dictionary(uniqueKeysWithValues: attributeNames.map { ($0, "") }), typed: true)
        defer { CSecret_g_hash_table_unref(table) }
        // secret_schema_newv copies the name and the attribute names; the table stays ours.
        guard let schema = CSecret_secret_schema_newv(schemaName, Int32(CSecret_SCHEMA_NONE), table) else {
            CSecret_g_object_unref(service)
            throw VaultError.notAvailable("libsecret rejected the schema \(schemaName)")
        }
        handles = Handles(service: service, schema: schema)
    }

    /// Stores a new item in the default collection.
    ///
    /// - Throws: ``VaultError/Code/invalidParameters`` when an attribute or the label holds a NUL (the caller
    ///   encodes such text first); ``VaultError/Code/ioFailure`` when the Secret Service refuses.
    func store(attributes: [String: String], label: String, secret: [UInt8]) throws {
        try Self.refuseNUL(attributes.merging(["label": label]) { stored, _ in stored })
        try lock.withLock { _ in
            let table = Self.table(attributes, typed: false)
            defer { CSecret_g_hash_table_unref(table) }
            // secret_value_new copies the bytes; secret_value_unref releases our reference.
            // A zero-length buffer may have no base address; libsecret still needs a valid pointer.
            let bytes = secret.isEmpty ? [CChar(0)] : secret.map { CChar(bitPattern: $0) }
            let value = bytes.withUnsafeBufferPointer { buffer in
                CSecret_secret_value_new(buffer.baseAddress, secret.count, "application/octet-stream")
            }
            defer { CSecret_secret_value_unref(value) }
            var error: UnsafeMutablePointer<CSecret_GError>?
            let stored = CSecret_secret_service_store_sync(
                handles.service, handles.schema, table, "default", label, value, nil, &error)
            guard stored != 0 else {
                throw VaultError.ioFailure("the Secret Service refused to store an item", detail: Self.consume(error))
            }
        }
    }

    /// Finds every item whose attributes include `attributes`, with secrets where the collection is unlocked.
    ///
    /// - Throws: ``VaultError/Code/invalidParameters`` when an attribute holds a NUL; ``VaultError/Code/ioFailure``
    ///   when the search fails.
    func search(_ attributes: [String: String]) throws -> [Found] {
        try Self.refuseNUL(attributes)
        return try lock.withLock { _ in
            let table = Self.table(attributes, typed: false)
            defer { CSecret_g_hash_table_unref(table) }
            var error: UnsafeMutablePointer<CSecret_GError>?
            // No SECRET_SEARCH_UNLOCK: unlocking may need a prompt, which a server cannot answer; locked items come
            // back without secrets instead.
            let flags = Int32(CSecret_SEARCH_ALL | CSecret_SEARCH_LOAD_SECRETS)
            // "(transfer full) (element-type Secret.Item): a list of items that matched the search".
            let list = CSecret_secret_service_search_sync(handles.service, handles.schema, table, flags, nil, &error)
            if let error {
                throw VaultError.ioFailure("searching the Secret Service failed", detail: Self.consume(error))
            }
            defer { CSecret_g_list_free_objects(list) }
            var found: [Found] = []
            var node = list
            while let current = node {
                if let item = current.pointee.data {
                    found.append(
                        Found(
                            attributes: Self.attributes(of: item), secret: Self.secret(of: item),
                            handle: ItemHandle(retaining: item)))
                }
                node = current.pointee.next
            }
            return found
        }
    }

    /// Deletes one item.
    func delete(_ handle: ItemHandle) throws {
        try lock.withLock { _ in
            var error: UnsafeMutablePointer<CSecret_GError>?
            guard CSecret_secret_item_delete_sync(handle.pointer, nil, &error) != 0 else {
                throw VaultError.ioFailure("the Secret Service refused to delete an item", detail: Self.consume(error))
            }
        }
    }

    // MARK: GLib helpers

    /// Refuses strings that libsecret would cut: it copies them with `g_strdup`, which stops at the first NUL, so
    /// `alice\0evil` would be stored and searched as `alice`.
    private static func refuseNUL(_ entries: [String: String]) throws {
        for (name, value) in entries.sorted(by: { $0.key < $1.key })
        where name.utf8.contains(0) || value.utf8.contains(0) {
            throw VaultError.invalidParameters(
                "the Secret Service \(name.utf8.contains(0) ? "attribute name" : name) contains a NUL, where libsecret "
                    + "would cut it; encode the text first (SecretServiceBackend stores such values as hex)")
        }
    }

    /// A new `GHashTable` of strings (or, for a schema, names to `SECRET_SCHEMA_ATTRIBUTE_STRING`, which is 0); the
    /// caller unrefs it, which frees the copies.
    private static func table(_ entries: [String: String], typed: Bool) -> UnsafeMutableRawPointer {
        // g_hash_table_new_full never returns NULL in practice (GLib aborts on allocation failure).
        guard let table = CSecret_g_hash_table_new_strings(typed ? 0 : 1) else {
            preconditionFailure("g_hash_table_new_full returned NULL")
        }
        for (key, value) in entries { CSecret_g_hash_table_insert_copies(table, key, typed ? nil : value) }
        return table
    }

    private static func attributes(of item: UnsafeMutableRawPointer) -> [String: String] {
        // secret_item_get_attributes: "(transfer full): a new reference to the attributes".
        guard let table = CSecret_secret_item_get_attributes(item) else { return [:] }
        defer { CSecret_g_hash_table_unref(table) }
        var iterator = CSecret_GHashTableIter()
        CSecret_g_hash_table_iter_init(&iterator, table)
        var key: UnsafeMutableRawPointer?
        var value: UnsafeMutableRawPointer?
        var result: [String: String] = [:]
        while CSecret_g_hash_table_iter_next(&iterator, &key, &value) != 0 {
            guard let key, let value else { continue }
            result[String(cString: key.assumingMemoryBound(to: CChar.self))] =
                String(cString: value.assumingMemoryBound(to: CChar.self))
        }
        return result
    }

    private static func secret(of item: UnsafeMutableRawPointer) -> [UInt8]? {
        // secret_item_get_secret: "(transfer full) (nullable): the secret value which should be released with
        // secret_value_unref(), or NULL if the secret has not been loaded".
        guard let value = CSecret_secret_item_get_secret(item) else { return nil }
        defer { CSecret_secret_value_unref(value) }
        var length = 0
        guard let bytes = CSecret_secret_value_get(value, &length), length > 0 else { return [] }
        return Array(UnsafeRawBufferPointer(start: bytes, count: Int(length)))
    }

    private static func consume(_ error: UnsafeMutablePointer<CSecret_GError>?) -> String {
        guard let error else { return "" }
        defer { CSecret_g_error_free(error) }
        return error.pointee.message.map { String(cString: $0) } ?? ""
    }
}
