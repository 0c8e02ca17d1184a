import Foundation
import RampartAttestService
import RampartAttestSimulation
import RampartCrypto
import RampartJOSE
import RampartKeyAttestation
import RampartRequestSigning
import RampartX509
import Testing

/// Android keys in the service, in-process: registration with a Key Attestation chain from the simulated Keystore
/// (its root configured as an extra root), protected requests through Envoy's `/ext-authz` with `Rampart-Signature`,
/// and every refusal by its code. iOS keys use FakeVerifier's assertions beside them.
struct AndroidKeyTests: RouterCalls {
    static let packageName = "com.example.points"
    static let signingDigest = SHA256.hash(Array("the app's signing certificate".utf8))
    static let target = "/api/points/use"
    static let body = Array(#"{"amount":10}"#.utf8)

    let keystore: SimulatedAndroidKeystore
    let store: SQLiteAttestationStore
    let service: AttestationService
    let router: ServiceRouter

    init() throws {
        keystore = try SimulatedAndroidKeystore()
        store = try SQLiteAttestationStore(path: temporarySQLitePath())
        (service, router) = try Self.service(store: store, keystore: keystore, configured: true)
    }

    static func policy() throws -> KeyAttestationPolicy {
        try KeyAttestationPolicy(packageNames: [packageName], signingCertificateDigests: [signingDigest])
    }

    /// A service (and its public router) on `store`; with `configured`, its Key Attestation verifier trusts the
    /// simulator's root.
    static func service(
        store: any AttestationStore, keystore: SimulatedAndroidKeystore, configured: Bool
    ) throws -> (AttestationService, ServiceRouter) {
        let verifier =
            configured ? try KeyAttestationVerifier(policy: policy(), extraRoots: [keystore.rootCertificate]) : nil
        let service = AttestationService(store: store, verifier: FakeVerifier(), keyAttestation: verifier)
        let routes = try RouteTable(
            rules: [RouteRule(method: "*", path: "/api/*", policy: .requireAssertion)], defaultPolicy: .requireAssertion
        )
        return (service, ServiceRouter(service: service, subjectSource: .header(subjectHeader), routes: routes))
    }

    func call(
        _ method: String, _ path: String, _ json: String = "", headers: [String: String] = [:]
    ) async -> HTTPResponse {
        await router.respond(to: HTTPRequest(method: method, path: path, headers: headers, body: Array(json.utf8)))
    }

    var device: SimulatedAndroidKeystore.Device {
        SimulatedAndroidKeystore.Device(packageName: Self.packageName, signingCertificateDigests: [Self.signingDigest])
    }

    /// The registration body of `key`'s chain with `challenge`.
    static func registration(_ chain: [[UInt8]], challenge: String) -> String {
        let certificates = chain.map { "\"\(Data($0).base64EncodedString())\"" }.joined(separator: ",")
        return #"{"platform":"android","certificateChain":[\#(certificates)],"challenge":"\#(challenge)"}"#
    }

    /// Generates a key on the simulated device with a fresh attestation challenge and registers it.
    func registerAndroid(
        subject: String = "alice", device: SimulatedAndroidKeystore.Device? = nil
    ) async throws -> (key: SimulatedAndroidKey, keyID: String, response: HTTPResponse) {
        let challenge = try await challenge("attestation", subject: subject)
        let key = try keystore.generateKey(challenge: Array(challenge.utf8), device: device ?? self.device)
        let response = await call(
            "POST", "/v1/attestations", Self.registration(key.certificateChainDER, challenge: challenge),
            headers: [subjectHeader: subject])
        let keyID = Data(SHA256.hash(key.certificateChain[0].subjectPublicKeyInfoBytes)).base64EncodedString()
        return (key, keyID, response)
    }

    /// The headers of a request signed by an Android key: `Rampart-Signature` over the client data.
    static func androidHeaders(
        _ key: SimulatedAndroidKey, keyID: String, method: String = "POST", target: String = target,
        body: [UInt8] = body, challenge: String, subject: String = "alice"
    ) throws -> [String: String] {
        let digest = RequestSignature.digestValue(of: body)
        let clientData = try RequestSignature.clientData(
            method: method, target: target, challenge: challenge, digest: digest)
        return [
            "Rampart-Key-Id": keyID, "Rampart-Challenge": challenge,
            "Rampart-Signature": Data(try key.signature(for: clientData)).base64EncodedString(),
            "Content-Digest": "sha-256=:\(digest):", subjectHeader: subject,
        ]
    }

    func envoy(_ headers: [String: String], body: [UInt8] = body, target: String = target) async -> HTTPResponse {
        await router.respond(
            to: HTTPRequest(method: "POST", path: "/ext-authz" + target, headers: headers, body: body))
    }

    @Test("an Android key registers, signs a request through /ext-authz, and its replay is refused")
    func registerSignReplay() async throws {
        let (key, keyID, registered) = try await registerAndroid()
        #expect(registered.status == 201, "\(registered.bodyText)")
        #expect(field(registered, "keyId") == .string(keyID), "the key id is SHA-256 of the leaf's SPKI")
        #expect(field(registered, "platform") == .string("android"))
        let stored = try await service.key(id: Array(Data(base64Encoded: keyID) ?? Data()))
        #expect(stored?.platform == .android)
        #expect(stored?.publicKeyInfo == key.certificateChain[0].subjectPublicKeyInfoBytes)
        let lookup = await ServiceRouter(service: service, listener: .admin).respond(
            to: HTTPRequest(
                method: "GET", path: "/v1/keys/" + Base64URL.encode(Array(Data(base64Encoded: keyID) ?? Data()))))
        #expect(lookup.status == 200, "\(lookup.bodyText)")
        #expect(field(lookup, "platform") == .string("android"), "the operator's key lookup names the platform")
        #expect(field(lookup, "counter") == .number(0))

        let headers = try Self.androidHeaders(key, keyID: keyID, challenge: try await challenge("assertion"))
        let allowed = await envoy(headers)
        #expect(allowed.status == 200, "\(allowed.bodyText)")
        #expect(allowed.headers["Rampart-Platform"] == "android")
        #expect(allowed.headers["Rampart-Key-Id"] == keyID)
        #expect(allowed.headers["Rampart-Subject"] == "alice")
        #expect(field(allowed, "platform") == .string("android"))
        #expect(allowed.headers["Rampart-Next-Challenge"] != nil)

        let replay = await envoy(headers)
        #expect(replay.status == 409)
        #expect(errorCode(replay) == "challengeUsed", "the spent challenge is the replay guard: no counter")

        // The next challenge from the answer signs the next request.
        let next = try #require(allowed.headers["Rampart-Next-Challenge"])
        let again = await envoy(try Self.androidHeaders(key, keyID: keyID, challenge: next))
        #expect(again.status == 200, "\(again.bodyText)")
        #expect(
            service.metrics.prometheusText.contains(#"rampart_accepted_total{kind="assertion",platform="android"} 2"#))
        #expect(
            service.metrics.prometheusText.contains(#"rampart_accepted_total{kind="attestation",platform="android"} 1"#)
        )
    }

    @Test("a changed body is refused: digestMismatch when the digest is kept, invalidSignature when it is recomputed")
    func changedBody() async throws {
        let (key, keyID, _) = try await registerAndroid()
        let headers = try Self.androidHeaders(key, keyID: keyID, challenge: try await challenge("assertion"))
        let changed = Array(#"{"amount":99}"#.utf8)
        let kept = await envoy(headers, body: changed)
        #expect(kept.status == 401)
        #expect(errorCode(kept) == "digestMismatch")

        var recomputed = try Self.androidHeaders(key, keyID: keyID, challenge: try await challenge("assertion"))
        recomputed["Content-Digest"] = "sha-256=:\(RequestSignature.digestValue(of: changed)):"
        let forged = await envoy(recomputed, body: changed)
        #expect(forged.status == 401)
        #expect(errorCode(forged) == "invalidSignature")
        #expect(errorCode(await envoy(recomputed, body: changed)) == "challengeUsed", "the failed try spent it")
    }

    @Test("another subject's Android key is refused (wrongSubject)")
    func wrongSubject() async throws {
        let (key, keyID, _) = try await registerAndroid(subject: "alice")
        let headers = try Self.androidHeaders(
            key, keyID: keyID, challenge: try await challenge("assertion", subject: "bob"), subject: "bob")
        let refused = await envoy(headers)
        #expect(refused.status == 403)
        #expect(errorCode(refused) == "wrongSubject")
    }

    @Test("an iOS and an Android key of one subject both pass the same route, each answered with its platform")
    func bothPlatforms() async throws {
        let iosKey = try await register(subject: "alice")
        let (key, keyID, _) = try await registerAndroid(subject: "alice")
        let ios = await envoy(try await signed(keyID: iosKey, counter: 1, target: Self.target, body: Self.body))
        #expect(ios.status == 200, "\(ios.bodyText)")
        #expect(ios.headers["Rampart-Platform"] == "ios")
        #expect(ios.headers["Rampart-Counter"] == "1")
        let android = await envoy(
            try Self.androidHeaders(key, keyID: keyID, challenge: try await challenge("assertion")))
        #expect(android.status == 200, "\(android.bodyText)")
        #expect(android.headers["Rampart-Platform"] == "android")
        #expect(android.headers["Rampart-Key-Id"] == keyID)
    }

    @Test("the other platform's signature header is refused (wrongPlatform), and both at once are malformed")
    func wrongPlatform() async throws {
        let (key, keyID, _) = try await registerAndroid()
        var asAssertion = try Self.androidHeaders(key, keyID: keyID, challenge: try await challenge("assertion"))
        asAssertion["Rampart-Assertion"] = asAssertion.removeValue(forKey: "Rampart-Signature")
        let android = await envoy(asAssertion)
        #expect(android.status == 401)
        #expect(errorCode(android) == "wrongPlatform")

        let iosKey = try await register(subject: "alice")
        var asSignature = try await signed(keyID: iosKey, counter: 1, target: Self.target, body: Self.body)
        asSignature["Rampart-Signature"] = asSignature.removeValue(forKey: "Rampart-Assertion")
        let ios = await envoy(asSignature)
        #expect(ios.status == 401)
        #expect(errorCode(ios) == "wrongPlatform")

        var both = try Self.androidHeaders(key, keyID: keyID, challenge: try await challenge("assertion"))
        both["Rampart-Assertion"] = both["Rampart-Signature"]
        #expect(errorCode(await envoy(both)) == "malformedSignature")
        var notBase64 = try Self.androidHeaders(key, keyID: keyID, challenge: try await challenge("assertion"))
        notBase64["Rampart-Signature"] = "not base64!"
        #expect(errorCode(await envoy(notBase64)) == "malformedSignature")
    }

    @Test("registrations the policy or the chain refuse get keyAttestation.<reason> codes")
    func registrationRefusals() async throws {
        var otherApp = device
        otherApp.packageName = "com.example.repackaged"
        let package = try await registerAndroid(device: otherApp).response
        #expect(package.status == 403)
        #expect(errorCode(package) == "keyAttestation.packageMismatch")

        var unlocked = device
        unlocked.deviceLocked = false
        #expect(errorCode(try await registerAndroid(device: unlocked).response) == "keyAttestation.deviceUnlocked")

        var software = device
        software.securityLevel = .software
        #expect(errorCode(try await registerAndroid(device: software).response) == "keyAttestation.softwareKey")

        // A key generated with another challenge than the one presented.
        let presented = try await challenge("attestation")
        let stale = try keystore.generateKey(challenge: Array(try await challenge("attestation").utf8), device: device)
        let mismatch = await call(
            "POST", "/v1/attestations", Self.registration(stale.certificateChainDER, challenge: presented),
            headers: [subjectHeader: "alice"])
        #expect(errorCode(mismatch) == "keyAttestation.challengeMismatch")

        // A chain of another CA than the configured one: its root has the configured root's name, so it is taken
        // for it and its signature fails; without the CA certificates, nothing anchors the leaf.
        let otherCA = try SimulatedAndroidKeystore()
        let foreignChallenge = try await challenge("attestation")
        let foreign = try otherCA.generateKey(challenge: Array(foreignChallenge.utf8), device: device)
        let impostor = await call(
            "POST", "/v1/attestations", Self.registration(foreign.certificateChainDER, challenge: foreignChallenge),
            headers: [subjectHeader: "alice"])
        #expect(errorCode(impostor) == "keyAttestation.signatureInvalid")
        let leafOnlyChallenge = try await challenge("attestation")
        let leafOnly = try otherCA.generateKey(challenge: Array(leafOnlyChallenge.utf8), device: device)
        let untrusted = await call(
            "POST", "/v1/attestations",
            Self.registration([leafOnly.certificateChainDER[0]], challenge: leafOnlyChallenge),
            headers: [subjectHeader: "alice"])
        #expect(errorCode(untrusted) == "keyAttestation.untrustedRoot")

        // The leaf of one key under the intermediate of another CA: the chain does not link.
        let mixedChallenge = try await challenge("attestation")
        let leaf = try keystore.generateKey(challenge: Array(mixedChallenge.utf8), device: device)
        let mixed = [leaf.certificateChainDER[0]] + foreign.certificateChainDER.dropFirst()
        let broken = await call(
            "POST", "/v1/attestations", Self.registration(mixed, challenge: mixedChallenge),
            headers: [subjectHeader: "alice"])
        #expect(errorCode(broken)?.hasPrefix("keyAttestation.") == true, "\(broken.bodyText)")
        #expect(errorCode(broken) != "keyAttestation.challengeMismatch")
    }

    @Test(
        "malformed Android registrations: no chain, a certificate that is not DER, an unknown platform, a used challenge"
    )
    func malformedRegistrations() async throws {
        let challenge = try await challenge("attestation")
        let missing = await call(
            "POST", "/v1/attestations", #"{"platform":"android","challenge":"\#(challenge)"}"#,
            headers: [subjectHeader: "alice"])
        #expect(missing.status == 400)
        #expect(errorCode(missing) == "missingField")
        #expect(
            errorCode(
                await call(
                    "POST", "/v1/attestations", Self.registration([[1, 2, 3]], challenge: challenge),
                    headers: [subjectHeader: "alice"])) == "challengeUsed", "the malformed request burnt it")

        let fresh = try await self.challenge("attestation")
        let notDER = await call(
            "POST", "/v1/attestations", Self.registration([[0x30, 0x03, 1, 2, 3]], challenge: fresh),
            headers: [subjectHeader: "alice"])
        #expect(notDER.status == 400)
        #expect(errorCode(notDER) == "invalidField")

        let unknown = await call(
            "POST", "/v1/attestations",
            #"{"platform":"windows","challenge":"\#(try await self.challenge("attestation"))"}"#,
            headers: [subjectHeader: "alice"])
        #expect(errorCode(unknown) == "invalidField")

        let (_, _, first) = try await registerAndroid()
        #expect(first.status == 201)
        let used = try await self.challenge("attestation")
        let key = try keystore.generateKey(challenge: Array(used.utf8), device: device)
        let body = Self.registration(key.certificateChainDER, challenge: used)
        #expect(await call("POST", "/v1/attestations", body, headers: [subjectHeader: "alice"]).status == 201)
        #expect(
            errorCode(await call("POST", "/v1/attestations", body, headers: [subjectHeader: "alice"]))
                == "challengeUsed")
    }

    @Test("a service without an android configuration refuses Android registrations and signatures")
    func notConfigured() async throws {
        let (key, keyID, _) = try await registerAndroid()
        let (_, unconfigured) = try Self.service(store: store, keystore: keystore, configured: false)
        let other = Unconfigured(router: unconfigured)
        let challenge = try await other.challenge("attestation")
        let generated = try keystore.generateKey(challenge: Array(challenge.utf8), device: device)
        let registration = await other.call(
            "POST", "/v1/attestations", Self.registration(generated.certificateChainDER, challenge: challenge),
            headers: [subjectHeader: "alice"])
        #expect(registration.status == 403)
        #expect(errorCode(registration) == "androidNotConfigured")

        // A key another service registered on the shared database.
        let headers = try Self.androidHeaders(key, keyID: keyID, challenge: try await other.challenge("assertion"))
        let request = await unconfigured.respond(
            to: HTTPRequest(method: "POST", path: "/ext-authz" + Self.target, headers: headers, body: Self.body))
        #expect(request.status == 403)
        #expect(errorCode(request) == "androidNotConfigured")
        // iOS keys still work there.
        let iosKey = try await other.register(subject: "alice")
        let ios = await unconfigured.respond(
            to: HTTPRequest(
                method: "POST", path: "/ext-authz" + Self.target,
                headers: try await other.signed(keyID: iosKey, counter: 1, target: Self.target, body: Self.body),
                body: Self.body))
        #expect(ios.status == 200, "\(ios.bodyText)")
    }

    @Test(
        "an Android key gets an access token (platform claim), the sidecar allows its signed request, both say android")
    func tokensAndSidecar() async throws {
        let tokens = try AccessTokenIssuer(configuration: TokenConfiguration(audience: "T.b"), store: store)
        let routes = try RouteTable(
            rules: [
                RouteRule(method: "*", path: "/api/*", policy: .requireAssertion),
                RouteRule(method: "GET", path: "/api/feed/*", policy: .token),
            ], defaultPolicy: .requireAssertion)
        let router = ServiceRouter(
            service: service, subjectSource: .header(subjectHeader), routes: routes, tokens: tokens)
        let (key, keyID, _) = try await registerAndroid()
        let issued = await router.respond(
            to: HTTPRequest(
                method: "POST", path: "/v1/tokens",
                headers: try Self.androidHeaders(
                    key, keyID: keyID, target: "/v1/tokens", body: [], challenge: try await challenge("assertion"))))
        #expect(issued.status == 200, "\(issued.bodyText)")
        #expect(issued.headers["Rampart-Platform"] == "android")
        guard case .string(let token)? = field(issued, "token") else { throw AttestServiceError.invalidJSON("") }
        #expect(try await tokens.verify(token).platform == .android)
        let feed = await router.respond(
            to: HTTPRequest(
                method: "GET", path: "/ext-authz/api/feed/today",
                headers: [subjectHeader: "alice", "Rampart-Token": token]))
        #expect(feed.status == 200, "\(feed.bodyText)")
        #expect(feed.headers["Rampart-Policy"] == "token")
        #expect(feed.headers["Rampart-Platform"] == "android")

        // The sidecar on the internal listener: the same verdict for the same signed request.
        let admin = ServiceRouter(service: service, listener: .admin, routes: routes)
        let headers = try Self.androidHeaders(key, keyID: keyID, challenge: try await challenge("assertion"))
        let headerObject = headers.filter { $0.key != subjectHeader }.map { "\"\($0.key)\":\"\($0.value)\"" }
            .joined(separator: ",")
        let sidecar = await admin.respond(
            to: HTTPRequest(
                method: "POST", path: "/v1/verify", headers: ["content-type": "application/json"],
                body: Array(
                    #"{"method":"POST","target":"\#(Self.target)","subject":"alice","headers":{\#(headerObject)},"body":"\#(Data(Self.body).base64EncodedString())"}"#
                        .utf8)))
        #expect(sidecar.status == 200, "\(sidecar.bodyText)")
        #expect(field(sidecar, "platform") == .string("android"))
        #expect(sidecar.headers["Rampart-Platform"] == "android")
    }

    @Test("an Android key registered by a service of another environment is refused (wrongEnvironment)")
    func otherEnvironment() async throws {
        let (key, keyID, registered) = try await registerAndroid()
        #expect(field(registered, "environment") == .string("production"))
        let development = AttestationService(
            store: store, verifier: FakeVerifier(), configuration: .init(environment: "development"),
            keyAttestation: try KeyAttestationVerifier(policy: Self.policy(), extraRoots: [keystore.rootCertificate]))
        let routes = try RouteTable(
            rules: [RouteRule(method: "*", path: "/api/*", policy: .requireAssertion)], defaultPolicy: .requireAssertion
        )
        let other = Unconfigured(
            router: ServiceRouter(service: development, subjectSource: .header(subjectHeader), routes: routes))
        let refused = await other.router.respond(
            to: HTTPRequest(
                method: "POST", path: "/ext-authz" + Self.target,
                headers: try Self.androidHeaders(key, keyID: keyID, challenge: try await other.challenge("assertion")),
                body: Self.body))
        #expect(refused.status == 403)
        #expect(errorCode(refused) == "wrongEnvironment")
        #expect(refused.bodyText.contains("Android key was registered by a production service"))
    }

    @Test("a certificateChain that is not an array of 1...10 base64 strings is invalidField")
    func chainShapes() async throws {
        let certificate = "\"\(Data([0x30, 0x00]).base64EncodedString())\""
        for chain in [
            "\"one string\"", "[]", "[1]", "[" + Array(repeating: certificate, count: 11).joined(separator: ",") + "]",
            "[\"not base64!\"]",
        ] {
            let response = await call(
                "POST", "/v1/attestations",
                #"{"platform":"android","certificateChain":\#(chain),"challenge":"\#(try await challenge("attestation"))"}"#,
                headers: [subjectHeader: "alice"])
            #expect(response.status == 400, "\(chain)")
            #expect(["invalidField", "invalidBase64"].contains(errorCode(response)), "\(chain): \(response.bodyText)")
        }
    }

    @Test("the android configuration is read with the policy's keys, and an unknown key is refused")
    func configuration() throws {
        let json = #"""
            {"android": {"packageNames": ["com.example.points"],
              "signingCertificateDigests": ["\#(Data(Self.signingDigest).base64EncodedString())"],
              "minimumSecurityLevel": "strongbox", "minimumOSPatchLevel": 202401, "extraRoots": []}}
            """#
        let configuration = try JSONDecoder().decode(ServiceConfiguration.self, from: Data(json.utf8))
        #expect(configuration.android?.policy.packageNames == ["com.example.points"])
        #expect(configuration.android?.policy.minimumSecurityLevel == .strongbox)
        #expect(configuration.android?.policy.minimumOSPatchLevel == 202_401)
        #expect(try configuration.makeKeyAttestationVerifier() != nil)
        #expect(try ServiceConfiguration().makeKeyAttestationVerifier() == nil)
        for (bad, expected) in [
            (#"{"android": {"packageName": ["x"]}}"#, "unknown configuration key 'android.packageName'"),
            (#"{"android": {"minimumSecurityLevel": "software"}}"#, "\"tee\" or \"strongbox\""),
            (#"{"android": {"minimumOSPatchLevel": 2024}}"#, "YYYYMM"),
            (#"{"android": {"signingCertificateDigests": ["not base64!"]}}"#, "not standard base64"),
            (#"{"android": {"extraRoots": ["a", "b", "c", "d", "e", "f", "g", "h", "i"]}}"#, "at most 8 PEM files"),
        ] {
            let error = #expect(throws: AttestServiceError.self) {
                try JSONDecoder().decode(ServiceConfiguration.self, from: Data(bad.utf8))
            }
            #expect(error?.code == .invalidConfiguration)
            #expect(error?.reason.contains(expected) == true, "\(error?.reason ?? "")")
        }
        var missingRoot = ServiceConfiguration()
        missingRoot.android = .init(policy: try Self.policy(), extraRoots: ["/nonexistent/root.pem"])
        let error = #expect(throws: AttestServiceError.self) { try missingRoot.makeKeyAttestationVerifier() }
        #expect(error?.reason.contains("android.extraRoots") == true)
        var missingList = ServiceConfiguration()
        missingList.android = .init(policy: try Self.policy(), revocations: "/nonexistent/status.json")
        let listError = #expect(throws: AttestServiceError.self) { try missingList.makeKeyAttestationVerifier() }
        #expect(listError?.code == .invalidConfiguration)
        #expect(listError?.reason.contains("android.revocations") == true, "\(listError?.reason ?? "")")
    }
}

/// Calls to a second router on the same database.
private struct Unconfigured: RouterCalls {
    let router: ServiceRouter

    func call(_ method: String, _ path: String, _ json: String, headers: [String: String]) async -> HTTPResponse {
        await router.respond(to: HTTPRequest(method: method, path: path, headers: headers, body: Array(json.utf8)))
    }
}
