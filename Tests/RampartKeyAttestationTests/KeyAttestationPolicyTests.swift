import Foundation
import RampartKeyAttestation
import Testing

struct KeyAttestationPolicyTests {
    @Test("the configuration object reads every documented key, with secure defaults for the ones left out")
    func decodes() throws {
        let json = #"""
            {"packageNames": ["com.example.app"], "signingCertificateDigests": ["EDk47kU35Z6O55L2VFBPuDRvxrNG0LvEQV/DOfz8jsE="],
             "minimumSecurityLevel": "strongbox", "allowUnverifiedBoot": true, "minimumOSPatchLevel": 202401,
             "allowSuspendedCertificates": true}
            """#
        let policy = try JSONDecoder().decode(KeyAttestationPolicy.self, from: Data(json.utf8))
        #expect(policy.packageNames == ["com.example.app"])
        #expect(policy.signingCertificateDigests.first?.count == 32)
        #expect(policy.minimumSecurityLevel == .strongbox)
        #expect(policy.allowUnverifiedBoot && policy.allowSuspendedCertificates)
        #expect(policy.minimumOSPatchLevel == 202401)
        let again = try JSONDecoder().decode(KeyAttestationPolicy.self, from: JSONEncoder().encode(policy))
        #expect(again == policy)

        let defaults = try JSONDecoder().decode(KeyAttestationPolicy.self, from: Data("{}".utf8))
        #expect(defaults == (try KeyAttestationPolicy()))
        #expect(defaults.minimumSecurityLevel == .tee && !defaults.allowUnverifiedBoot)
        #expect(!defaults.allowSuspendedCertificates && defaults.minimumOSPatchLevel == nil)
    }

    @Test(
        "a misspelt key, a digest that is not SHA-256 and a patch level that is not YYYYMM are refused",
        arguments: [
            (#"{"packageName": ["a"]}"#, "unknown Android policy key 'packageName'"),
            (#"{"signingCertificateDigests": ["AAAA"]}"#, "SHA-256"),
            (#"{"signingCertificateDigests": ["%%%"]}"#, "base64"),
            (#"{"minimumOSPatchLevel": 20240105}"#, "YYYYMM"),
            (#"{"packageNames": [""]}"#, "empty name"),
        ])
    func refuses(json: String, mention: String) {
        let error = #expect(throws: KeyAttestationError.self) {
            try JSONDecoder().decode(KeyAttestationPolicy.self, from: Data(json.utf8))
        }
        #expect(error?.code == .malformedPolicy)
        #expect(error?.reason.contains(mention) == true, "\(error?.reason ?? "")")
    }
}

struct RevocationListTests {
    @Test("serials match as Google prints them: lowercase hex without leading zeros, whatever the list's spelling")
    func matching() throws {
        let list = try RevocationList(
            json: Array(
                #"{"entries": {"00Ab": {"status": "REVOKED", "reason": "KEY_COMPROMISE"}, "1": {"status": "SUSPENDED"}}}"#
                    .utf8))
        #expect(list.entry(forSerialNumber: [0x00, 0xAB])?.status == .revoked)
        #expect(list.entry(forSerialNumber: [0xAB])?.reason == "KEY_COMPROMISE")
        #expect(list.entry(forSerialNumber: [0x01])?.status == .suspended)
        #expect(list.entry(forSerialNumber: [0x02]) == nil)
        #expect(RevocationList.key(forSerialNumber: [0x00, 0x0F, 0x20]) == "f20")
    }

    @Test(
        "a file that is not the status format is refused, naming what is wrong",
        arguments: [
            (#"{"entries": {"xyz": {"status": "REVOKED"}}}"#, "hexadecimal"),
            (#"{"entries": {"ab": {"status": "EXPIRED"}}}"#, "EXPIRED"),
            (#"{"revoked": []}"#, "status JSON"),
            ("not json", "status JSON"),
        ])
    func malformed(json: String, mention: String) {
        let error = #expect(throws: KeyAttestationError.self) { try RevocationList(json: Array(json.utf8)) }
        #expect(error?.code == .malformedRevocationList)
        #expect(error?.reason.contains(mention) == true, "\(error?.reason ?? "")")
    }
}
