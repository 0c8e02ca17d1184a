import Foundation
import RampartCrypto
import RampartX509
import TestSupport

/// Helpers for the RampartX509 tests: names, a fixed clock, raw certificate assembly and the `openssl` CLI.
enum X509Fixtures {
    /// 2026-01-01T00:00:00Z.
    static let start = Date(timeIntervalSince1970: 1_767_225_600)
    static let year: TimeInterval = 365 * 86_400

    static func name(_ attributes: [(ASN1ObjectIdentifier, String)]) throws -> DistinguishedName {
        try DistinguishedName(attributes: attributes.map { DistinguishedName.Attribute($0.0, $0.1) })
    }

    /// A root (P-384), an intermediate (P-384) and a leaf (P-256) for `leaf.rampart.test`.
    static func chain() throws -> (root: Certificate, intermediate: Certificate, leaf: Certificate) {
        let rootKey = ECPrivateKey(curve: .p384)
        let intermediateKey = ECPrivateKey(curve: .p384)
        let leafKey = ECPrivateKey(curve: .p256)
        let rootName = try name([
            (.NameAttribute.countryName, "GB"), (.NameAttribute.organizationName, "Rampart Test"),
            (.NameAttribute.commonName, "Rampart Test Root"),
        ])
        let intermediateName = try name([
            (.NameAttribute.countryName, "GB"), (.NameAttribute.organizationName, "Rampart Test"),
            (.NameAttribute.commonName, "Rampart Test Intermediate"),
        ])
        let rootSKI = try CertificateBuilder.keyIdentifier(
            forSubjectPublicKeyInfo: rootKey.publicKey.derRepresentation)
        let intermediateSKI = try CertificateBuilder.keyIdentifier(
            forSubjectPublicKeyInfo: intermediateKey.publicKey.derRepresentation)

        var root = CertificateBuilder(
            subject: rootName, issuer: rootName, publicKey: rootKey.publicKey, notBefore: start,
            notAfter: start + 10 * year)
        root.basicConstraints = BasicConstraints(isCA: true)
        root.keyUsage = [.keyCertSign, .crlSign]
        root.subjectKeyIdentifier = rootSKI

        var intermediate = CertificateBuilder(
            subject: intermediateName, issuer: rootName, publicKey: intermediateKey.publicKey, notBefore: start,
            notAfter: start + 5 * year)
        intermediate.basicConstraints = BasicConstraints(isCA: true, pathLengthConstraint: 0)
        intermediate.keyUsage = [.keyCertSign, .crlSign, .digitalSignature]
        intermediate.subjectKeyIdentifier = intermediateSKI
        intermediate.authorityKeyIdentifier = rootSKI

        var leaf = CertificateBuilder(
            subject: try name([(.NameAttribute.commonName, "leaf.rampart.test")]), issuer: intermediateName,
            publicKey: leafKey.publicKey, notBefore: start, notAfter: start + year)
        leaf.basicConstraints = BasicConstraints(isCA: false)
        leaf.keyUsage = [.digitalSignature]
        leaf.extendedKeyUsage = ExtendedKeyUsage([.ExtendedKeyUsage.serverAuth])
        leaf.subjectAlternativeNames = [.dnsName("leaf.rampart.test"), .ipAddress([127, 0, 0, 1])]
        leaf.subjectKeyIdentifier = try CertificateBuilder.keyIdentifier(
            forSubjectPublicKeyInfo: leafKey.publicKey.derRepresentation)
        leaf.authorityKeyIdentifier = intermediateSKI

        return (
            try root.sign(with: rootKey), try intermediate.sign(with: rootKey), try leaf.sign(with: intermediateKey)
        )
    }

    /// Every distinct certificate PEM in the x509-limbo suites (read in place).
    static func limboCertificates() throws -> [String] {
        var seen = Set<String>()
        var result: [String] = []
        for file in ["x509-limbo/limbo.json", "x509-limbo/limbo-upstream-ddc40b4.json"] {
            let object = try JSONSerialization.jsonObject(with: Vectors.data(file))
            let testcases = (object as? [String: Any])?["testcases"] as? [[String: Any]] ?? []
            for testcase in testcases {
                var pems = (testcase["trusted_certs"] as? [String] ?? [])
                pems += testcase["untrusted_intermediates"] as? [String] ?? []
                if let peer = testcase["peer_certificate"] as? String { pems.append(peer) }
                for pem in pems where seen.insert(pem).inserted { result.append(pem) }
            }
        }
        return result
    }

    /// The limbo testcase field holding one PEM.
    static func limboCertificate(testcase id: String, field: String = "peer_certificate") throws -> String? {
        let object = try JSONSerialization.jsonObject(with: Vectors.data("x509-limbo/limbo.json"))
        let testcases = (object as? [String: Any])?["testcases"] as? [[String: Any]] ?? []
        guard let testcase = testcases.first(where: { $0["id"] as? String == id }) else { return nil }
        if let single = testcase[field] as? String { return single }
        return (testcase[field] as? [String])?.first
    }
}

/// Runs the `openssl` command-line tool, for cross-checks against the reference implementation.
enum OpenSSLCLI {
    static let path: String? = {
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":")
        return (directories + ["/usr/bin"]).map { "\($0)/openssl" }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }()

    static var available: Bool { path != nil }

    /// Runs `openssl arguments...` with `input` on stdin; returns the status and stdout.
    @discardableResult
    static func run(_ arguments: [String], input: Data = Data()) throws -> (status: Int32, output: Data) {
        guard let path else { throw CocoaError(.fileNoSuchFile) }
        let result = try SpawnedProcess.run(path, arguments, input: Array(input))
        return (result.termination.status, Data(result.stdout))
    }

    /// A fresh temporary directory.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("rampart-x509-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

/// Assembles a certificate element by element so each test can break exactly one thing.
struct RawCertificate {
    static func tlv(_ body: (inout DERWriter) throws -> Void) rethrows -> [UInt8] {
        var writer = DERWriter()
        try body(&writer)
        return writer.bytes
    }

    static let ecdsaSHA256 = tlv {
        $0.appendSequence { $0.appendObjectIdentifier(.SignatureAlgorithm.ecdsaWithSHA256) }
    }
    static let ecdsaSHA384 = tlv {
        $0.appendSequence { $0.appendObjectIdentifier(.SignatureAlgorithm.ecdsaWithSHA384) }
    }

    static func extensionTLV(_ oid: ASN1ObjectIdentifier, critical: Bool? = nil, value: [UInt8]) -> [UInt8] {
        tlv { writer in
            writer.appendSequence { sequence in
                sequence.appendObjectIdentifier(oid)
                if let critical { sequence.appendBoolean(critical) }
                sequence.appendOctetString(value)
            }
        }
    }

    var version: [UInt8]? = tlv { $0.appendExplicit(tag: 0) { $0.appendInteger(2) } }
    var serial: [UInt8] = tlv { $0.appendInteger(1) }
    var innerAlgorithm = ecdsaSHA256
    var outerAlgorithm = ecdsaSHA256
    var issuer: [UInt8]
    var validity: [UInt8]
    var subject: [UInt8]
    var spki: [UInt8]
    var uniqueIDs: [[UInt8]] = []
    var extensions: [[UInt8]]? = []
    var extensionsWrapper: [UInt8]?
    var signature: [UInt8] = tlv { $0.appendBitString([0x30, 0x00]) }
    var trailing: [[UInt8]] = []

    init() throws {
        let name = try X509Fixtures.name([(.NameAttribute.commonName, "raw")])
        issuer = name.derBytes
        subject = name.derBytes
        validity = try Self.tlv { writer in
            try writer.appendSequence { sequence in
                try sequence.appendTime(X509Fixtures.start)
                try sequence.appendTime(X509Fixtures.start + X509Fixtures.year)
            }
        }
        spki = ECPrivateKey(curve: .p256).publicKey.derRepresentation
        extensions = [
            Self.extensionTLV(
                .X509Extension.basicConstraints, critical: true, value: BasicConstraints(isCA: false).derEncoded)
        ]
    }

    /// The certificate: parts are concatenated as given (possibly malformed) inside the SEQUENCE wrappers.
    var der: [UInt8] {
        var tbsParts: [[UInt8]] = []
        if let version { tbsParts.append(version) }
        tbsParts += [serial, innerAlgorithm, issuer, validity, subject, spki] + uniqueIDs
        if let extensionsWrapper {
            tbsParts.append(extensionsWrapper)
        } else if let extensions {
            tbsParts.append(
                Self.tlv { wrapper in
                    wrapper.appendExplicit(tag: 3) { $0.appendTLV(.sequence, content: extensions.flatMap { $0 }) }
                })
        }
        let tbs = Self.tlv { $0.appendTLV(.sequence, content: tbsParts.flatMap { $0 }) }
        return Self.tlv { writer in
            writer.appendTLV(.sequence, content: ([tbs, outerAlgorithm, signature] + trailing).flatMap { $0 })
        }
    }
}

/// Key material for tests that only need some valid SPKI.
enum RampartCryptoProbe {
    static let p256SPKI = ECPrivateKey(curve: .p256).publicKey.derRepresentation
}
