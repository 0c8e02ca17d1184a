import Foundation
import RampartAttestService
import Testing

/// Who failures are charged to behind a gateway: `X-Forwarded-For` counts only from a trusted proxy.
struct TrustedProxyTests {
    let router: ServiceRouter
    /// The same service with no trusted proxy: the subject header is believed from any peer (the service warns about
    /// that at start), and `X-Forwarded-For` from none.
    let direct: ServiceRouter

    init() throws {
        let store = try SQLiteAttestationStore(path: temporarySQLitePath())
        let service = AttestationService(
            store: store, verifier: FakeVerifier(),
            configuration: .init(limits: RequestLimits(failuresPerAddressPerMinute: 3)),
            clock: { Date(timeIntervalSince1970: 1_800_000_000) })  // fixed: no budget refills while the test runs
        router = ServiceRouter(
            service: service, subjectSource: .header("X-User-Id"),
            routes: try RouteTable(rules: [], defaultPolicy: .requireAssertion), trustedProxies: ["127.0.0.1"])
        direct = ServiceRouter(
            service: service, subjectSource: .header("X-User-Id"),
            routes: try RouteTable(rules: [], defaultPolicy: .requireAssertion), trustedProxies: [])
    }

    /// A forward-auth check whose challenge was never issued: a failure charged to the client address.
    func failing(from peer: String, forwardedFor: String?, directly: Bool = false) async -> HTTPResponse {
        var headers = [
            "X-Forwarded-Method": "POST", "X-Forwarded-Uri": "/api/x", "X-User-Id": "alice",
            "Rampart-Key-Id": Data(repeating: 7, count: 32).base64EncodedString(), "Rampart-Challenge": "never-issued",
            "Rampart-Assertion": Data(repeating: 1, count: 64).base64EncodedString(),
            "Content-Digest": "sha-256=:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=:",
        ]
        if let forwardedFor { headers["X-Forwarded-For"] = forwardedFor }
        return await (directly ? direct : router).respond(
            to: HTTPRequest(method: "GET", path: "/forward-auth", headers: headers, remoteAddress: peer))
    }

    @Test(
        "a direct client's X-Forwarded-For is ignored: it can neither spend another address's budget nor escape its own"
    )
    func untrustedPeer() async {
        for round in 0..<3 {
            let answer = await failing(from: "192.0.2.7", forwardedFor: "198.51.100.\(round)", directly: true)
            #expect(answer.headers["Rampart-Error"] == "challengeUsed")
        }
        // The three failures were charged to the peer, whatever it claimed.
        let spent = await failing(from: "192.0.2.7", forwardedFor: "198.51.100.99", directly: true)
        #expect(spent.headers["Rampart-Error"] == "rateLimited")
        // The address it named is untouched: behind the trusted gateway, that client still gets a verdict.
        let victim = await failing(from: "127.0.0.1", forwardedFor: "198.51.100.0")
        #expect(victim.headers["Rampart-Error"] == "challengeUsed")
        // Where a trusted proxy is configured, a direct client's subject header is not believed at all.
        let untrusted = await failing(from: "192.0.2.8", forwardedFor: nil)
        #expect(untrusted.headers["Rampart-Error"] == "subjectRequired")
    }

    @Test("behind a trusted proxy, the last X-Forwarded-For entry (the proxy's own) is charged, not the proxy")
    func trustedPeer() async {
        for _ in 0..<3 {
            _ = await failing(from: "127.0.0.1", forwardedFor: "203.0.113.50, 198.51.100.20")
        }
        let sameClient = await failing(from: "127.0.0.1", forwardedFor: "198.51.100.20")
        #expect(sameClient.headers["Rampart-Error"] == "rateLimited")
        // The entry the client wrote itself (the first) was not charged, and neither was the proxy.
        #expect(
            await failing(from: "127.0.0.1", forwardedFor: "203.0.113.50").headers["Rampart-Error"] == "challengeUsed")
        #expect(await failing(from: "127.0.0.1", forwardedFor: nil).headers["Rampart-Error"] == "challengeUsed")
        // A last entry that is not an address is ignored: the proxy itself is charged.
        #expect(await failing(from: "127.0.0.1", forwardedFor: "unknown").headers["Rampart-Error"] == "challengeUsed")
    }

    @Test("trustedProxies in the configuration: addresses canonicalised, anything else refused naming the key")
    func configuration() throws {
        func decode(_ json: String) throws -> ServiceConfiguration {
            try JSONDecoder().decode(ServiceConfiguration.self, from: Data(json.utf8))
        }
        #expect(ServiceConfiguration().trustedProxies == ["127.0.0.1", "::1"])
        #expect(
            try decode(#"{"trustedProxies": ["10.0.0.5", "2001:DB8::0:1", "::ffff:192.0.2.1"]}"#).trustedProxies
                == ["10.0.0.5", "2001:db8::1", "192.0.2.1"])
        #expect(try decode(#"{"trustedProxies": []}"#).trustedProxies.isEmpty)
        for bad in [#"["10.0.0.0/8"]"#, #"["localhost"]"#, #"[""]"#, #"["10.0.0.5 "]"#] {
            let error = #expect(throws: AttestServiceError.self) { try decode(#"{"trustedProxies": \#(bad)}"#) }
            #expect(error?.code == .invalidConfiguration)
            #expect(error?.reason.contains("trustedProxies") == true)
        }
    }
}
