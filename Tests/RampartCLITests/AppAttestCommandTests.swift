import Foundation
import RampartCLI
import TestSupport
import Testing

/// Reads one field of a vector file (the CLI tests use the vectors through the command line only).
private func field(_ file: String, _ path: [String]) throws -> String {
    let data = try Vectors.data("appattest/" + file)
    var node: Any = try JSONSerialization.jsonObject(with: data)
    for key in path {
        if let index = Int(key), let array = node as? [Any], index < array.count {
            node = array[index]
        } else if let object = node as? [String: Any], let next = object[key] {
            node = next
        } else {
            throw MissingField(path: path)
        }
    }
    guard let text = node as? String else { throw MissingField(path: path) }
    return text
}

/// A vector lacks a field the test reads.
private struct MissingField: Error {
    let path: [String]
}

/// Standard base64 → URL-safe without padding, to exercise both alphabets.
private func urlSafe(_ base64: String) -> String {
    base64.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        .replacingOccurrences(of: "=", with: "")
}

@Suite(.enabled(if: Vectors.available, "needs ../shared/vectors (set RAMPART_VECTORS)"))
struct AppAttestCommandTests {
    let file = "ricardo-ch_2026-10_ios27_dev.json"

    func attestationArguments(environment: String = "development", at: String? = nil) throws -> [String] {
        [
            "appattest", "verify-attestation",
            "--attestation", try field(file, ["attestation", "attestation_object_base64"]),
            "--key-id", urlSafe(try field(file, ["attestation", "key_id_base64"])),
            "--challenge", try field(file, ["attestation", "challenge_utf8"]),
            "--team-id", "J4Y28BA299", "--bundle-id", "swiss.ricardo.iphone.beta",
            "--environment", environment,
            "--at", try at ?? field(file, ["attestation", "verification_time"]),
        ]
    }

    @Test("verify-attestation accepts a real attestation, with --json output")
    func verifyAttestation() async throws {
        let result = await runRampart(try attestationArguments() + ["--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        )
        #expect(json["valid"] as? Bool == true)
        #expect(json["counter"] as? Int == 0)
        #expect(json["environment"] as? String == "development")
        #expect(
            json["publicKey"] as? String == (try field(file, ["attestation", "expected", "public_key_x963_base64"])))
        #expect((json["extensions"] as? [String: String])?["apple_bundle_version_01"] == "1314")
        let text = await runRampart(try attestationArguments())
        #expect(text.stdout.hasPrefix("valid: attestation of key"))
    }

    @Test("verify-attestation exits 1 with the reason for a production server or an expired leaf")
    func refusals() async throws {
        let production = await runRampart(try attestationArguments(environment: "production") + ["--json"])
        #expect(production.status == 1)
        #expect(production.stdout.contains("\"reason\" : \"environmentMismatch\""))
        let expired = await runRampart(try attestationArguments(at: "2026-10-12T07:25:22Z"))
        #expect(expired.status == 1)
        #expect(expired.stdout.hasPrefix("invalid: certificateExpired"))
    }

    @Test("verify-attestation exits 2 for malformed input and bad usage")
    func malformed() async throws {
        var arguments = try attestationArguments()
        arguments[3] = "AAAA"
        let result = await runRampart(arguments + ["--json"])
        #expect(result.status == 2)
        #expect(result.stdout.contains("malformedCBOR"))
        #expect(result.stderr.split(separator: "\n").count == 1)
        let usage = await runRampart(["appattest", "verify-attestation", "--attestation", "!!"])
        #expect(usage.status == 2)
        let unknown = await runRampart(["appattest", "frobnicate"])
        #expect(unknown.status == 2)
    }

    @Test("verify-attestation reads @FILE and @- inputs")
    func fileInput() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let raw = try #require(Data(base64Encoded: try field(file, ["attestation", "attestation_object_base64"])))
        let path = directory.appendingPathComponent("attestation.cbor").path
        try raw.write(to: URL(fileURLWithPath: path))
        var arguments = try attestationArguments()
        arguments[3] = "@" + path
        #expect(await runRampart(arguments).status == 0)
        arguments[3] = "@-"
        #expect(await runRampart(arguments, stdin: raw.base64EncodedData()).status == 0)
    }

    @Test("verify-assertion accepts a real assertion and refuses a replay")
    func verifyAssertion() async throws {
        let base = [
            "appattest", "verify-assertion",
            "--assertion", try field(file, ["assertions", "0", "assertion_base64"]),
            "--public-key", try field(file, ["attestation", "expected", "public_key_x963_base64"]),
            "--client-data", try field(file, ["assertions", "0", "client_data_base64"]),
            "--team-id", "J4Y28BA299", "--bundle-id", "swiss.ricardo.iphone.beta",
        ]
        let valid = await runRampart(base + ["--previous-counter", "0", "--json"])
        #expect(valid.status == 0, "\(valid.stderr)")
        #expect(valid.stdout.contains("\"counter\" : 1"))
        let replay = await runRampart(base + ["--previous-counter", "1"])
        #expect(replay.status == 1)
        #expect(replay.stdout.hasPrefix("invalid: counterNotIncreasing"))
        let usage = await runRampart(base + ["--previous-counter", "-1"])
        #expect(usage.status == 2)
    }

    @Test("receipt accepts a veehaitch receipt and refuses the webauthn4j one")
    func receipt() async throws {
        let good = try field("veehaitch_ios-14.2.json", ["receipts", "1", "receipt_base64"])
        let valid = await runRampart(["appattest", "receipt", good, "--at", "2020-11-21T22:16:06Z", "--json"])
        #expect(valid.status == 0, "\(valid.stderr)")
        #expect(valid.stdout.contains("\"riskMetric\" : 2"))
        #expect(valid.stdout.contains("\"type\" : \"RECEIPT\""))
        // The webauthn4j attestation verifies, but the receipt it carries does not.
        let kayak = "webauthn4j_kayak_2020-09_prod.json"
        let attested = await runRampart([
            "appattest", "verify-attestation",
            "--attestation", try field(kayak, ["attestation", "attestation_object_base64"]),
            "--key-id", try field(kayak, ["attestation", "key_id_base64"]),
            "--client-data-hash", try field(kayak, ["attestation", "client_data_hash_base64"]),
            "--team-id", "8YE23NZS57", "--bundle-id", "com.kayak.travel",
            "--at", "2020-09-28T20:28:20Z", "--json",
        ])
        #expect(attested.status == 0, "\(attested.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(attested.stdout.utf8)) as? [String: Any])
        let receipt = try #require(json["receipt"] as? String)
        let refused = await runRampart(["appattest", "receipt", receipt, "--at", "2020-09-28T20:28:20Z", "--json"])
        #expect(refused.status == 1)
        #expect(refused.stdout.contains("receiptSignatureInvalid"))
        let text = await runRampart(["appattest", "receipt", good, "--at", "2020-11-21T22:16:06Z"])
        #expect(text.stdout.hasPrefix("valid: RECEIPT receipt for 6MURL8TA57.de.vincent-haupert.apple-appattest-poc"))
    }

    @Test("appattest --help lists every subcommand")
    func help() async {
        let result = await runRampart(["appattest", "--help"])
        #expect(result.status == 0)
        for name in ["verify-attestation", "verify-assertion", "receipt", "simulate"] {
            #expect(result.stdout.contains("rampart appattest \(name)"))
        }
    }
}

struct AppAttestSimulateCommandTests {
    @Test("simulate writes objects that verify-attestation and verify-assertion accept, with --root")
    func roundTrip() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: directory) }
        let challenge = Data("one-time-challenge".utf8).base64EncodedString()
        let clientData = Data(#"{"challenge":"c1","payload":{}}"#.utf8).base64EncodedString()
        let app = ["--team-id", "ABCDE12345", "--bundle-id", "com.example.app"]
        let simulated = await runRampart(
            [
                "appattest", "simulate", "--challenge", challenge, "--client-data", clientData, "--out-dir",
                directory.path,
                "--json",
            ] + app
        )
        #expect(simulated.status == 0, "\(simulated.stderr)")
        #expect(simulated.stdout.contains("\"keyId\""))
        let path = directory.path
        let attestation =
            [
                "appattest", "verify-attestation", "--attestation", "@\(path)/attestation.b64", "--key-id",
                "@\(path)/key-id.b64", "--challenge", challenge, "--root", "\(path)/root.pem",
            ] + app
        #expect(await runRampart(attestation + ["--environment", "development"]).status == 0)
        let production = await runRampart(attestation + ["--json"])
        #expect(production.status == 1)
        #expect(production.stdout.contains("environmentMismatch"))
        let withoutRoot = await runRampart(
            Array(attestation.dropLast(app.count + 2)) + app + ["--environment", "development"])
        #expect(withoutRoot.status == 1)
        #expect(withoutRoot.stdout.contains("certificateChainUntrusted"))
        let assertion = await runRampart(
            [
                "appattest", "verify-assertion", "--assertion", "@\(path)/assertion-1.b64", "--public-key",
                "@\(path)/public-key.b64", "--client-data", clientData, "--previous-counter", "0",
            ] + app
        )
        #expect(assertion.status == 0, "\(assertion.stderr)")
        #expect(assertion.stdout.contains("counter 1"))
    }

    @Test("simulate refuses bad usage with exit 2")
    func usage() async {
        #expect(await runRampart(["appattest", "simulate", "--team-id", "T"]).status == 2)
        #expect(
            await runRampart([
                "appattest", "simulate", "--team-id", "T", "--bundle-id", "b", "--challenge", "AA", "--environment",
                "x",
            ]).status == 2
        )
        #expect(await runRampart(["appattest"]).status == 2)
    }
}
