import Foundation
import RampartX509
import TestSupport
import Testing

/// One row of the badssl.com table, reproduced with the local test PKI.
struct ChainCase: CustomTestStringConvertible, Sendable {
    let leaf: String
    let host: String
    let expected: ChainFailure.Reason?
    let index: Int?
    var testDescription: String { "\(leaf) for \(host) → \(expected?.description ?? "trusted")" }
}

struct ChainVerifierTests {
    static let table: [ChainCase] = [
        ChainCase(leaf: "good", host: "good.rampart.test", expected: nil, index: nil),
        ChainCase(leaf: "good", host: "api.good.rampart.test", expected: nil, index: nil),
        ChainCase(leaf: "good", host: "GOOD.rampart.test.", expected: nil, index: nil),
        ChainCase(leaf: "good", host: "127.0.0.1", expected: nil, index: nil),
        ChainCase(leaf: "expired", host: "expired.rampart.test", expected: .expired, index: 0),
        ChainCase(leaf: "notyet", host: "notyet.rampart.test", expected: .notYetValid, index: 0),
        ChainCase(leaf: "wronghost", host: "wrong.host.badssl.rampart.test", expected: .hostnameMismatch, index: 0),
        ChainCase(leaf: "good", host: "a.b.good.rampart.test", expected: .hostnameMismatch, index: 0),
        ChainCase(leaf: "good", host: "127.0.0.2", expected: .hostnameMismatch, index: 0),
        ChainCase(leaf: "cnonly", host: "good.rampart.test", expected: .hostnameMismatch, index: 0),
        ChainCase(leaf: "selfsigned", host: "selfsigned.rampart.test", expected: .selfSigned, index: 0),
        ChainCase(leaf: "untrusted", host: "untrusted.rampart.test", expected: .untrustedRoot, index: 1),
        ChainCase(leaf: "notaca", host: "notaca.rampart.test", expected: .notACA, index: 1),
        ChainCase(leaf: "clientauth", host: "clientauth.rampart.test", expected: .wrongPurpose, index: 0),
        ChainCase(leaf: "good", host: "-bad-.rampart.test", expected: .invalidHostname, index: nil),
        ChainCase(leaf: "good", host: "*.good.rampart.test", expected: .invalidHostname, index: nil),
    ]

    static func intermediates(of leaf: String, pki: TestPKI) throws -> [[UInt8]] {
        let documents = try PEMDocument.parseAll(pki.text("\(leaf)-chain.pem"))
        return documents.dropFirst().map(\.derBytes)
    }

    @Test("badssl.com table, with and without the signature cache", arguments: table, [0, 64])
    func badssl(_ row: ChainCase, cacheCapacity: Int) throws {
        let pki = try TestPKI.shared.get()
        let verifier = try ChainVerifier(
            trustAnchorDER: [pki.der("root"), pki.der("otherroot")],
            options: .init(signatureCacheCapacity: cacheCapacity))
        let result = verifier.evaluateDER(
            leaf: try pki.der(row.leaf), intermediates: try Self.intermediates(of: row.leaf, pki: pki),
            at: TestPKI.validationTime, purpose: .tlsServer(hostname: row.host))
        switch result {
        case .trusted(let path):
            #expect(row.expected == nil, "trusted, expected \(row.expected?.description ?? "")")
            #expect(path.count == 3)
            #expect(path.last == (try pki.der("root")))
        case .untrusted(let reason, let code, let index, _, let text):
            #expect(reason == row.expected, "got \(reason) (\(code): \(text))")
            #expect(index == row.index)
        }
    }
}
