import Foundation
import RampartCrypto
import TestSupport

/// The example backend's sign-in: ES256 session JWTs, and the JWKS file `rampart serve` verifies them against
/// (`"subject": {"jwt": {…}}`), so the example app's `Authorization: Bearer <token>` names its user.
struct SessionTokens {
    static let issuer = "https://login.example.com"
    static let audience = "rampart-points"

    let key = ECPrivateKey(curve: .p256)
    let keyID = "session-key-1"

    /// Writes the JWKS with the public key to a scratch file and returns its path.
    func writeJWKS() throws -> String {
        let point = key.publicKey.x963Representation
        let jwk: [String: String] = [
            "kty": "EC", "crv": "P-256", "alg": "ES256", "use": "sig", "kid": keyID,
            "x": Self.base64URL(Array(point[1..<33])), "y": Self.base64URL(Array(point[33..<65])),
        ]
        let path = ScratchDirectory.uniquePath("jwks.json")
        try JSONSerialization.data(withJSONObject: ["keys": [jwk]], options: [.sortedKeys])
            .write(to: URL(fileURLWithPath: path))
        return path
    }

    /// A session token for `user`, valid for an hour from `now`.
    func token(for user: String, now: Date = Date()) throws -> String {
        let header = #"{"alg":"ES256","kid":"\#(keyID)","typ":"JWT"}"#
        let issued = Int(now.timeIntervalSince1970)
        let claims =
            #"{"aud":"\#(Self.audience)","exp":\#(issued + 3600),"iat":\#(issued),"iss":"\#(Self.issuer)","sub":"\#(user)"}"#
        let signingInput = Self.base64URL(Array(header.utf8)) + "." + Self.base64URL(Array(claims.utf8))
        let signature = try key.rawSignature(for: Array(signingInput.utf8), digest: .sha256)
        return signingInput + "." + Self.base64URL(signature)
    }

    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}
