import Foundation
import RampartCLI
import TestSupport
import Testing

struct KeyAttestCommandTests {
    static func vector(_ name: String) throws -> String {
        try Vectors.url("android-key-attestation/\(name)").path
    }

    static let caimanTime = "2025-10-01T00:00:00Z"
    static let caimanDigest = "EDk47kU35Z6O55L2VFBPuDRvxrNG0LvEQV/DOfz8jsE="

    @Test(
        "a valid chain with every policy flag is exit 0; --json carries the reference keyDescription, publicKey and keyId"
    )
    func valid() async throws {
        let chain = try Self.vector("caiman/sdk36/TEE_EC_RKP.pem")
        let base = [
            "keyattest", "verify", chain, "--challenge-base64", "ZDY4OGQ3NjMtNjExOC00Y2E2LTk0YjItZTZjZDllZDdlNGU0",
            "--package", "com.google.android.attestation", "--signing-digest", Self.caimanDigest, "--at",
            Self.caimanTime,
        ]
        let text = await runRampart(base)
        #expect(text.status == 0, "\(text.stdout)\(text.stderr)")
        #expect(text.stdout.hasPrefix("valid: Key Attestation of key "))
        #expect(text.stdout.contains("VERIFIED, locked"))
        #expect(!text.stdout.contains("not checked"))

        let result = await runRampart(base + ["--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(object["valid"] as? Bool == true)
        let description = try #require(object["keyDescription"] as? NSDictionary)
        let expected = try JSONSerialization.jsonObject(
            with: Vectors.data("android-key-attestation/caiman/sdk36/TEE_EC_RKP.json"))
        #expect(description == expected as? NSDictionary)
        let publicKey = try #require((object["publicKey"] as? String).flatMap { Data(base64Encoded: $0) })
        let keyID = try #require((object["keyId"] as? String).flatMap { Data(base64Encoded: $0) })
        #expect(publicKey.count == 91)  // a P-256 SubjectPublicKeyInfo
        #expect(keyID.count == 32)
        #expect((object["requestSigning"] as? [String: Any])?["usable"] as? Bool == true)
    }

    @Test("--challenge compares the text's bytes: another challenge is exit 1 with challengeMismatch")
    func wrongChallenge() async throws {
        let chain = try Self.vector("caiman/sdk36/TEE_EC_RKP.pem")
        let result = await runRampart(["keyattest", "verify", chain, "--challenge", "nope", "--at", Self.caimanTime])
        #expect(result.status == 1)
        #expect(result.stdout.hasPrefix("invalid: challengeMismatch: "))
        let json = await runRampart([
            "keyattest", "verify", chain, "--challenge", "nope", "--at", Self.caimanTime, "--json",
        ])
        #expect(json.status == 1)
        #expect(json.stdout.contains(#""reason" : "challengeMismatch""#))
    }

    @Test("an unlocked test phone is refused by default and accepted with --allow-unverified-boot, saying so")
    func unverifiedBoot() async throws {
        let chain = try Self.vector("akita/sdk34/TEE_EC_NONE.pem")
        let at = ["--at", "2024-09-20T00:00:00Z", "--challenge", "challenge"]
        let refused = await runRampart(["keyattest", "verify", chain] + at)
        #expect(refused.status == 1)
        #expect(refused.stdout.contains("bootStateUnverified"))
        let allowed = await runRampart(["keyattest", "verify", chain, "--allow-unverified-boot"] + at)
        #expect(allowed.status == 0, "\(allowed.stdout)")
        #expect(allowed.stdout.contains("UNVERIFIED, unlocked (allowed by --allow-unverified-boot"))
    }

    @Test("an ML-DSA key is valid and says it cannot sign requests")
    func mlDSA() async throws {
        let chain = try Self.vector("tokay/sdk37/TEE_MLDSA_RKP.pem")
        let result = await runRampart([
            "keyattest", "verify", chain, "--allow-unverified-boot", "--at", "2026-05-01T00:00:00Z", "--json",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains(#""reason" : "unsupportedKeyType""#))
        #expect(result.stdout.contains(#""keyType" : "ML-DSA-65""#))
    }

    @Test("--root trusts another root (marlin's software root), whose software key is then refused; --revocations")
    func rootsAndRevocations() async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("keyattest-\(UUID())")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let marlin = try Self.vector("marlin/sdk29/TEE_EC_NONE.pem")
        let pem = try String(contentsOfFile: marlin, encoding: .utf8)
        let root = scratch.appendingPathComponent("root.pem")
        try Data(
            ("-----BEGIN CERTIFICATE-----" + (pem.components(separatedBy: "-----BEGIN CERTIFICATE-----").last ?? ""))
                .utf8
        )
        .write(to: root)
        let at = ["--at", "2020-01-01T00:00:00Z", "--allow-unverified-boot"]
        let untrusted = await runRampart(["keyattest", "verify", marlin] + at)
        #expect(untrusted.status == 1 && untrusted.stdout.contains("untrustedRoot"))
        let software = await runRampart(["keyattest", "verify", marlin, "--root", root.path] + at)
        #expect(software.status == 1 && software.stdout.contains("softwareKey"), "\(software.stdout)")

        let list = scratch.appendingPathComponent("status.json")
        try Data(#"{"entries": {"f165849ef08b4658dd0a8ab95be53006": {"status": "REVOKED"}}}"#.utf8).write(to: list)
        let caiman = try Self.vector("caiman/sdk36/TEE_EC_RKP.pem")
        let revoked = await runRampart([
            "keyattest", "verify", caiman, "--revocations", list.path, "--at", Self.caimanTime,
        ])
        #expect(revoked.status == 1 && revoked.stdout.contains("certificateRevoked"), "\(revoked.stdout)")
        try Data("{}".utf8).write(to: list)
        let malformed = await runRampart([
            "keyattest", "verify", caiman, "--revocations", list.path, "--at", Self.caimanTime,
        ])
        #expect(malformed.status == 2)
        #expect(malformed.stderr.contains("--revocations"))
    }

    @Test(
        "bad usage and malformed input are exit 2 with one line on stderr",
        arguments: [
            (["keyattest"], "name a subcommand"),
            (["keyattest", "check"], "unknown keyattest subcommand"),
            (["keyattest", "verify"], "give exactly one CHAIN file"),
            (["keyattest", "verify", "/nonexistent/chain.pem"], "cannot read /nonexistent/chain.pem"),
            (["keyattest", "verify", "x.pem", "--min-security-level", "software"], "tee or strongbox"),
            (["keyattest", "verify", "x.pem", "--signing-digest", "AAAA"], "32 bytes"),
            (["keyattest", "verify", "x.pem", "--challenge", "a", "--challenge-base64", "YQ=="], "at most one"),
        ])
    func usage(arguments: [String], mention: String) async {
        let result = await runRampart(arguments)
        #expect(result.status == 2)
        #expect(result.stderr.contains(mention), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
    }

    @Test("a file without a certificate is exit 2")
    func notAChain() async throws {
        let result = await runRampart(["keyattest", "verify", try Self.vector("caiman/sdk36/TEE_EC_RKP.json")])
        #expect(result.status == 2)
        #expect(result.stderr.contains("holds no readable certificate chain"))
    }

    @Test("rampart keyattest verify --help shows verify's usage")
    func help() async {
        let result = await runRampart(["keyattest", "verify", "--help"])
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("USAGE: rampart keyattest verify CHAIN"))
    }
}
