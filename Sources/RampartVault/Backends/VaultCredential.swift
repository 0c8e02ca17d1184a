import Foundation
public import RampartCrypto

/// What unlocks a ``FileVault``: a passphrase (stretched with Argon2id) or a 32-byte key, usually from a key file.
///
/// `description` never shows the secret.
public struct VaultCredential: CustomStringConvertible {
    enum Backing: Sendable {
        case passphrase([UInt8])
        case key(SymmetricKey)
    }

    let backing: Backing

    /// A passphrase; the vault stores an Argon2id salt and parameters and derives the key-encryption key from it.
    ///
    /// - Parameter passphrase: The passphrase (its UTF-8 bytes are used).
    /// - Returns: The credential.
    /// - Throws: ``VaultError/Code/invalidParameters`` when it is empty or longer than 4 KiB.
    public static func passphrase(_ passphrase: String) throws -> VaultCredential {
        let bytes = Array(passphrase.utf8)
        guard !bytes.isEmpty, bytes.count <= VaultLimits.maxAttributeByteCount else {
            throw VaultError.invalidParameters(
                "a vault passphrase must be 1…\(VaultLimits.maxAttributeByteCount) bytes")
        }
        return VaultCredential(backing: .passphrase(bytes))
    }

    /// A 32-byte key; no password stretching is needed, so opening is fast.
    ///
    /// - Parameter key: The key.
    /// - Returns: The credential.
    /// - Throws: ``VaultError/Code/invalidParameters`` unless the key is 32 bytes.
    public static func key(_ key: SymmetricKey) throws -> VaultCredential {
        guard key.byteCount == 32 else {
            throw VaultError.invalidParameters("a vault key must be 32 bytes; got \(key.byteCount)")
        }
        return VaultCredential(backing: .key(key))
    }

    /// The key in a key file: exactly 32 bytes, or 64 hexadecimal digits, optionally followed by a newline.
    ///
    /// Create one with `head -c 32 /dev/urandom > vault.key && chmod 600 vault.key`.
    ///
    /// - Parameter path: The key file.
    /// - Returns: The credential.
    /// - Throws: ``VaultError/Code/invalidParameters`` when the file cannot be read or has another shape.
    public static func keyFile(at path: String) throws -> VaultCredential {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw VaultError.invalidParameters("cannot read the key file \(path)")
        }
        defer { try? handle.close() }
        // A key file is tiny; reading at most 130 bytes bounds the work whatever the path points at.
        let bytes = Array((try? handle.read(upToCount: 130)) ?? Data())
        if bytes.count == 32 { return try key(SymmetricKey(bytes: bytes)) }
        var text = bytes
        if text.last == UInt8(ascii: "\n") { text.removeLast() }
        if text.count == 64, let decoded = HexText.decode(String(decoding: text, as: UTF8.self)) {
            return try key(SymmetricKey(bytes: decoded))
        }
        throw VaultError.invalidParameters(
            "the key file \(path) must hold 32 bytes or 64 hex digits; "
                + "create one with head -c 32 /dev/urandom > FILE")
    }

    /// `VaultCredential(passphrase)` or `VaultCredential(key)`.
    public var description: String {
        switch backing {
        case .passphrase: "VaultCredential(passphrase)"
        case .key: "VaultCredential(key)"
        }
    }
}

extension VaultCredential: Sendable {}
