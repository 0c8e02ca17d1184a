import Foundation
import RampartX509
import TestSupport
import Testing

/// A limbo certificate that RampartX509 refuses while parsing, and why. Every one sits in a testcase whose expected
/// result is FAILURE, so refusing it early agrees with the suite.
struct LimboRejection: CustomTestStringConvertible, Sendable {
    let testcase: String
    let field: String
    let code: X509Error.Code
    let reason: String
    var testDescription: String { testcase }
}

/// Every certificate of the x509-limbo suites (read in place): parse, print and re-serialise.
struct LimboCorpusTests {
    static let rejections: [LimboRejection] = [
        LimboRejection(
            testcase: "pathological::nc-dos-1", field: "peer_certificate", code: .limitExceeded, reason: "larger than"),
        LimboRejection(
            testcase: "pathological::nc-dos-2", field: "peer_certificate", code: .limitExceeded, reason: "names"),
        LimboRejection(
            testcase: "pathological::nc-dos-3", field: "peer_certificate", code: .limitExceeded, reason: "attributes"),
        LimboRejection(
            testcase: "rfc5280::eku::ee-eku-empty", field: "peer_certificate", code: .invalidCertificate,
            reason: "no purpose"),
        LimboRejection(
            testcase: "rfc5280::nc::nc-permits-invalid-ip-san", field: "peer_certificate", code: .invalidCertificate,
            reason: "iPAddress"),
        LimboRejection(
            testcase: "rfc5280::san::malformed", field: "peer_certificate", code: .invalidDER, reason: "claims"),
        LimboRejection(
            testcase: "rfc5280::root-inconsistent-ca-extensions", field: "trusted_certs", code: .invalidCertificate,
            reason: "keyUsage sets no bit"),
        LimboRejection(
            testcase: "rfc5280::duplicate-extensions", field: "peer_certificate", code: .invalidCertificate,
            reason: "appears twice"),
        LimboRejection(
            testcase: "rfc5280::mismatching-signature-algorithm", field: "peer_certificate", code: .invalidCertificate,
            reason: "differs"),
        LimboRejection(
            testcase: "webpki::san::unicode-emoji-san", field: "peer_certificate", code: .invalidCertificate,
            reason: "non-ASCII"),
        LimboRejection(
            testcase: "pathological::nc-dos-1", field: "trusted_certs", code: .limitExceeded,
            reason: "permittedSubtrees holds more than 1024"),
        LimboRejection(
            testcase: "rfc5280::nc::invalid-ipv4-address", field: "trusted_certs", code: .invalidCertificate,
            reason: "iPAddress subtree has 4 octets"),
        LimboRejection(
            testcase: "rfc5280::nc::invalid-ipv6-address", field: "trusted_certs", code: .invalidCertificate,
            reason: "iPAddress subtree has 16 octets"),
        LimboRejection(
            testcase: "webpki::nc::intermediate-permitted-excluded-subtrees-both-null",
            field: "untrusted_intermediates", code: .invalidCertificate, reason: "empty SEQUENCE"),
        LimboRejection(
            testcase: "webpki::nc::intermediate-permitted-excluded-subtrees-both-empty-sequences",
            field: "untrusted_intermediates", code: .invalidCertificate, reason: "holds no subtree"),
        LimboRejection(
            testcase: "webpki::malformed-aia", field: "peer_certificate", code: .invalidDER, reason: "claims"),
    ]

    @Test(
        "limbo certificates refused at parse time get their code",
        .enabled(if: Vectors.available, "../shared/vectors not found; set RAMPART_VECTORS"), arguments: rejections)
    func refused(_ rejection: LimboRejection) throws {
        let pem = try #require(try X509Fixtures.limboCertificate(testcase: rejection.testcase, field: rejection.field))
        let error = try #require(throws: X509Error.self) { try Certificate(pemEncoded: pem) }
        #expect(error.code == rejection.code, "\(error)")
        #expect(error.reason.contains(rejection.reason), "\(error.reason)")
    }

    @Test(
        "every other limbo certificate parses and round-trips: DER tree, names, typed extensions, TBSCertificate",
        .enabled(if: Vectors.available, "../shared/vectors not found; set RAMPART_VECTORS"))
    func roundTrips() throws {
        var parsed = 0
        var refused = 0
        var rebuiltTBS = 0
        var rebuildable = 0
        for pem in try X509Fixtures.limboCertificates() {
            let der = try PEMDocument(pemEncoded: pem).derBytes
            guard let certificate = try? Certificate(derEncoded: der) else {
                refused += 1
                continue
            }
            parsed += 1
            var writer = DERWriter()
            try DER.parse(der).serialize(into: &writer)
            #expect(writer.bytes == der)
            for name in [certificate.subject, certificate.issuer] {
                #expect(try DistinguishedName(derEncoded: name.derBytes).derBytes == name.derBytes)
            }
            let extensions = certificate.extensions
            func value(_ oid: ASN1ObjectIdentifier) -> [UInt8]? { extensions[oid: oid]?.value }
            if let basic = extensions.basicConstraints {
                #expect(basic.derEncoded == value(.X509Extension.basicConstraints))
            }
            if let usage = extensions.keyUsage { #expect(usage.derEncoded == value(.X509Extension.keyUsage)) }
            if let eku = extensions.extendedKeyUsage {
                #expect(eku.derEncoded == value(.X509Extension.extendedKeyUsage))
            }
            if let aki = extensions.authorityKeyIdentifier {
                #expect(try aki.derEncoded() == value(.X509Extension.authorityKeyIdentifier))
            }
            if let names = extensions.subjectAlternativeNames {
                #expect(
                    try CertificateBuilderProbe.subjectAltNameValue(names)
                        == value(.X509Extension.subjectAlternativeName))
            }
            // The builder re-creates the TBSCertificate byte for byte from the parsed fields (v3, positive serial,
            // times in the RFC 5280 choice of UTCTime or GeneralizedTime).
            if certificate.version == 3, let first = certificate.serialNumber.first, first < 0x80 {
                rebuildable += 1
                let rebuilt = try CertificateBuilder(copying: certificate).tbsCertificateBytes(
                    signatureAlgorithm: certificate.signatureAlgorithm)
                if rebuilt == certificate.tbsCertificateBytes { rebuiltTBS += 1 }
            }
        }
        // The certificates of the testcases above, with their copies in the older suite: 28 distinct ones.
        #expect(refused == 28)
        #expect(parsed > 1_200)
        #expect(rebuiltTBS == rebuildable, "rebuilt \(rebuiltTBS) of \(rebuildable)")
    }
}
