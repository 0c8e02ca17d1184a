import Foundation

/// Reads the subject of a public-listener request from the configured ``SubjectSource``.
struct SubjectResolver: Sendable {
    /// What the resolver found.
    enum Resolution: Sendable {
        case subject(String)
        case refused(GatewayRefusal)
    }

    let source: SubjectSource
    /// Verifies the session JWT of the `jwt` source.
    let sessionTokens: SessionTokenVerifier?
    let clock: @Sendable () -> Date

    init(
        source: SubjectSource, sessionTokens: SessionTokenVerifier? = nil,
        clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.source = source
        self.sessionTokens = sessionTokens
        self.clock = clock
    }

    /// The subject of a request with `headers` (lower-cased names).
    ///
    /// - Parameters:
    ///   - headers: The request's headers.
    ///   - fromTrustedPeer: Whether the TCP peer is one of ``ServiceConfiguration/trustedProxies`` (or that list is
    ///     empty, which the service warns about at start): a header source is believed only then, because a client
    ///     that reaches the listener directly sets any header it likes.
    /// - Returns: The subject, or why there is none.
    func resolve(_ headers: [String: String], fromTrustedPeer: Bool) -> Resolution {
        switch source.backing {
        case .internalOnly:
            return .refused(
                GatewayRefusal(
                    Refusal(
                        .subjectRequired,
                        "this service takes no subject on the public listener: \(source.explanation); have the "
                            + "backend call the internal listener")))
        case .header(let name):
            guard fromTrustedPeer else {
                return .refused(
                    GatewayRefusal(
                        Refusal(
                            .subjectRequired,
                            "the '\(name)' header is believed only from the proxies in trustedProxies, and this "
                                + "request came from another address; send it through the proxy that authenticates "
                                + "users, or add that proxy's address to trustedProxies")))
            }
            guard let value = headers[name.lowercased()], !value.isEmpty else {
                return .refused(
                    GatewayRefusal(
                        Refusal(
                            .subjectRequired,
                            "the request carries no '\(name)' header: \(source.explanation); send the request "
                                + "through the proxy that authenticates users")))
            }
            return Self.checked(value, from: "the '\(name)' header")
        case .jwt:
            guard let sessionTokens else {
                return .refused(
                    GatewayRefusal(
                        AttestServiceError.invalidSession(
                            "session tokens cannot be verified: no JWKS was loaded for the jwt subject source")))
            }
            do {
                let subject = try sessionTokens.subject(authorization: headers["authorization"], now: clock())
                return Self.checked(subject, from: "the session token's 'sub'")
            } catch let error as AttestServiceError {
                return .refused(GatewayRefusal(error))
            } catch {
                return .refused(GatewayRefusal(AttestServiceError.invalidSession("the session token was refused")))
            }
        }
    }

    /// The subject if a header carries it exactly: 1...256 bytes of printable ASCII (spaces only inside), because
    /// it is echoed in `Rampart-Subject` and the API behind the gateway must read the same text.
    ///
    /// Every HTTP parser strips a header value's leading and trailing whitespace (RFC 9110 5.5), so `" alice"` would
    /// reach the API as `alice`; and bytes above 0x7E are `obs-text`, which servers decode differently (Python's
    /// WSGI and Node.js as Latin-1, others as UTF-8), so `café` would reach it as `cafÃ©`. Either would let one
    /// subject's key or token act as another user the API knows, so both are refused, from every subject source.
    static func checked(_ subject: String, from place: String) -> Resolution {
        let bytes = subject.utf8
        let maximum = AttestationService.Configuration.maximumSubjectLength
        let problem: String? =
            if bytes.isEmpty || bytes.count > maximum {
                "must be 1...\(maximum) bytes"
            } else if let bad = bytes.first(where: { $0 < 0x20 || $0 > 0x7E }) {
                bad > 0x7E
                    ? "holds a non-ASCII character, which HTTP servers decode differently (Latin-1 or UTF-8)"
                    : "holds a control character"
            } else if bytes.first == 0x20 || bytes.last == 0x20 {
                "starts or ends with a space, which every HTTP parser strips from the Rampart-Subject header"
            } else {
                nil
            }
        guard let problem else { return .subject(subject) }
        return .refused(
            GatewayRefusal(
                Refusal(
                    .subjectRequired,
                    "\(place) \(problem); a subject must be 1...\(maximum) printable ASCII characters with no leading "
                        + "or trailing space (a user or session id, e.g. its UUID), so the API reads exactly the "
                        + "subject Rampart checked")))
    }
}
