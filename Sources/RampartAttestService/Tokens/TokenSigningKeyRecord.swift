public import Foundation

/// An access-token signing key as the store keeps it (table `rampart_token_keys`).
///
/// - Important: ``privateKey`` is the P-256 private key in PKCS#8, sealed under the challenge sealing keys when they
///   are configured (`TokenKeySealing`), else unencrypted: then anyone who can read the table can mint access tokens
///   that every service and gateway trusting the JWKS accepts, for any subject.
public struct TokenSigningKeyRecord: Hashable {
    /// The key's `kid`: its RFC 7638 JWK thumbprint.
    public var keyID: String
    /// When the key was made: in its own rotation period, or in the pre-publication window just before it
    /// (``TokenConfiguration/prePublicationSeconds``).
    public var createdAt: Date
    /// The rotation period the key signs for (the time divided by ``TokenConfiguration/rotationSeconds``, rounded
    /// down): the period of `createdAt` or the next one. Unique in the table, so processes sharing one database that
    /// rotate at the same moment agree on one key.
    public var slot: Int64
    /// The P-256 private key, PKCS#8 DER, or that sealed (`RTK1…`, see `TokenKeySealing`). A secret.
    public var privateKey: [UInt8]

    /// Creates a record.
    ///
    /// - Parameters:
    ///   - keyID: The `kid`.
    ///   - createdAt: The creation time.
    ///   - slot: The rotation period number.
    ///   - privateKey: The PKCS#8 DER.
    public init(keyID: String, createdAt: Date, slot: Int64, privateKey: [UInt8]) {
        self.keyID = keyID
        self.createdAt = createdAt
        self.slot = slot
        self.privateKey = privateKey
    }
}

extension TokenSigningKeyRecord: Sendable {}

extension TokenSigningKeyRecord: CustomStringConvertible, CustomDebugStringConvertible {
    /// The kid, slot and creation time; never the private key.
    public var description: String { "TokenSigningKeyRecord(\(keyID), slot \(slot), created \(createdAt))" }
    /// As ``description``.
    public var debugDescription: String { description }
}
