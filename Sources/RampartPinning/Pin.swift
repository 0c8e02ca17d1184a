internal import Foundation

/// One pin: the SHA-256 of a certificate's SubjectPublicKeyInfo (the `SPKI-SHA256-BASE64` of Apple's
/// `NSPinnedDomains`, OkHttp's `sha256/…`, TrustKit's `kTSKPublicKeyHashes`) or of a whole certificate.
///
/// SPKI pins survive certificate renewal with the same key; certificate pins ("certificate pinning" in the iOS pinning
/// guide) match one exact certificate and break at every renewal.
public struct Pin: Hashable, Sendable, CustomStringConvertible {
    /// What a pin hashes.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        enum Backing: String, Hashable, Sendable {
            case spkiSHA256 = "spki-sha256"
            case certificateSHA256 = "cert-sha256"
        }

        let backing: Backing

        /// SHA-256 of the DER SubjectPublicKeyInfo, exactly as it appears in the certificate.
        public static let spkiSHA256 = Kind(backing: .spkiSHA256)
        /// SHA-256 of the whole DER certificate.
        public static let certificateSHA256 = Kind(backing: .certificateSHA256)

        /// `spki-sha256` or `cert-sha256`, the key used in Rampart JSON.
        public var description: String { backing.rawValue }
    }

    /// What the pin hashes.
    public let kind: Kind
    /// The 32-byte SHA-256 digest.
    public let digest: [UInt8]

    /// Creates a pin from its base64 digest.
    ///
    /// - Parameters:
    ///   - kind: SPKI or whole-certificate.
    ///   - base64: The base64 of a 32-byte SHA-256 digest.
    /// - Throws: ``PinningError`` with code ``PinningError/Code/invalidPin`` when `base64` is not the base64 of
    ///   32 bytes.
    public init(kind: Kind, base64: String) throws {
        guard base64.utf8.count == 44, let data = Data(base64Encoded: base64), data.count == 32 else {
            throw PinningError.invalidPin(
                "a pin must be the base64 of a 32-byte SHA-256 digest (44 characters ending in '='); "
                    + "compute it with `rampart pins CERT.pem`")
        }
        self.kind = kind
        self.digest = Array(data)
    }

    /// Creates a pin from a digest.
    ///
    /// - Parameters:
    ///   - kind: SPKI or whole-certificate.
    ///   - digest: 32 bytes.
    /// - Throws: ``PinningError`` with code ``PinningError/Code/invalidPin`` when `digest` is not 32 bytes.
    public init(kind: Kind, digest: [UInt8]) throws {
        guard digest.count == 32 else { throw PinningError.invalidPin("a SHA-256 pin is 32 bytes") }
        self.kind = kind
        self.digest = digest
    }

    /// The base64 digest, e.g. `ZSagvDzjltLkewXEBuDxIzpW/dpVw1Juvvmd0hhkzdY=`.
    public var base64: String { Data(digest).base64EncodedString() }

    /// OkHttp's notation: `sha256/<base64>` for SPKI pins, `cert-sha256/<base64>` for certificate pins.
    public var description: String { kind == .spkiSHA256 ? "sha256/\(base64)" : "cert-sha256/\(base64)" }
}
