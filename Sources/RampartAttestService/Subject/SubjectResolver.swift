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
    func resolve(_ headers: [String: String]) -> Resolution {
        switch source.backing {
        case .internalOnly:
            return .refused(
                GatewayRefusal(
                    Refusal(
                        .subjectRequired,
                        "this service takes no subject on the public listener: \(source.explanation); have the "
                            + "backend call the internal listener")))
        case .header(let name):
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

    /// The subject if it is 1...256 bytes of text without control characters (it is echoed in `Rampart-Subject`).
    static func checked(_ subject: String, from place: String) -> Resolution {
        let bytes = subject.utf8
        guard !bytes.isEmpty, bytes.count <= AttestationService.Configuration.maximumSubjectLength,
            !bytes.contains(where: { $0 < 0x20 || $0 == 0x7F })
        else {
            return .refused(
                GatewayRefusal(
                    Refusal(
                        .subjectRequired,
                        "\(place) must be 1...\(AttestationService.Configuration.maximumSubjectLength) bytes of "
                            + "text without control characters (a user or session id)")))
        }
        return .subject(subject)
    }
}
