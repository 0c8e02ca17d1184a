import Foundation
import TestSupport
import Testing

/// The real-device vectors in `../shared/vectors/appattest`, read in place (STYLE 10).
struct AppAttestVector: Decodable, Sendable, CustomTestStringConvertible {
    struct Attestation: Decodable, Sendable {
        struct Expected: Decodable, Sendable {
            let aaguid_hex: String
            let authdata_length: Int
            let authdata_flags: String
            let public_key_x963_base64: String
            let nonce_base64: String
            let authdata_extensions: [String: String]?
        }

        let environment: String
        let team_id: String
        let bundle_id: String
        let key_id_base64: String
        let attestation_object_base64: String
        let client_data_hash_base64: String
        let verification_time: String
        let leaf_not_after: String
        let expected: Expected
    }

    struct AssertionCase: Decodable, Sendable {
        struct Expected: Decodable, Sendable {
            let authdata_length: Int
            let authdata_flags: String
            let sign_count: UInt32
        }

        let assertion_base64: String
        let client_data_hash_base64: String
        let client_data_base64: String?
        let previous_counter: UInt32
        let expected: Expected
    }

    struct ReceiptCase: Decodable, Sendable {
        let receipt_base64: String
        let parsed: [String: ReceiptField]
    }

    enum ReceiptField: Decodable, Sendable {
        case text(String)
        case other

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let text = try? container.decode(String.self) {
                self = .text(text)
            } else {
                self = .other
            }
        }

        var text: String? {
            if case .text(let value) = self { return value }
            return nil
        }
    }

    var file = ""
    let attestation: Attestation?
    let assertions: [AssertionCase]
    let receipts: [ReceiptCase]?
    let team_id: String?
    let bundle_id: String?
    let public_key_x963_base64: String?

    enum CodingKeys: String, CodingKey {
        case attestation, assertions, receipts, team_id, bundle_id, public_key_x963_base64
    }

    var testDescription: String { file }

    var teamID: String { attestation?.team_id ?? team_id ?? "" }
    var bundleID: String { attestation?.bundle_id ?? bundle_id ?? "" }

    /// The key the assertions are signed with.
    var publicKeyX963: [UInt8] {
        bytes(attestation?.expected.public_key_x963_base64 ?? public_key_x963_base64 ?? "")
    }

    static let names = [
        "apple-guide_2024-04_ios18_prod.json",
        "apple-guide_2026-04_ios27_prod.json",
        "bas-d_2021-04_dev.json",
        "ricardo-ch_2026-10_ios27_dev.json",
        "srinivas1729_2024-01_dev.json",
        "uebelack_2024-02_dev.json",
        "uebelack_2024-02_prod.json",
        "uebelack_assertion_2024.json",
        "veehaitch_ios-14.2.json",
        "veehaitch_ios-14.3-beta-2.json",
        "veehaitch_ios-14.3-beta-3.json",
        "veehaitch_ios-14.3.json",
        "veehaitch_ios-14.4-beta-1.json",
        "veehaitch_ios-14.4-beta-2.json",
        "veehaitch_ios-14.4.json",
        "webauthn4j_kayak_2020-09_prod.json",
    ]

    /// Every vector, or an empty list when the vectors folder is absent (the tests then skip, saying so).
    static let all: [AppAttestVector] = {
        guard Vectors.available else { return [] }
        return names.compactMap { name in
            guard let data = try? Vectors.data("appattest/" + name),
                var vector = try? JSONDecoder().decode(AppAttestVector.self, from: data)
            else { return nil }
            vector.file = name
            return vector
        }
    }()

    static var withAttestation: [AppAttestVector] { all.filter { $0.attestation != nil } }
    static var withAssertions: [AppAttestVector] { all.filter { !$0.assertions.isEmpty } }

    static func named(_ name: String) throws -> AppAttestVector {
        guard let vector = all.first(where: { $0.file == name }) else { throw MissingVector(name: name) }
        return vector
    }
}

/// Decodes standard base64 (the vectors' encoding).
func bytes(_ base64: String) -> [UInt8] {
    Array(Data(base64Encoded: base64) ?? Data())
}

/// Parses an RFC 3339 timestamp from the vectors.
func date(_ text: String) -> Date {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    if let value = formatter.date(from: text) { return value }
    formatter.formatOptions = [.withInternetDateTime]
    return formatter.date(from: text) ?? Date.distantPast
}

/// A named vector file is absent.
struct MissingVector: Error {
    let name: String
}
