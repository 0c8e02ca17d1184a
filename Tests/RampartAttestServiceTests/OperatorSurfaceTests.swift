import Foundation
import RampartAppAttest
import RampartAttestService
import RampartCrypto
import RampartRequestSigning
import Synchronization
import Testing

/// Issue 12 item 5: operator routes and metrics only on the admin listener, a strong token compared in constant
/// time, and key ids logged only as fingerprints.
struct OperatorSurfaceTests {
    let service: AttestationService
    static let token = "k3J9-pQ2x_Lm7vR4tY8wZ1aB6cD0eF5g"

    init() throws {
        service = AttestationService(
            store: try SQLiteAttestationStore(path: temporarySQLitePath()), verifier: FakeVerifier())
    }

    func errorCode(_ response: HTTPResponse) -> String? {
        guard case .object(let fields)? = try? JSONValue(parsing: response.body),
            case .string(let code)? = fields["error"]
        else { return nil }
        return code
    }

    static let keyPath = "/v1/keys/" + String(repeating: "A", count: 43)

    @Test(
        "the public listener answers 404 notFound for every operator route and /metrics, with no token or any",
        arguments: ServiceRouter.operatorRoutes)
    func publicListenerHidesOperatorRoutes(_ route: String) async {
        let parts = route.split(separator: " ")
        let path = String(parts[1]).replacingOccurrences(of: "{keyId}", with: String(repeating: "A", count: 43))
        for token in [nil, Self.token] {
            let router = ServiceRouter(service: service, operatorToken: token)
            for headers in [[:], ["Authorization": "Bearer \(Self.token)"]] {
                let response = await router.respond(
                    to: HTTPRequest(method: String(parts[0]), path: path, headers: headers))
                #expect(response.status == 404, "\(route)")
                #expect(errorCode(response) == "notFound")
                #expect(response.bodyText.contains("admin listener"))
            }
        }
    }

    @Test("the admin listener answers only its internal and operator routes and /healthz; public-only routes are 404")
    func adminListenerHidesPublicRoutes() async {
        let admin = ServiceRouter(service: service, listener: .admin)
        let health = await admin.respond(to: HTTPRequest(method: "GET", path: "/healthz"))
        #expect(health.status == 200)
        let metrics = await admin.respond(to: HTTPRequest(method: "GET", path: "/metrics"))
        #expect(metrics.status == 200)
        for route in ServiceRouter.publicRoutes
        where route != "GET /healthz" && !ServiceRouter.internalRoutes.contains(route) {
            let parts = route.split(separator: " ")
            let path = String(parts[1]).replacingOccurrences(of: "{target}", with: "api/x")
            let response = await admin.respond(
                to: HTTPRequest(method: String(parts[0]), path: path, body: Array("{}".utf8)))
            #expect(response.status == 404, "\(route)")
            #expect(errorCode(response) == "notFound")
        }
    }

    struct Presented: CustomTestStringConvertible, Sendable {
        let name: String
        let header: String?
        var testDescription: String { name }
    }

    static let wrongCredentials: [Presented] = [
        .init(name: "no Authorization header", header: nil),
        .init(name: "an empty header", header: ""),
        .init(name: "'Bearer ' with nothing after it", header: "Bearer "),
        .init(name: "'Bearer' alone", header: "Bearer"),
        .init(name: "the token without 'Bearer '", header: token),
        .init(name: "the token with a byte missing", header: "Bearer " + token.dropLast()),
        .init(name: "the token with a byte added", header: "Bearer \(token)x"),
        .init(name: "the token with its last byte changed", header: "Bearer \(token.dropLast())h"),
        .init(name: "a lower-case scheme", header: "bearer \(token)"),
        .init(name: "the token's first character", header: "Bearer k"),
    ]

    @Test(
        "with a token, every operator route refuses anything but the exact header: 401 unauthorized",
        arguments: wrongCredentials)
    func wrongToken(_ presented: Presented) async {
        let admin = ServiceRouter(service: service, listener: .admin, operatorToken: Self.token)
        for route in ServiceRouter.operatorRoutes {
            let parts = route.split(separator: " ")
            let path = String(parts[1]).replacingOccurrences(of: "{keyId}", with: String(repeating: "A", count: 43))
            let headers = presented.header.map { ["Authorization": $0] } ?? [:]
            let response = await admin.respond(to: HTTPRequest(method: String(parts[0]), path: path, headers: headers))
            #expect(response.status == 401, "\(route)")
            #expect(errorCode(response) == "unauthorized")
            #expect(response.headers["WWW-Authenticate"] == "Bearer")
        }
        let health = await admin.respond(to: HTTPRequest(method: "GET", path: "/healthz"))
        #expect(health.status == 200)
    }

    @Test("with the token, operator routes answer: /metrics 200, an unknown key 404 keyNotFound")
    func rightToken() async {
        let admin = ServiceRouter(service: service, listener: .admin, operatorToken: Self.token)
        let headers = ["Authorization": "Bearer \(Self.token)"]
        let metrics = await admin.respond(to: HTTPRequest(method: "GET", path: "/metrics", headers: headers))
        #expect(metrics.status == 200)
        let key = await admin.respond(to: HTTPRequest(method: "GET", path: Self.keyPath, headers: headers))
        #expect(key.status == 404)
        #expect(errorCode(key) == "keyNotFound")
    }

    struct WeakToken: CustomTestStringConvertible, Sendable {
        let name: String
        let token: String
        var testDescription: String { name }
    }

    static let weakTokens: [WeakToken] = [
        .init(name: "empty", token: ""),
        .init(name: "one character", token: "x"),
        .init(name: "a short word", token: "change-me"),
        .init(name: "31 bytes", token: String(token.dropLast())),
        .init(name: "32 times the same byte", token: String(repeating: "a", count: 64)),
        .init(name: "32 bytes with 15 distinct ones (125 bits)", token: "0123456789abcde0123456789abcde01"),
        .init(name: "64 bytes of two characters (64 bits)", token: String(repeating: "ab", count: 32)),
    ]

    @Test("a weak operator token is invalidConfiguration", arguments: weakTokens)
    func weakToken(_ weak: WeakToken) {
        var configuration = ServiceConfiguration()
        configuration.operatorToken = weak.token
        #expect(throws: AttestServiceError.invalidConfiguration("")) { try configuration.validate() }
    }

    @Test("a 32-byte token with 16 distinct bytes, and hex or base64 tokens of 32 random bytes, are accepted")
    func strongToken() throws {
        var configuration = ServiceConfiguration()
        configuration.operatorToken = "0123456789abcdef0123456789abcdef"
        try configuration.validate()
        for _ in 0..<200 {
            let random = SecureRandom.bytes(count: 32)
            configuration.operatorToken = random.map { String(format: "%02x", $0) }.joined()
            try configuration.validate()
            configuration.operatorToken = Data(random).base64EncodedString()
            try configuration.validate()
        }
    }

    @Test("the admin address: loopback by default, anything else needs a token, never the public address")
    func adminAddress() throws {
        var configuration = ServiceConfiguration()
        #expect(configuration.adminListen == "127.0.0.1:8081")
        #expect(try configuration.adminListenAddress() == ("127.0.0.1", 8081))
        for loopback in ["127.0.0.1:0", "127.8.9.10:9000", "[::1]:8081"] {
            configuration.adminListen = loopback
            try configuration.validate()
        }
        for exposed in ["0.0.0.0:8081", "[::]:8081", "192.0.2.10:8081", "[2001:db8::1]:8081"] {
            configuration.adminListen = exposed
            #expect(throws: AttestServiceError.invalidConfiguration("")) { try configuration.validate() }
            configuration.operatorToken = Self.token
            try configuration.validate()
            configuration.operatorToken = nil
        }
        for bad in ["8081", "127.0.0.1:", "localhost:x"] {
            configuration.adminListen = bad
            #expect(throws: AttestServiceError.invalidConfiguration("")) { try configuration.validate() }
        }
        configuration.adminListen = configuration.listen
        #expect(throws: AttestServiceError.invalidConfiguration("")) { try configuration.validate() }
    }

    @Test("adminListen and the connection limits are configuration keys; out-of-range limits are refused")
    func listenerKeys() throws {
        let configuration = try JSONDecoder().decode(
            ServiceConfiguration.self,
            from: Data(
                #"{"adminListen":"127.0.0.1:9999","connectionLimit":100,"connectionsPerAddress":0,"requestTimeoutSeconds":2.5}"#
                    .utf8))
        #expect(configuration.adminListen == "127.0.0.1:9999")
        #expect(configuration.connectionLimit == 100)
        #expect(configuration.connectionsPerAddress == 0)
        #expect(configuration.requestTimeoutSeconds == 2.5)
        try configuration.validate()
        let defaults = ServiceConfiguration()
        #expect(defaults.connectionLimit == 4096)
        #expect(defaults.connectionsPerAddress == 64)
        #expect(defaults.requestTimeoutSeconds == 10)
        for change in [
            { (c: inout ServiceConfiguration) in c.connectionLimit = 1 },
            { $0.connectionsPerAddress = -1 }, { $0.connectionsPerAddress = 5000 },
            { $0.requestTimeoutSeconds = 0 }, { $0.requestTimeoutSeconds = 1000 },
        ] {
            var changed = ServiceConfiguration()
            change(&changed)
            #expect(throws: AttestServiceError.invalidConfiguration("")) { try changed.validate() }
        }
    }

    @Test("a fingerprint is the first four bytes of SHA-256 as eight lower-case hex digits, small bytes zero-padded")
    func fingerprintDigits() {
        var sawSmallByte = false
        for seed in 0..<64 {
            let keyID = [UInt8](repeating: UInt8(seed), count: 32)
            let prefix = SHA256.hash(keyID).prefix(4)
            if prefix.contains(where: { $0 < 0x10 }) { sawSmallByte = true }
            let expected = prefix.map { String(format: "%02x", $0) }.joined()
            #expect(ServiceRouter.fingerprint(keyID: keyID) == expected)
        }
        #expect(sawSmallByte, "no digest byte below 0x10 among the ids: the padding went untested")
    }

    @Test("log lines name a key by its fingerprint (8 hex digits of SHA-256 of the id), never by its id")
    func fingerprintInLogs() async throws {
        let lines = LogLines()
        let keyID = [UInt8](repeating: 7, count: 32)
        let admin = ServiceRouter(service: service, listener: .admin, log: ServiceLog(sink: lines.append))
        let path = "/v1/keys/" + Data(keyID).base64EncodedString().replacingOccurrences(of: "/", with: "_")
        _ = await admin.respond(to: HTTPRequest(method: "GET", path: path))
        let expected = SHA256.hash(keyID).prefix(4).map { String(format: "%02x", $0) }.joined()
        #expect(ServiceRouter.fingerprint(keyID: keyID) == expected)
        let line = try #require(lines.all.first)
        #expect(line.contains(#""keyFingerprint":"\#(expected)""#))
        #expect(!line.contains(Data(keyID).base64EncodedString().prefix(20)))
        #expect(!line.contains(#""keyId""#))
    }
}

/// Collects log lines from any thread.
final class LogLines: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}
