import Foundation

/// An x509-limbo suite, as upstream's `limbo-schema.json` defines it (schema version 1): the fields a SERVER
/// evaluation reads. The older variant that writes `null` for empty lists decodes too.
struct LimboSuite: Decodable {
    let version: Int
    let testcases: [LimboTestcase]
}

/// One limbo testcase (`Testcase` in `limbo-schema.json`).
struct LimboTestcase: Decodable {
    /// The peer's name, `PeerName` in the schema.
    struct PeerName: Decodable {
        /// `DNS`, `IP` or `RFC822`.
        let kind: String
        let value: String
    }

    let id: String
    let features: [String]
    let validationKind: String
    let trustedCerts: [String]
    let untrustedIntermediates: [String]
    let peerCertificate: String
    let validationTime: String?
    let signatureAlgorithms: [String]
    let keyUsage: [String]
    let extendedKeyUsage: [String]
    let expectedResult: String
    let expectedPeerName: PeerName?
    let maxChainDepth: Int?
    let crls: [String]

    enum CodingKeys: String, CodingKey {
        case id, features, crls
        case validationKind = "validation_kind"
        case trustedCerts = "trusted_certs"
        case untrustedIntermediates = "untrusted_intermediates"
        case peerCertificate = "peer_certificate"
        case validationTime = "validation_time"
        case signatureAlgorithms = "signature_algorithms"
        case keyUsage = "key_usage"
        case extendedKeyUsage = "extended_key_usage"
        case expectedResult = "expected_result"
        case expectedPeerName = "expected_peer_name"
        case maxChainDepth = "max_chain_depth"
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func list(_ key: CodingKeys) throws -> [String] {
            try container.decodeIfPresent([String].self, forKey: key) ?? []
        }
        id = try container.decode(String.self, forKey: .id)
        features = try list(.features)
        validationKind = try container.decode(String.self, forKey: .validationKind)
        trustedCerts = try list(.trustedCerts)
        untrustedIntermediates = try list(.untrustedIntermediates)
        peerCertificate = try container.decode(String.self, forKey: .peerCertificate)
        validationTime = try container.decodeIfPresent(String.self, forKey: .validationTime)
        signatureAlgorithms = try list(.signatureAlgorithms)
        keyUsage = try list(.keyUsage)
        extendedKeyUsage = try list(.extendedKeyUsage)
        expectedResult = try container.decode(String.self, forKey: .expectedResult)
        expectedPeerName = try container.decodeIfPresent(PeerName.self, forKey: .expectedPeerName)
        maxChainDepth = try container.decodeIfPresent(Int.self, forKey: .maxChainDepth)
        crls = try list(.crls)
    }
}

/// Upstream's harness output (`LimboResult`): `{"version":1,"harness":"rampart","results":[…]}`.
struct LimboResult: Encodable {
    /// One testcase's outcome (`TestcaseResult`).
    struct Entry: Encodable {
        let id: String
        /// `SUCCESS`, `FAILURE` or `SKIPPED`.
        let actualResult: String
        /// The reason and message of a refusal, the path of a success, or why a case was skipped.
        let context: String?

        enum CodingKeys: String, CodingKey {
            case id, context
            case actualResult = "actual_result"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(actualResult, forKey: .actualResult)
            try container.encode(context, forKey: .context)
        }
    }

    let version = 1
    let harness = "rampart"
    let results: [Entry]
}
