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
             "routes":{"/v1/demo/points/use":"limited"},"riskBlockThreshold":3}
            """#)
        let configuration = try ServiceConfiguration.load(path: path)
        #expect(configuration.listen == "0.0.0.0:9000")
        #expect(configuration.teamId == "ABCDE12345")
        #expect(configuration.environment == "development")
        #expect(configuration.routes["/v1/demo/points/use"] == .limited)
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
            BadFile(name: "bad policy", text: #"{"routes":{"/v1/demo/points/use":"maybe"}}"#),
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

    @Test("a policy for a route the service does not have is refused, naming it and the real routes")
    func unknownRoute() throws {
        let reason = try message(#"{"routes":{"/v1/demo/points/usE":"limited"}}"#)
        #expect(reason?.contains("'/v1/demo/points/usE', which is not a route of the service") == true)
        #expect(reason?.contains("/v1/demo/points/use") == true)
        #expect(try message(#"{"routes":{"/v1/demo/points/balance":"open"}}"#) == nil)
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
        #expect(configuration.limits.outstandingChallengesPerSubject == 4)
        #expect(configuration.limits.failuresPerAddressPerMinute == RequestLimits.default.failuresPerAddressPerMinute)
        #expect(configuration.serviceConfiguration.riskDecayInterval == nil)
        #expect(try message(#"{"limits":{"challengesPerMinute":1}}"#)?.contains("'limits.challengesPerMinute'") == true)
        #expect(try message(#"{"limits":{"outstandingChallengesPerSubject":0}}"#) != nil)
        #expect(try message(#"{"limits":{"failuresPerAddressPerMinute":-1}}"#) != nil)
        #expect(try message(#"{"riskDecaySeconds":0.5}"#) != nil)
        #expect(try message(#"{"counterReorderWindow":5000}"#) != nil)
    }

    @Test("syntax errors and non-objects say which")
    func shapes() throws {
        #expect(try message("listen=1")?.contains("is not valid JSON") == true)
        #expect(try message("[1]")?.contains("is not a JSON object") == true)
    }
}
