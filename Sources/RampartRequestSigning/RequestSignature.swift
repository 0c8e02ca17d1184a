import Foundation
import RampartCrypto

/// The signed HTTP request, version 1: what an app signs with its App Attest key and what a verifier checks, shared
/// by the app and the server so both hash the same bytes (`docs/request-signature.md` is the wire format).
///
/// A signed request carries four headers: ``keyIDHeader`` (the key id, standard base64), ``challengeHeader`` (the
/// challenge as issued), ``assertionHeader`` (the CBOR assertion, standard base64) and ``contentDigestHeader``
/// (`sha-256=:<base64>:`, RFC 9530, of the body as sent; of zero bytes for no body). The assertion's
/// `clientDataHash` is SHA-256 of ``clientData(method:target:challenge:digest:)``: five lines joined by `\n`.
///
/// ```
/// rampart-request-v1
/// POST
/// /api/points/use?dry=1
/// 3q2-7w…
/// 47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=
/// ```
public enum RequestSignature {
    /// The first line of the signed text.
    public static let version = "rampart-request-v1"
    /// `Rampart-Key-Id`: the key id, standard base64.
    public static let keyIDHeader = "Rampart-Key-Id"
    /// `Rampart-Challenge`: the challenge as the server issued it.
    public static let challengeHeader = "Rampart-Challenge"
    /// `Rampart-Assertion`: the CBOR assertion, standard base64.
    public static let assertionHeader = "Rampart-Assertion"
    /// `Content-Digest`: `sha-256=:<base64>:` of the body (RFC 9530).
    public static let contentDigestHeader = "Content-Digest"
    /// `Rampart-Verified-Digest`: the digest a gateway verified, handed upstream in the `Content-Digest` form.
    public static let verifiedDigestHeader = "Rampart-Verified-Digest"
    /// The longest request target accepted in a signed request (bytes).
    public static let maximumTargetByteCount = 8192
    /// The longest challenge accepted in a signed request (bytes).
    public static let maximumChallengeByteCount = 512

    /// The `Content-Digest` value of `body`: `sha-256=:<standard base64 of SHA-256(body)>:`.
    ///
    /// - Parameter body: The body as sent (empty for none).
    /// - Returns: The header value.
    public static func contentDigest(of body: some Collection<UInt8>) -> String {
        "sha-256=:\(digestValue(of: body)):"
    }

    /// The standard base64 of SHA-256(`body`): the fifth line of the signed text.
    ///
    /// - Parameter body: The body as sent.
    /// - Returns: 44 characters.
    public static func digestValue(of body: some Collection<UInt8>) -> String {
        Data(SHA256.hash(Array(body))).base64EncodedString()
    }

    /// The base64 digest inside a `Content-Digest` (or `Rampart-Verified-Digest`) header value.
    ///
    /// Only the one form this format uses is accepted: `sha-256=:` then the canonical padded standard base64 of 32
    /// bytes then `:`, nothing around it. A dictionary with other algorithms, whitespace, or another spelling of the
    /// same bytes is refused, so one body has one signed text.
    ///
    /// - Parameter header: The header value.
    /// - Returns: The 44-character base64 digest.
    /// - Throws: ``RequestSigningError/Code/invalidHeader``.
    public static func digestValue(ofHeader header: String) throws -> String {
        let prefix = "sha-256=:"
        let bytes = Array(header.utf8)
        guard bytes.count == prefix.utf8.count + 44 + 1, bytes.starts(with: prefix.utf8),
            bytes.last == UInt8(ascii: ":")
        else {
            throw RequestSigningError.invalidHeader(
                "Content-Digest must be exactly 'sha-256=:<base64 of the SHA-256 of the body>:' (RFC 9530); send "
                    + "the digest of the body as sent, of zero bytes for no body")
        }
        let value = String(decoding: bytes.dropFirst(prefix.utf8.count).dropLast(), as: UTF8.self)
        guard let decoded = Data(base64Encoded: value), decoded.count == 32,
            decoded.base64EncodedString().hasSameUTF8(as: value)
        else {
            throw RequestSigningError.invalidHeader(
                "the Content-Digest value is not the standard, padded base64 of 32 bytes; encode SHA-256 of the body "
                    + "with the standard alphabet")
        }
        return value
    }

    /// The text whose SHA-256 is the assertion's `clientDataHash`: ``version``, the method, the target, the
    /// challenge and the digest, joined by `\n` without a trailing newline.
    ///
    /// - Parameters:
    ///   - method: The HTTP method; upper-cased (ASCII) here.
    ///   - target: The request target as sent to the backend: path and query, percent-encoding untouched.
    ///   - challenge: The challenge as issued.
    ///   - digest: The base64 value inside `Content-Digest` (``digestValue(of:)``).
    /// - Returns: The UTF-8 bytes.
    /// - Throws: ``RequestSigningError/Code/invalidHeader`` when a part is empty, too long, or holds a control
    ///   character (a line break would let one request's text pass for another's).
    public static func clientData(
        method: String, target: String, challenge: String, digest: String
    ) throws
        -> [UInt8]
    {
        let upper = String(decoding: method.utf8.map { $0 >= 0x61 && $0 <= 0x7A ? $0 - 0x20 : $0 }, as: UTF8.self)
        try check(upper, "the method", maximum: 32)
        try check(target, "the request target", maximum: maximumTargetByteCount)
        try check(challenge, "the challenge", maximum: maximumChallengeByteCount)
        try check(digest, "the digest", maximum: 64)
        return Array([version, upper, target, challenge, digest].joined(separator: "\n").utf8)
    }

    /// SHA-256 of ``clientData(method:target:challenge:digest:)``: the `clientDataHash` to sign or verify.
    ///
    /// - Parameters:
    ///   - method: The HTTP method.
    ///   - target: The request target as sent.
    ///   - challenge: The challenge.
    ///   - digest: The base64 body digest.
    /// - Returns: 32 bytes.
    /// - Throws: ``RequestSigningError/Code/invalidHeader``.
    public static func clientDataHash(
        method: String, target: String, challenge: String, digest: String
    ) throws
        -> [UInt8]
    {
        SHA256.hash(try clientData(method: method, target: target, challenge: challenge, digest: digest))
    }

    private static func check(_ part: String, _ name: String, maximum: Int) throws {
        guard !part.isEmpty, part.utf8.count <= maximum else {
            throw RequestSigningError.invalidHeader("\(name) must be 1...\(maximum) bytes in a signed request")
        }
        guard !part.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else {
            throw RequestSigningError.invalidHeader(
                "\(name) holds a control character; a signed request's parts are single lines of printable text")
        }
    }
}
