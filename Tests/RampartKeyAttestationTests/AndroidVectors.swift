import Foundation
import RampartX509
import TestSupport
import Testing

/// One chain of Google's Key Attestation vectors, with a time inside its validity and the KeyDescription JSON the
/// reference verifier expects.
struct AndroidChain: CustomTestStringConvertible, Sendable {
    let name: String
    let time: Date

    var testDescription: String { name }

    static let source = "android-key-attestation"

    /// The chains with a reference KeyDescription, by device folder, and a time inside their validity (the
    /// README's table).
    static let all: [AndroidChain] = {
        let times: [String: String] = [
            "akita/sdk34": "2024-09-20T00:00:00Z", "blueline/sdk28": "2024-01-01T00:00:00Z",
            "caiman/sdk36": "2025-10-01T00:00:00Z", "marlin/sdk29": "2020-01-01T00:00:00Z",
            "tokay/sdk37": "2026-05-01T00:00:00Z",
        ]
        var chains: [AndroidChain] = []
        for (folder, time) in times.sorted(by: { $0.key < $1.key }) {
            guard let url = try? Vectors.url("\(source)/\(folder)"),
                let files = try? FileManager.default.contentsOfDirectory(atPath: url.path)
            else { continue }
            for file in files.sorted() where file.hasSuffix(".pem") {
                chains.append(
                    AndroidChain(name: "\(folder)/\(file.dropLast(4))", time: AndroidChain.date(time)))
            }
        }
        return chains
    }()

    /// The chains Google's roots anchor (marlin's software root is not one).
    static var googleRooted: [AndroidChain] { all.filter { !$0.name.hasPrefix("marlin") } }

    static func date(_ text: String) -> Date {
        // The table's times are fixed literals; a parse failure is a test bug.
        ISO8601DateFormatter().date(from: text) ?? Date(timeIntervalSince1970: 0)
    }

    /// The certificates, leaf first.
    func chain() throws -> [Certificate] {
        try Certificate.parseAll(Array(Vectors.data("\(Self.source)/\(name).pem")))
    }

    /// The expected KeyDescription as parsed JSON (`//` line comments stripped).
    func expectedJSON() throws -> NSObject {
        try Self.parseJSON(Vectors.data("\(Self.source)/\(name).json"))
    }

    static func parseJSON(_ data: Data) throws -> NSObject {
        let text = String(decoding: data, as: UTF8.self)
        let stripped = text.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }
            .joined(separator: "\n")
        let object = try JSONSerialization.jsonObject(with: Data(stripped.utf8))
        guard let value = object as? NSObject else { throw CocoaError(.coderReadCorrupt) }
        return value
    }

    /// A chain read from a file of the vectors (invalid ones, fixtures).
    static func certificates(_ relativePath: String) throws -> [Certificate] {
        try Certificate.parseAll(Array(Vectors.data("\(source)/\(relativePath)")))
    }
}
