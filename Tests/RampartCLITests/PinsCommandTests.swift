import Foundation
import TestSupport
import Testing

/// Runs a shell pipeline (for the openssl reference pipeline) and returns its stdout.
enum Shell {
    static let opensslAvailable = FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl")

    static func run(_ script: String) throws -> (status: Int32, output: String) {
        let result = try SpawnedProcess.run("/bin/sh", ["-c", script])
        return (result.termination.status, result.text)
    }

    static func quote(_ path: String) -> String { "'" + path.replacingOccurrences(of: "'", with: "'\\''") + "'" }
}

/// The package root (for Examples/).
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

struct PinsJSON: Decodable, Equatable {
    let index: Int
    let subject: String
    let issuer: String
    let notBefore: Date
    let notAfter: Date
    let keyType: String
    let spkiSHA256: String
}

func decodePins(_ text: String) throws -> [PinsJSON] {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .iso8601
    return try decoder.decode([PinsJSON].self, from: Data(text.utf8))
}

/// One key type the openssl CLI can make, and the keyType `rampart pins` must report.
struct KeyTypeCase: CustomTestStringConvertible, Sendable {
    let newkey: [String]
    let keyType: String
    var testDescription: String { keyType }
}

struct PinsCommandTests {
    static let samplePath = packageRoot.appendingPathComponent("Examples/sample-chain.pem").path

    @Test("the sample chain prints index, s:, i: and pin-sha256 lines in file order")
    func textOutput() async throws {
        let result = await runRampart(["pins", Self.samplePath])
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty)
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.count == 10)
        #expect(lines[0] == " 0 s:CN=sample.rampart.example")
        #expect(lines[1] == "   i:C=GB, O=Rampart Sample, CN=Rampart Sample Intermediate CA")
        #expect(lines[2] == "   pin-sha256: buOnlnVtN4+DN2Zdn8oQeKJJbFJW5+FO9URLHSlnkUQ=")
        #expect(lines[3] == " 1 s:C=GB, O=Rampart Sample, CN=Rampart Sample Intermediate CA")
        #expect(lines[6] == " 2 s:C=GB, O=Rampart Sample, CN=Rampart Sample Root CA")
        #expect(lines[8] == "   pin-sha256: NmsyPoJh8zpF85Ay1LUDC6ajCBg/LutawWt0TSIXF/8=")
        #expect(lines[9] == "")
    }

    @Test("--json gives the documented fields; DER input and several files are indexed in order")
    func jsonOutput() async throws {
        let result = await runRampart(["pins", "--json", Self.samplePath])
        #expect(result.status == 0)
        let entries = try decodePins(result.stdout)
        #expect(entries.map(\.index) == [0, 1, 2])
        #expect(entries[0].keyType == "EC P-256" && entries[2].keyType == "EC P-384")
        #expect(entries[0].notBefore < entries[0].notAfter)
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]]
        #expect(
            Set(object?.first?.keys.map { $0 } ?? [])
                == ["index", "subject", "issuer", "notBefore", "notAfter", "keyType", "spkiSHA256"])

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rampart-pins-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let text = try String(contentsOfFile: Self.samplePath, encoding: .utf8)
        let firstBlock = try #require(text.components(separatedBy: "-----END CERTIFICATE-----\n").first)
        let base64 = firstBlock.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        let der = directory.appendingPathComponent("leaf.der")
        try #require(Data(base64Encoded: base64)).write(to: der)
        let both = await runRampart(["pins", "--json", der.path, Self.samplePath])
        let combined = try decodePins(both.stdout)
        #expect(combined.map(\.index) == [0, 1, 2, 3])
        #expect(combined[0].spkiSHA256 == entries[0].spkiSHA256 && combined[1].spkiSHA256 == entries[0].spkiSHA256)

        let stdin = await runRampart(["pins", "-"], stdin: Data(text.utf8))
        #expect(stdin.status == 0 && stdin.stdout.hasPrefix(" 0 s:CN=sample.rampart.example\n"))
    }

    @Test(
        "a public or private key file (PEM or DER; EC, RSA, Ed25519) gets the pin openssl computes for its public key")
    func keyFiles() async throws {
        let directory = ScratchDirectory.uniquePath("pins-keys")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        func openssl(_ arguments: [String], input: [UInt8]? = nil) throws -> [UInt8] {
            let result = try SpawnedProcess.run("/usr/bin/openssl", arguments, directory: directory, input: input)
            try #require(result.termination == .exited(0), "\(arguments): \(result.errorText)")
            return result.stdout
        }
        for (name, options) in [
            ("ec", ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384"]),
            ("rsa", ["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"]), ("ed", ["-algorithm", "ed25519"]),
        ] {
            _ = try openssl(["genpkey"] + options + ["-out", "\(name).key"])
            _ = try openssl(["pkey", "-in", "\(name).key", "-pubout", "-out", "\(name).pub"])
            _ = try openssl(["pkey", "-in", "\(name).key", "-pubout", "-outform", "DER", "-out", "\(name).pub.der"])
            _ = try openssl([
                "pkcs8", "-topk8", "-nocrypt", "-in", "\(name).key", "-outform", "DER", "-out", "\(name).p8",
            ])
            let spki = try openssl(["pkey", "-in", "\(name).key", "-pubout", "-outform", "DER"])
            let expected = Data(try openssl(["dgst", "-sha256", "-binary"], input: spki)).base64EncodedString()
            for file in ["\(name).key", "\(name).pub", "\(name).pub.der", "\(name).p8"] {
                let result = await runRampart(["pins", "\(directory)/\(file)"])
                #expect(result.status == 0, "\(file): \(result.stderr)")
                #expect(result.stdout.hasPrefix(" 0 k:\(directory)/\(file) ("), "\(file): \(result.stdout)")
                #expect(result.stdout.contains("   pin-sha256: \(expected)\n"), "\(file): \(result.stdout)")
            }
        }
        let json = await runRampart(["pins", "--json", "\(directory)/ec.pub", Self.samplePath])
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(entries.count == 4)
        #expect(entries.first?["key"] as? String == "\(directory)/ec.pub")
        #expect(entries.first?["keyType"] as? String == "EC P-384")
        #expect(entries.first?["subject"] == nil)
        #expect(entries.last?["subject"] as? String == "C=GB, O=Rampart Sample, CN=Rampart Sample Root CA")
        // SEC1 'EC PRIVATE KEY' is not read: one line saying which forms are.
        _ = try openssl(["ec", "-in", "ec.key", "-out", "sec1.pem"])
        let sec1 = await runRampart(["pins", "\(directory)/sec1.pem"])
        #expect(sec1.status == 2)
        #expect(sec1.stderr.contains("PUBLIC KEY or PKCS#8 PRIVATE KEY"), "\(sec1.stderr)")
    }

    @Test("a file that is not a certificate is exit 2 with one line naming the file and the problem")
    func badInput() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rampart-pins-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let cases: [(String, Data, String)] = [
            ("notes.txt", Data("hello\n".utf8), "no -----BEGIN CERTIFICATE----- block"),
            ("broken.der", Data([0x30, 0x03, 0x02, 0x01]), "invalidDER"),
            ("key.pem", Data("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n".utf8), "invalidPEM"),
            (
                "bad.pem", Data("-----BEGIN CERTIFICATE-----\nMAA=\n-----END CERTIFICATE-----\n".utf8),
                "ends before its tbsCertificate"
            ),
        ]
        for (name, bytes, problem) in cases {
            let path = directory.appendingPathComponent(name).path
            try bytes.write(to: URL(fileURLWithPath: path))
            let result = await runRampart(["pins", Self.samplePath, path])
            #expect(result.status == 2, "\(name)")
            #expect(result.stdout.isEmpty, "\(name)")
            #expect(result.stderr.hasPrefix("rampart pins: \(path): "), "\(name)")
            #expect(result.stderr.contains(problem), "\(name): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(name)")
        }
        let missing = await runRampart(["pins", directory.appendingPathComponent("absent.pem").path])
        #expect(missing.status == 2 && missing.stderr.contains("cannot read"))
        let none = await runRampart(["pins"])
        #expect(none.status == 2 && none.stderr.contains("at least one"))
        let unknown = await runRampart(["pins", "--frobnicate", Self.samplePath])
        #expect(unknown.status == 2 && unknown.stderr.contains("unknown option --frobnicate"))
    }

    @Test(
        "rampart pins --json equals the openssl pipeline for every key type openssl makes",
        .enabled(if: Shell.opensslAvailable, "the openssl command-line tool is not installed"),
        arguments: [
            KeyTypeCase(newkey: ["rsa:1024"], keyType: "RSA 1024"),
            KeyTypeCase(newkey: ["rsa:2048"], keyType: "RSA 2048"),
            KeyTypeCase(newkey: ["rsa:3072"], keyType: "RSA 3072"),
            KeyTypeCase(newkey: ["rsa:4096"], keyType: "RSA 4096"),
            KeyTypeCase(newkey: ["rsa-pss", "-pkeyopt", "rsa_keygen_bits:2048"], keyType: "RSA-PSS 2048"),
            KeyTypeCase(newkey: ["ec", "-pkeyopt", "ec_paramgen_curve:P-256"], keyType: "EC P-256"),
            KeyTypeCase(newkey: ["ec", "-pkeyopt", "ec_paramgen_curve:P-384"], keyType: "EC P-384"),
            KeyTypeCase(newkey: ["ec", "-pkeyopt", "ec_paramgen_curve:P-521"], keyType: "EC P-521"),
            KeyTypeCase(newkey: ["ed25519"], keyType: "Ed25519"),
            KeyTypeCase(newkey: ["ed448"], keyType: "Ed448"),
        ])
    func againstOpenSSL(_ keyType: KeyTypeCase) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rampart-pins-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let certificate = Shell.quote(directory.appendingPathComponent("cert.pem").path)
        let key = Shell.quote(directory.appendingPathComponent("key.pem").path)
        let newkey = keyType.newkey.map(Shell.quote).joined(separator: " ")
        let made = try Shell.run(
            "openssl req -x509 -newkey \(newkey) -nodes -keyout \(key) -out \(certificate) -days 30 "
                + "-subj '/C=GB/O=Rampart, Test/CN=\(keyType.keyType)'")
        try #require(made.status == 0)
        let expectedPin = try Shell.run(
            "openssl x509 -in \(certificate) -pubkey -noout | openssl pkey -pubin -outform der"
                + " | openssl dgst -sha256 -binary | base64"
        ).output.trimmingCharacters(in: .whitespacesAndNewlines)
        let expectedSubject = try Shell.run(
            "openssl x509 -in \(certificate) -noout -subject -nameopt oneline,-space_eq"
        ).output.trimmingCharacters(in: .newlines)

        let result = await runRampart(["pins", "--json", directory.appendingPathComponent("cert.pem").path])
        #expect(result.status == 0)
        let entry = try #require(try decodePins(result.stdout).first)
        #expect(entry.spkiSHA256 == expectedPin)
        #expect(!expectedPin.isEmpty && expectedPin != "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=")
        #expect(entry.keyType == keyType.keyType)
        #expect("subject=" + entry.subject == expectedSubject)
        #expect(entry.subject == entry.issuer)
    }
}
