import RampartRequestSigning

/// The bytes of one key's requests to one server, built once: the whole `POST /v1/challenges` request (the same
/// for every challenge the key asks for), and the signed request around its two per-request parts.
///
/// A signed request is ``signedPrefix`` (the request line and every header up to `Rampart-Challenge: `), the
/// challenge, ``assertionField``, the assertion in base64, then ``signedSuffix`` (`Content-Digest`,
/// `Content-Length`, the empty line and the body): the same header fields, in the same order, as the app sends.
struct LoadRequestBytes: Sendable {
    /// `POST /v1/challenges {"purpose":"assertion"}` as the key's user.
    var challenge: [UInt8]
    /// The signed request up to the challenge's value.
    var signedPrefix: [UInt8]
    /// The signed request after the assertion's value.
    var signedSuffix: [UInt8]
    /// Between the challenge's value and the assertion's.
    static let assertionField = Array("\r\n\(RequestSignature.assertionHeader): ".utf8)

    /// The requests of `key` to `server`.
    ///
    /// - Parameters:
    ///   - key: The key (its subject and key id).
    ///   - server: The server the requests go to (its `Host`).
    ///   - app: The options and the body's digest.
    init(key: LoadKey, server: LoadServerAddress, app: LoadApp) {
        let options = app.options
        let subject = (options.subjectHeader, key.subject)
        let json = ("Content-Type", "application/json")
        challenge = Self.request(
            "POST", "/v1/challenges", host: server, headers: [subject, json],
            body: Array(#"{"purpose":"assertion"}"#.utf8))
        var prefix = Self.head("POST", options.requestPath, host: server)
        for (name, value) in [subject, json, (RequestSignature.keyIDHeader, key.keyID)] {
            prefix += Array("\(name): \(value)\r\n".utf8)
        }
        prefix += Array("\(RequestSignature.challengeHeader): ".utf8)
        signedPrefix = prefix
        signedSuffix =
            Array("\r\n\(RequestSignature.contentDigestHeader): \(app.contentDigest)\r\n".utf8)
            + Array("Content-Length: \(app.body.count)\r\n\r\n".utf8) + app.body
    }

    /// The request line and the `Host` field.
    static func head(_ method: String, _ path: String, host: LoadServerAddress) -> [UInt8] {
        Array("\(method) \(path) HTTP/1.1\r\nHost: \(host.host):\(host.port)\r\n".utf8)
    }

    /// A whole request: the request line, `Host`, `headers`, `Content-Length` (for a body, `POST` or `PUT`), the
    /// empty line and the body.
    ///
    /// - Parameters:
    ///   - method: The method.
    ///   - path: The request target.
    ///   - host: The server (its `Host`).
    ///   - headers: Extra header fields.
    ///   - body: The body.
    /// - Returns: The bytes to send.
    static func request(
        _ method: String, _ path: String, host: LoadServerAddress, headers: [(String, String)], body: [UInt8]
    ) -> [UInt8] {
        var bytes = head(method, path, host: host)
        for (name, value) in headers { bytes += Array("\(name): \(value)\r\n".utf8) }
        if !body.isEmpty || method == "POST" || method == "PUT" {
            bytes += Array("Content-Length: \(body.count)\r\n".utf8)
        }
        return bytes + Array("\r\n".utf8) + body
    }
}
