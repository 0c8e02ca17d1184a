import Foundation
import RampartX509
import TestSupport
import Testing

/// The fixtures in `../shared/vectors/spki-pins/` (read in place, never copied; see its README).
struct SPKIPinTests {
    struct PinFixture: Decodable, CustomTestStringConvertible {
        let file: String
        let subject: String
        let spkiSHA256: String
        let spkiLength: Int
        let spkiHeaderHex: String

        enum CodingKeys: String, CodingKey {
            case file, subject
            case spkiSHA256 = "spki_sha256_base64"
            case spkiLength = "spki_der_length"
            case spkiHeaderHex = "spki_header_hex"
        }

        var testDescription: String { file }
    }

    struct OnlineFixture: Decodable {
        let testcaseID: String
        let field: String
        let index: Int
        let spkiSHA256: String
        let certificateSHA256Hex: String

        enum CodingKeys: String, CodingKey {
            case testcaseID = "testcase_id"
            case field, index
            case spkiSHA256 = "spki_sha256_base64"
            case certificateSHA256Hex = "cert_sha256_hex"
        }
    }

    struct LimboSuite: Decodable {
        struct Testcase: Decodable {
            let id: String
            let trustedCerts: [String]
            let untrustedIntermediates: [String]
            let peerCertificate: String

            enum CodingKeys: String, CodingKey {
                case id
                case trustedCerts = "trusted_certs"
                case untrustedIntermediates = "untrusted_intermediates"
                case peerCertificate = "peer_certificate"
            }
        }

        let testcases: [Testcase]
    }

    static let fixtures: [PinFixture] = {
        guard let data = try? Vectors.data("spki-pins/pins.json") else { return [] }
        return (try? JSONDecoder().decode([PinFixture].self, from: data)) ?? []
    }()

    @Test(
        "pins.json: spkiSHA256 and the raw SPKI bytes match every fixture",
        .enabled(if: Vectors.available, "../shared/vectors not found; set RAMPART_VECTORS"),
        arguments: fixtures)
    func pinFixture(fixture: PinFixture) throws {
        let text = String(decoding: try Vectors.data("spki-pins/" + fixture.file), as: UTF8.self)
        let certificate = try Certificate(pemEncoded: text)
        #expect(certificate.spkiSHA256 == fixture.spkiSHA256)
        #expect(certificate.subjectPublicKeyInfoBytes.count == fixture.spkiLength)
        #expect(Hex.encode(certificate.subjectPublicKeyInfoBytes).hasPrefix(fixture.spkiHeaderHex))
        #expect(certificate.subject.description == fixture.subject)
    }

    @Test(
        "pins.json holds all fourteen fixtures",
        .enabled(if: Vectors.available, "../shared/vectors not found; set RAMPART_VECTORS"))
    func fixtureCount() {
        #expect(Self.fixtures.count == 14)
    }

    @Test(
        "limbo-online-chain-pins.json: every real-world certificate's pin and fingerprint",
        .enabled(if: Vectors.available, "../shared/vectors not found; set RAMPART_VECTORS"))
    func onlineChains() throws {
        let fixtures = try JSONDecoder().decode(
            [OnlineFixture].self, from: Vectors.data("spki-pins/limbo-online-chain-pins.json"))
        let suite = try JSONDecoder().decode(LimboSuite.self, from: Vectors.data("x509-limbo/limbo.json"))
        let testcases = Dictionary(suite.testcases.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        #expect(fixtures.count == 44)
        for fixture in fixtures {
            let testcase = try #require(testcases[fixture.testcaseID], "\(fixture.testcaseID)")
            let pems: [String] =
                switch fixture.field {
                case "peer_certificate": [testcase.peerCertificate]
                case "untrusted_intermediates": testcase.untrustedIntermediates
                default: testcase.trustedCerts
                }
            let pem = try #require(pems.indices.contains(fixture.index) ? pems[fixture.index] : nil)
            let certificate = try Certificate(pemEncoded: pem)
            #expect(certificate.spkiSHA256 == fixture.spkiSHA256, "\(fixture.testcaseID) \(fixture.field)")
            #expect(Hex.encode(certificate.fingerprintSHA256) == fixture.certificateSHA256Hex)
        }
    }
}
