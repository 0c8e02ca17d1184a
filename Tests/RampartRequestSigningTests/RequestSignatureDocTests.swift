import Foundation
import RampartCrypto
import RampartRequestSigning
import Testing

/// The worked example of `docs/request-signature.md` is what ``RequestSignature`` produces, byte for byte: the
/// document's blocks marked `<!-- checked: NAME -->` are compared with the code's output.
struct RequestSignatureDocTests {
    static let document = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/request-signature.md")

    /// The fenced block right after each `<!-- checked: NAME -->` marker, by name, lines joined by `\n`.
    static func checkedBlocks() throws -> [String: String] {
        let lines = try String(contentsOf: document, encoding: .utf8).components(separatedBy: "\n")
        var blocks: [String: String] = [:]
        var index = 0
        while index < lines.count {
            let line = lines[index].trimmingCharacters(in: .whitespaces)
            index += 1
            guard line.hasPrefix("<!-- checked:"), line.hasSuffix("-->") else { continue }
            let name = line.dropFirst("<!-- checked:".count).dropLast(3).trimmingCharacters(in: .whitespaces)
            guard index < lines.count, lines[index].hasPrefix("```") else {
                throw DocError("the marker \(name) is not followed by a fenced block")
            }
            var end = index + 1
            while end < lines.count, !lines[end].hasPrefix("```") { end += 1 }
            blocks[name] = lines[(index + 1)..<end].joined(separator: "\n")
            index = end + 1
        }
        return blocks
    }

    struct DocError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    @Test("the worked example's digest, signed text and clientDataHash are RequestSignature's")
    func workedExample() throws {
        let blocks = try Self.checkedBlocks()
        let body = try #require(blocks["body"], "no checked body block")
        let digestHeader = try #require(blocks["content-digest"])
        let signedText = try #require(blocks["signed-text"])
        let hash = try #require(blocks["client-data-hash"])

        #expect(RequestSignature.contentDigest(of: Array(body.utf8)) == digestHeader)
        let digest = try RequestSignature.digestValue(ofHeader: digestHeader)
        let lines = signedText.components(separatedBy: "\n")
        try #require(lines.count == 5, "the signed text has five lines")
        #expect(lines[0] == RequestSignature.version)
        #expect(lines[4] == digest)
        let text = try RequestSignature.clientData(
            method: lines[1], target: lines[2], challenge: lines[3], digest: digest)
        #expect(text == Array(signedText.utf8), "the document's signed text is not clientData's output")
        let computed = try RequestSignature.clientDataHash(
            method: lines[1], target: lines[2], challenge: lines[3], digest: digest)
        #expect(computed.map { String(format: "%02x", $0) }.joined() == hash)
        #expect(SHA256.hash(Array(signedText.utf8)) == computed)

        let text134 = try String(contentsOf: Self.document, encoding: .utf8)
        #expect(text134.contains("the signed text is these \(text.count) bytes"), "the byte count in the prose")
        #expect(text134.contains("this body (\(body.utf8.count) bytes"), "the body length in the prose")
        #expect(text134.contains(RequestSignature.contentDigest(of: [UInt8]())), "the empty-body digest in the prose")
    }

    @Test("the upstream's one-line check accepts the worked example's body and refuses a changed one")
    func upstreamCheck() throws {
        let blocks = try Self.checkedBlocks()
        let body = Array(try #require(blocks["body"]).utf8)
        let verified = try #require(blocks["content-digest"])
        func upstreamAccepts(_ received: [UInt8]) -> Bool {
            "sha-256=:" + Data(SHA256.hash(received)).base64EncodedString() + ":" == verified
        }
        #expect(upstreamAccepts(body))
        #expect(!upstreamAccepts(Array(#"{"action":"point_use","amount":9999}"#.utf8)))
    }
}
