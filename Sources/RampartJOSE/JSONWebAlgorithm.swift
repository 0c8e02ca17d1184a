import RampartCrypto

/// A JWS signature algorithm Rampart verifies (RFC 7518 section 3.1): `RS256` or `ES256`.
///
/// Only asymmetric algorithms exist here: `none` and the HMAC family (`HS256`…) can never be named, so a token cannot
/// talk a verifier into checking a MAC keyed with a public key or into checking nothing.
public struct JSONWebAlgorithm: Hashable, CustomStringConvertible {
    enum Backing: String, CaseIterable {
        case rs256 = "RS256"
        case es256 = "ES256"
    }

    let backing: Backing

    /// RSASSA-PKCS1-v1_5 with SHA-256 (RFC 7518 section 3.3), with an RSA key of at least 2048 bits.
    public static let rs256 = JSONWebAlgorithm(backing: .rs256)
    /// ECDSA on P-256 with SHA-256, the signature as 64 bytes `r ‖ s` (RFC 7518 section 3.4).
    public static let es256 = JSONWebAlgorithm(backing: .es256)

    /// Every algorithm Rampart verifies.
    public static let all: [JSONWebAlgorithm] = Backing.allCases.map { JSONWebAlgorithm(backing: $0) }

    /// The algorithm with the JOSE name `name` (`"RS256"`, `"ES256"`, compared as bytes), or nil for any other.
    ///
    /// - Parameter name: The `alg` value.
    public init?(name: String) {
        guard let backing = Backing.allCases.first(where: { $0.rawValue.hasSameUTF8(as: name) }) else {
            return nil
        }
        self.backing = backing
    }

    init(backing: Backing) { self.backing = backing }

    /// The JOSE name, `RS256` or `ES256`.
    public var name: String { backing.rawValue }

    /// The JOSE name.
    public var description: String { name }
}

extension JSONWebAlgorithm: Sendable {}
