import Foundation
import RampartAttestService
import TestSupport
import Testing

struct ServiceConfigurationTests {
    func write(_ text: String) throws -> String {
        let path = ScratchDirectory.uniquePath("config.json")
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test("a configuration file overrides defaults and keeps the rest")
    func load() throws {
        let path = try write(
            #"""
            {"listen":"0.0.0.0:9000","teamId":"ABCDE12345","bundleId":"com.example.app","environment":"development",
             "routes":[{"method":"POST","path":"/api/points/*","policy":"limited"}],"riskBlockThreshold":3,
             "subject":{"header":"X-User-Id"},"defaultPolicy":"token","tokens":{"lifetimeSeconds":120}}
            """#)
        let configuration = try ServiceConfiguration.load(path: path)
        #expect(configuration.listen == "0.0.0.0:9000")
        #expect(configuration.teamId == "ABCDE12345")
        #expect(configuration.environment == "development")
        #expect(configuration.routes == [RouteRule(method: "POST", path: "/api/points/*", policy: .limited)])
        #expect(configuration.subject == .header("X-User-Id"))
        #expect(configuration.defaultPolicy == .token)
        #expect(configuration.tokens.lifetimeSeconds == 120)
        #expect(configuration.tokens.issuer == "rampart")
        #expect(configuration.riskBlockThreshold == 3)
        #expect(configuration.database == "sqlite:rampart.db")
        #expect(configuration.challengeLifetimeSeconds == 300)
        try configuration.validate()
    }

    struct BadFile: CustomTestStringConvertible, Sendable {
        let name: String
        let text: String
        var testDescription: String { name }
    }

    @Test(
        "an unknown key, a wrong type, a bad policy or a non-object file is invalidConfiguration",
        arguments: [
            BadFile(name: "unknown key", text: #"{"lisen":"x"}"#),
            BadFile(name: "wrong type", text: #"{"riskBlockThreshold":"five"}"#),
            BadFile(name: "bad policy", text: #"{"routes":[{"method":"GET","path":"/x","policy":"maybe"}]}"#),
            BadFile(name: "the old routes dictionary", text: #"{"routes":{"/v1/demo/points/use":"limited"}}"#),
            BadFile(name: "a rule without a path", text: #"{"routes":[{"method":"GET","policy":"open"}]}"#),
            BadFile(
                name: "a rule with an extra key",
                text: #"{"routes":[{"method":"GET","path":"/x","policy":"open","x":1}]}"#),
            BadFile(name: "a bad default policy", text: #"{"defaultPolicy":"closed"}"#),
            BadFile(name: "two subject sources", text: #"{"subject":{"header":"X","internal":true}}"#),
            BadFile(name: "a subject string", text: #"{"subject":"X-User-Id"}"#),
            BadFile(name: "internal false", text: #"{"subject":{"internal":false}}"#),
            BadFile(name: "jwt without an issuer", text: #"{"subject":{"jwt":{"jwks":"/j","audience":"a"}}}"#),
            BadFile(
                name: "jwt with an unknown key",
                text: #"{"subject":{"jwt":{"jwks":"/j","issuer":"i","audience":"a","alg":"x"}}}"#),
            BadFile(name: "tokens with an unknown key", text: #"{"tokens":{"lifetime":5}}"#),
            BadFile(name: "not an object", text: "[]"),
            BadFile(name: "not JSON", text: "listen=1"),
        ])
    func badFiles(_ file: BadFile) throws {
        let path = try write(file.text)
        #expect(throws: AttestServiceError.invalidConfiguration("")) { try ServiceConfiguration.load(path: path) }
    }

    @Test("a missing file is invalidConfiguration")
    func missingFile() {
        #expect(throws: AttestServiceError.invalidConfiguration("")) {
            try ServiceConfiguration.load(path: "/nonexistent/rampart.json")
        }
    }

    @Test("listen addresses: IPv4, bracketed IPv6, and refusals")
    func listen() throws {
        var configuration = ServiceConfiguration()
        configuration.listen = "[::1]:8443"
        #expect(try configuration.listenAddress() == ("::1", 8443))
        for bad in ["8080", "host:", "127.0.0.1:99999", "127.0.0.1:http"] {
            configuration.listen = bad
            #expect(throws: AttestServiceError.invalidConfiguration("")) { try configuration.listenAddress() }
        }
    }

    @Test("out-of-range values are refused by validate()")
    func ranges() {
        func refused(_ change: (inout ServiceConfiguration) -> Void) -> Bool {
            var configuration = ServiceConfiguration()
            change(&configuration)
            return (try? configuration.validate()) == nil
        }
        #expect(refused { $0.environment = "staging" })
        #expect(refused { $0.challengeLifetimeSeconds = 0 })
        #expect(refused { $0.challengeLifetimeSeconds = 86_400 })
        #expect(refused { $0.riskBlockThreshold = 0 })
        #expect(refused { $0.maximumBodyBytes = 10 })
        #expect(refused { $0.postgresPoolSize = 0 })
        #expect(!refused { _ in })
    }

    @Test("sqlite:PATH and bare paths open SQLite; an empty path is refused")
    func stores() async throws {
        var configuration = ServiceConfiguration()
        configuration.database = "sqlite:" + temporarySQLitePath()
        try await configuration.openStore().close()
        configuration.database = temporarySQLitePath()
        try await configuration.openStore().close()
        configuration.database = "sqlite:"
        #expect(throws: AttestServiceError.invalidConfiguration("")) { try configuration.openStore() }
    }

    @Test(
        "limits.outstandingChallengesPerSubject: accepted with a warning that it has no effect, its value unused",
        arguments: ["4", "0", "16", "5000", "null"])
    func outstandingChallengesPerSubjectWarns(value: String) throws {
        let path = try write(#"{"limits":{"outstandingChallengesPerSubject":\#(value)}}"#)
        let configuration = try ServiceConfiguration.load(path: path)
        try configuration.validate()
        #expect(configuration.warnings == [.outstandingChallengesPerSubject])
        #expect(configuration.limits == RequestLimits.default)
        #expect(
            configuration.warnings.map(\.message) == [
                "limits.outstandingChallengesPerSubject has no effect since challenges are sealed tokens (they take "
                    + "no storage until used: challengeLifetimeSeconds bounds them and the spent set makes each "
                    + "one-time); remove it"
            ])
        #expect(configuration.warnings.map(\.key) == ["limits.outstandingChallengesPerSubject"])
        let other = try write(#"{"limits":{"failuresPerAddressPerMinute":3}}"#)
        #expect(try ServiceConfiguration.load(path: other).warnings == [])
        #expect(ServiceConfiguration().warnings == [])
    }

    @Test("open defaultPolicy, a subject header from any peer and unsealed token keys are warned about at start")
    func riskyConfigurationIsWarnedAbout() async throws {
        func warnings(_ extra: String) async throws -> Set<String> {
            let path = try write(
                #"""
                {"listen":"127.0.0.1:0","adminListen":"127.0.0.1:0","database":"sqlite:\#(temporarySQLitePath())",
                 "teamId":"ABCDE12345","bundleId":"com.example.app","subject":{"header":"X-User-Id"}\#(extra)}
                """#)
            let lines = LogLines()
            let server = try AttestationServer(
                configuration: try ServiceConfiguration.load(path: path), verifier: FakeVerifier(),
                log: ServiceLog(sink: lines.append))
            await server.stop()
            let events = lines.all.compactMap { line -> [String: String]? in
                (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: String]
            }
            return Set(events.filter { $0["level"] == "warning" }.compactMap { $0["event"] })
        }
        let risky = try await warnings(#","defaultPolicy":"open","trustedProxies":[]"#)
        #expect(risky == ["defaultPolicyOpen", "subjectHeaderFromAnyPeer", "tokenKeysUnsealed"])
        let key = Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        let careful = try await warnings(#","challenges":{"sealingKeys":["\#(key)"]}"#)
        #expect(careful.isEmpty, "\(careful)")
    }

    @Test("a service whose configuration sets an ignored key logs the warning as it starts, and serves")
    func ignoredKeyIsLoggedAtStart() async throws {
        let path = try write(
            #"""
            {"listen":"127.0.0.1:0","adminListen":"127.0.0.1:0","database":"sqlite:\#(temporarySQLitePath())",
             "teamId":"ABCDE12345","bundleId":"com.example.app","subject":{"header":"X-User-Id"},
             "limits":{"challengesPerAddressPerMinute":120,"outstandingChallengesPerSubject":16}}
            """#)
        let configuration = try ServiceConfiguration.load(path: path)
        let lines = LogLines()
        let server = try AttestationServer(
            configuration: configuration, verifier: FakeVerifier(), log: ServiceLog(sink: lines.append))
        #expect(server.port != 0)
        let health = await RawHTTP.request(port: server.adminPort, "GET", "/healthz")
        let challenge = await RawHTTP.request(
            port: server.port, "POST", "/v1/challenges", body: Array(#"{"purpose":"attestation"}"#.utf8),
            headers: ["X-User-Id": "alice", "Content-Type": "application/json"])
        await server.stop()
        #expect(health?.status == 200)
        #expect(challenge?.status == 200)
        let events = lines.all.compactMap { line -> [String: String]? in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: String]
        }
        let warning = try #require(events.first { $0["event"] == "ignoredConfigurationKey" }, "\(lines.all)")
        #expect(warning["level"] == "warning")
        #expect(warning["message"] == ServiceConfiguration.Warning.outstandingChallengesPerSubject.message)
        #expect(events.filter { $0["event"] == "ignoredConfigurationKey" }.count == 1)
        // Said before the service says it listens, so it is the first thing an operator reads.
        let order = events.compactMap { $0["event"] }
        let warned = try #require(order.firstIndex(of: "ignoredConfigurationKey"))
        let listening = try #require(order.firstIndex(of: "listening"))
        #expect(warned < listening)
    }
}

/// Item 9 of the hardening issue: a configuration says exactly what is wrong with it.
struct ConfigurationMessageTests {
    func message(_ text: String) throws -> String? {
        let path = ScratchDirectory.uniquePath("config.json")
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        do {
            try ServiceConfiguration.load(path: path).validate()
            return nil
        } catch let error as AttestServiceError {
            #expect(error.code == .invalidConfiguration)
            return error.reason
        }
    }

    @Test("the old routes dictionary is refused with a message showing the new form")
    func oldRoutes() throws {
        let reason = try message(#"{"routes":{"/v1/demo/points/use":"limited"}}"#)
        #expect(reason?.contains("now a list of rules") == true)
        #expect(
            reason?.contains(#"{"method": "POST", "path": "/api/points/*", "policy": "require-assertion"}"#) == true)
    }

    @Test(
        "route rules that cannot be matched safely are refused, naming the rule",
        arguments: [
            (#"[{"method":"post","path":"/x","policy":"open"}]"#, "upper-case HTTP method"),
            (#"[{"method":"GET","path":"x","policy":"open"}]"#, "must start with '/'"),
            (#"[{"method":"GET","path":"/a/*/b","policy":"open"}]"#, "'*' only at the end"),
            (#"[{"method":"GET","path":"/a?b=1","policy":"open"}]"#, "no query"),
            (#"[{"method":"GET","path":"/a/../b","policy":"open"}]"#, "dot segment"),
            (#"[{"method":"GET","path":"/a//b","policy":"open"}]"#, "empty segment"),
            (#"[{"method":"GET","path":"/a%2Fb","policy":"open"}]"#, "encoded '/'"),
            (
                #"[{"method":"GET","path":"/a","policy":"open"},{"method":"GET","path":"/a","policy":"limited"}]"#,
                "twice"
            ),
        ])
    func badRules(rules: String, mention: String) throws {
        let reason = try message(#"{"routes":\#(rules)}"#)
        #expect(reason?.contains(mention) == true, "\(reason ?? "accepted")")
    }

    @Test("subject sources: header names and JWT settings are checked")
    func subjects() throws {
        #expect(try message(#"{"subject":{"header":"X-User-Id"}}"#) == nil)
        #expect(try message(#"{"subject":{"internal":true}}"#) == nil)
        #expect(
            try message(
                #"{"subject":{"jwt":{"jwks":"/j.json","issuer":"https://id","audience":"app","algorithms":["ES256"]}}}"#
            )
                == nil)
        #expect(try message(#"{"subject":{"header":"X User"}}"#)?.contains("header name") == true)
        #expect(try message(#"{"subject":{"header":"Rampart-Key-Id"}}"#)?.contains("signed request itself") == true)
        #expect(
            try message(#"{"subject":{"jwt":{"jwks":"/j","issuer":"i","audience":"a","algorithms":["HS256"]}}}"#)?
                .contains("RS256") == true)
    }

    @Test("without a subject source the configuration names the key, except in the demo")
    func noSubject() throws {
        var configuration = ServiceConfiguration()
        let error = #expect(throws: AttestServiceError.self) { try configuration.effectiveSubjectSource() }
        #expect(error?.reason.contains(#""subject""#) == true)
        #expect(error?.reason.contains("--subject-header") == true)
        configuration.demo = true
        #expect(try configuration.effectiveSubjectSource() == (SubjectSource.demoDefault, true))
        configuration.subject = .internalOnly
        #expect(try configuration.effectiveSubjectSource() == (SubjectSource.internalOnly, false))
    }

    @Test("a number where a whole number belongs names the key, not 'not a JSON object'")
    func wholeNumbers() throws {
        for text in [#"{"riskBlockThreshold":1e30}"#, #"{"riskBlockThreshold":2.5}"#, #"{"maximumBodyBytes":1e300}"#] {
            let reason = try message(text)
            #expect(reason?.contains("must be a whole number") == true, "\(text)")
            #expect(reason?.contains("not a JSON object") == false)
        }
        #expect(try message(#"{"riskBlockThreshold":5000}"#)?.contains("riskBlockThreshold must be 1...1000") == true)
    }

    @Test("limits: known keys are read, unknown ones and bad ranges are refused")
    func limits() throws {
        let path = ScratchDirectory.uniquePath("config.json")
        try Data(
            #"{"limits":{"challengesPerAddressPerMinute":10,"outstandingChallengesPerSubject":4},"riskDecaySeconds":0}"#
                .utf8
        ).write(to: URL(fileURLWithPath: path))
        let configuration = try ServiceConfiguration.load(path: path)
        #expect(configuration.limits.challengesPerAddressPerMinute == 10)
        #expect(configuration.limits.failuresPerAddressPerMinute == RequestLimits.default.failuresPerAddressPerMinute)
        #expect(configuration.serviceConfiguration.riskDecayInterval == nil)
        #expect(
            try message(#"{"limits":{"challengesPerMinute":1}}"#)
                == "unknown configuration key 'limits.challengesPerMinute'; the limits are "
                + "challengesPerAddressPerMinute, challengesPerSubjectPerMinute, failuresPerAddressPerMinute, "
                + "ipv6PrefixLength")
        #expect(try message(#"{"limits":{"failuresPerAddressPerMinute":-1}}"#) != nil)
        #expect(
            try message(#"{"limits":{"ipv6PrefixLength":16}}"#)?.contains("ipv6PrefixLength must be 32...128") == true)
        #expect(try message(#"{"limits":{"ipv6PrefixLength":56}}"#) == nil)
        #expect(try message(#"{"riskDecaySeconds":0.5}"#) != nil)
        #expect(try message(#"{"counterReorderWindow":5000}"#) != nil)
    }

    @Test("limits.outstandingChallengesPerSubject must still be a whole number")
    func outstandingChallengesPerSubjectType() throws {
        #expect(
            try message(#"{"limits":{"outstandingChallengesPerSubject":2.5}}"#)
                == "'limits.outstandingChallengesPerSubject' must be a whole number in range (got 2.5); see "
                + "`rampart serve --help`")
        #expect(
            try message(#"{"limits":{"outstandingChallengesPerSubject":"16"}}"#)?.hasSuffix(
                ": 'limits.outstandingChallengesPerSubject' has the wrong type or value; see `rampart serve --help` "
                    + "for each key's type") == true)
    }

    @Test("syntax errors and non-objects say which")
    func shapes() throws {
        #expect(try message("listen=1")?.contains("is not valid JSON") == true)
        #expect(try message("[1]")?.contains("is not a JSON object") == true)
    }
}
