import Foundation
import RampartChainVerification
import RampartX509

/// Runs limbo testcases through ``ChainVerifier`` the way a TLS client evaluates a server's chain.
///
/// Each SERVER testcase maps onto one evaluation: `trusted_certs` are the anchors, `untrusted_intermediates` the
/// presented certificates after the leaf, `peer_certificate` the leaf, `validation_time` the injected clock (the
/// current time when absent), `expected_peer_name` the host of ``ChainVerifier/Purpose/tlsServer(hostname:)``,
/// `max_chain_depth` the path length and `crls` the revocation lists. `extended_key_usage`, `key_usage` and
/// `signature_algorithms` are checked where they ask for what the TLS server purpose does not already cover. What
/// Rampart does not model is SKIPPED with the reason; a case is never skipped because Rampart would answer it wrongly.
enum LimboHarness {
    /// The largest suite read from stdin (DoS bound; limbo.json with the BetterTLS suites is about 5 MiB).
    static let maximumSuiteByteCount = 64 << 20

    /// The input is not a limbo suite.
    struct InputError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// A refusal decided before ChainVerifier runs (a certificate Rampart's strict reader refuses, a KU the leaf lacks).
    private struct Refusal: Error {
        let context: String
    }

    /// limbo's `SignatureAlgorithm` names and their identifiers (RFC 5758, RFC 8017, RFC 8410).
    static let signatureAlgorithms: [String: ASN1ObjectIdentifier] = [
        "RSA_WITH_SHA1": "1.2.840.113549.1.1.5", "RSA_WITH_SHA224": "1.2.840.113549.1.1.14",
        "RSA_WITH_SHA256": "1.2.840.113549.1.1.11", "RSA_WITH_SHA384": "1.2.840.113549.1.1.12",
        "RSA_WITH_SHA512": "1.2.840.113549.1.1.13", "RSASSA_PSS": "1.2.840.113549.1.1.10",
        "ECDSA_WITH_SHA1": "1.2.840.10045.4.1", "ECDSA_WITH_SHA224": "1.2.840.10045.4.3.1",
        "ECDSA_WITH_SHA256": "1.2.840.10045.4.3.2", "ECDSA_WITH_SHA384": "1.2.840.10045.4.3.3",
        "ECDSA_WITH_SHA512": "1.2.840.10045.4.3.4", "ED25519": "1.3.101.112", "ED448": "1.3.101.113",
    ]

    /// limbo's `KeyUsage` names and Rampart's bits.
    static let keyUsages: [String: KeyUsage] = [
        "digitalSignature": .digitalSignature, "contentCommitment": .nonRepudiation,
        "keyEncipherment": .keyEncipherment, "dataEncipherment": .dataEncipherment, "keyAgreement": .keyAgreement,
        "keyCertSign": .keyCertSign, "cRLSign": .crlSign, "encipherOnly": .encipherOnly,
        "decipherOnly": .decipherOnly,
    ]

    /// Evaluates one testcase under `policy`.
    static func evaluate(_ testcase: LimboTestcase, policy: ChainPolicy) -> LimboResult.Entry {
        func entry(_ result: String, _ context: String?) -> LimboResult.Entry {
            LimboResult.Entry(id: testcase.id, actualResult: result, context: context)
        }
        if let reason = skipReason(testcase) { return entry("SKIPPED", reason) }
        do {
            let verdict = try verdict(testcase, policy: policy)
            switch verdict {
            case .trusted(let path):
                return entry("SUCCESS", "trusted through \(path.count) certificates")
            case .untrusted(let failure):
                return entry("FAILURE", "\(failure)")
            }
        } catch let refusal as Refusal {
            return entry("FAILURE", refusal.context)
        } catch {
            return entry("FAILURE", "\(error)")
        }
    }

    /// Why a testcase is out of Rampart's scope, or nil.
    static func skipReason(_ testcase: LimboTestcase) -> String? {
        guard testcase.validationKind == "SERVER" else {
            return "\(testcase.validationKind) validation is not modelled: ChainVerifier evaluates a server's chain "
                + "as a TLS client does"
        }
        if let name = testcase.expectedPeerName, name.kind != "DNS", name.kind != "IP" {
            return "a \(name.kind) peer name is not modelled: a TLS server is named by a DNS name or an IP address"
        }
        if let other = testcase.extendedKeyUsage.first(where: { $0 != "serverAuth" }) {
            return "the \(other) extended key usage is not modelled: ChainVerifier checks serverAuth"
        }
        if let unknown = testcase.signatureAlgorithms.first(where: { signatureAlgorithms[$0] == nil }) {
            return "the signature algorithm \(unknown) is not one Rampart accepts or names"
        }
        if let unknown = testcase.keyUsage.first(where: { keyUsages[$0] == nil }) {
            return "the key usage \(unknown) is unknown"
        }
        return nil
    }

    private static func parse(_ pem: String, _ what: String) throws -> Certificate {
        do {
            return try Certificate(pemEncoded: pem)
        } catch let error as X509Error {
            throw Refusal(context: "malformedCertificate: \(what) is refused by Rampart's strict reader: \(error)")
        }
    }

    private static func der(_ pem: String) throws -> [UInt8] {
        do {
            return try PEMDocument(pemEncoded: pem).derBytes
        } catch {
            throw Refusal(context: "a certificate is not PEM: \(error)")
        }
    }

    static func validationTime(_ text: String?) throws -> Date {
        guard let text else { return Date() }
        let fractional = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        if let date = try? Date(text, strategy: fractional) { return date }
        guard let date = try? Date(text, strategy: .iso8601) else {
            throw InputError("validation_time \(text) is not RFC 3339")
        }
        return date
    }

    private static func verdict(_ testcase: LimboTestcase, policy: ChainPolicy) throws -> ChainVerdict {
        let anchors = try testcase.trustedCerts.enumerated().map { try parse($1, "trusted certificate \($0)") }
        var options = ChainVerifier.Options(policy: policy)
        if let depth = testcase.maxChainDepth {
            // limbo's depth counts intermediates; the path also holds the leaf and the anchor.
            options.maximumPathLength = depth + 2
        }
        let verifier = try ChainVerifier(trustAnchors: anchors, options: options)
        let time = try validationTime(testcase.validationTime)
        let purpose: ChainVerifier.Purpose = testcase.expectedPeerName.map { .tlsServer(hostname: $0.value) } ?? .none
        let chain = try [der(testcase.peerCertificate)] + testcase.untrustedIntermediates.map(der)
        let lists = try testcase.crls.map { pem in
            do {
                return try PEMDocument(pemEncoded: pem).derBytes
            } catch {
                throw Refusal(context: "a CRL is not PEM: \(error)")
            }
        }
        let verdict = verifier.verify(chainDER: chain, at: time, purpose: purpose, revocationLists: lists)
        guard case .trusted(let path) = verdict, let leaf = path.first else { return verdict }
        if !testcase.keyUsage.isEmpty, let usage = leaf.extensions.keyUsage {
            let required = testcase.keyUsage.compactMap { keyUsages[$0] }
            if let missing = required.first(where: { !usage.contains($0) }) {
                throw Refusal(context: "keyUsage: the leaf's keyUsage lacks \(missing.rawValue)")
            }
        }
        if !testcase.signatureAlgorithms.isEmpty {
            let allowed = Set(testcase.signatureAlgorithms.compactMap { signatureAlgorithms[$0] })
            for (index, certificate) in path.dropLast().enumerated()
            where !allowed.contains(certificate.signatureAlgorithm.oid) {
                throw Refusal(
                    context: "weakSignatureAlgorithm: certificate \(index) is signed with "
                        + "\(certificate.signatureAlgorithm), which the testcase does not allow")
            }
        }
        return verdict
    }
}
