/// Reads the subject of a public-listener request from the configured ``SubjectSource``.
struct SubjectResolver: Sendable {
    /// What the resolver found.
    enum Resolution: Sendable {
        case subject(String)
        case refused(Refusal)
    }

    let source: SubjectSource
    /// Verifies a session token (the text after `Bearer `) and returns its `sub`; throws when the token is refused.
    let sessionTokens: (@Sendable (String) throws -> String)?

    init(source: SubjectSource, sessionTokens: (@Sendable (String) throws -> String)? = nil) {
        self.source = source
        self.sessionTokens = sessionTokens
    }

    /// The subject of a request with `headers` (lower-cased names).
    func resolve(_ headers: [String: String]) -> Resolution {
        switch source.backing {
        case .internalOnly:
            return .refused(
                Refusal(
                    .subjectRequired,
                    "this service takes no subject on the public listener: \(source.explanation); have the backend "
                        + "call the internal listener"))
        case .header(let name):
            guard let value = headers[name.lowercased()], !value.isEmpty else {
                return .refused(
                    Refusal(
                        .subjectRequired,
                        "the request carries no '\(name)' header: \(source.explanation); send the request through "
                            + "the proxy that authenticates users"))
            }
            return Self.checked(value, from: "the '\(name)' header")
        case .jwt:
            guard let authorization = headers["authorization"] else {
                return .refused(
                    Refusal(
                        .subjectRequired,
                        "the request carries no 'Authorization: Bearer <session token>': \(source.explanation)"))
            }
            let bytes = Array(authorization.utf8)
            let scheme = Array("bearer ".utf8)
            guard bytes.count > scheme.count,
                bytes.prefix(scheme.count).map({ $0 | 0x20 }).elementsEqual(scheme.map { $0 | 0x20 })
            else {
                return .refused(
                    Refusal(
                        .invalidSessionToken,
                        "'Authorization' must be 'Bearer <session token>' (the app's session JWT)"))
            }
            guard let sessionTokens else {
                return .refused(
                    Refusal(
                        .invalidSessionToken,
                        "session tokens cannot be verified: this build has no session-token verifier configured"))
            }
            let token = String(decoding: bytes.dropFirst(scheme.count), as: UTF8.self)
            do {
                return Self.checked(try sessionTokens(token), from: "the session token's 'sub'")
            } catch {
                return .refused(
                    Refusal(
                        .invalidSessionToken,
                        "the session token was refused (\(error)); sign the user in again to get a fresh token"))
            }
        }
    }

    /// The subject if it is 1...256 bytes of text without control characters (it is echoed in `Rampart-Subject`).
    static func checked(_ subject: String, from place: String) -> Resolution {
        let bytes = subject.utf8
        guard !bytes.isEmpty, bytes.count <= AttestationService.Configuration.maximumSubjectLength,
            !bytes.contains(where: { $0 < 0x20 || $0 == 0x7F })
        else {
            return .refused(
                Refusal(
                    .subjectRequired,
                    "\(place) must be 1...\(AttestationService.Configuration.maximumSubjectLength) bytes of text "
                        + "without control characters (a user or session id)"))
        }
        return .subject(subject)
    }
}
