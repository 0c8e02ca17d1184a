import RampartCrypto

/// Seals access-token signing keys at rest, under a key kept outside the database: the challenge sealing keys of the
/// configuration (`challenges.sealingKeys` or `RAMPART_CHALLENGE_KEYS`).
///
/// A reader of the database (the file, a replica, a backup, a `SELECT`-only role) then holds only sealed keys and
/// cannot mint tokens. The stored value is
///
/// ```
/// "RTK1" (4 bytes) ‖ sealing key id (4 bytes) ‖ nonce (12) ‖ AES-256-GCM ciphertext of the PKCS#8 key ‖ tag (16)
/// ```
///
/// with the associated data `"RTK1" ‖ kid`, so a sealed key cannot be moved to another row. The AES key is
/// HKDF-Expand (RFC 5869 section 2.3) of the challenge sealing key with the info `rampart-token-key-wrap-v1`, one block:
/// HMAC-SHA256(sealing key, info ‖ 0x01); the Extract step is skipped as section 3.3 allows, because a sealing key
/// is at least 32 random bytes. The first listed sealing key seals new signing keys and every listed key opens them,
/// so rotating the challenge sealing keys rotates this key too: keep an old sealing key listed until the signing keys
/// it sealed have retired (`tokens.rotationSeconds` plus the token lifetime and leeway).
///
/// Without configured sealing keys the service keeps its challenge key in the database itself, where sealing the
/// token keys under it would protect nothing: they are then stored as plain PKCS#8, and `rampart serve` warns at
/// start (`tokenKeysUnsealed`). Plain keys stored before sealing was configured are still read until they retire.
enum TokenKeySealing {
    /// The format's first bytes.
    static let magic = Array("RTK1".utf8)
    /// The HKDF info of the wrapping key.
    static let info = Array("rampart-token-key-wrap-v1".utf8)

    /// The wrapping key of one challenge sealing key.
    static func wrappingKey(_ entry: ChallengeSealingKeys.Entry) -> SymmetricKey {
        SymmetricKey(bytes: entry.key.authenticationCode(for: info + [0x01]))
    }

    /// `pkcs8` sealed for the row of `keyID` under the first of `keys`.
    static func seal(_ pkcs8: [UInt8], keyID: String, with keys: ChallengeSealingKeys) throws -> [UInt8] {
        let entry = keys.sealing
        let box = try AEAD.seal(pkcs8, using: wrappingKey(entry), authenticating: magic + Array(keyID.utf8))
        return magic + entry.id + box.combined
    }

    /// The PKCS#8 key of a stored value: opened when sealed, as it is when stored plain.
    ///
    /// - Throws: ``AttestServiceError`` (`storeFailure`) saying why a sealed key cannot be opened and what to do.
    static func open(_ stored: [UInt8], keyID: String, with keys: ChallengeSealingKeys?) throws -> [UInt8] {
        guard stored.starts(with: magic) else { return stored }
        guard let keys else {
            throw AttestServiceError.storeFailure(
                "the token signing key \(keyID) is sealed, but no challenge sealing keys are configured; configure "
                    + "the challenges.sealingKeys that sealed it (or RAMPART_CHALLENGE_KEYS)")
        }
        let header = magic.count + 4
        guard stored.count > header, let entry = keys.key(id: stored[magic.count..<header]) else {
            throw AttestServiceError.storeFailure(
                "the token signing key \(keyID) was sealed with a challenge sealing key that is no longer listed; "
                    + "list it again (second) until the key retires")
        }
        do {
            return try AEAD.open(
                SealedBox(combined: Array(stored[header...])), using: wrappingKey(entry),
                authenticating: magic + Array(keyID.utf8))
        } catch {
            throw AttestServiceError.storeFailure(
                "the token signing key \(keyID) does not open under its sealing key: the row was altered or moved; "
                    + "delete it from rampart_token_keys (tokens it signed will be refused)")
        }
    }
}
