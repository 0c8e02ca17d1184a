import Foundation
import RampartCrypto
import RampartRequestSigning
import Testing

struct RequestSignatureTests {
    @Test("the signed text is the five lines of the wire format, joined by LF, without a trailing newline")
    func signedText() throws {
        let digest = RequestSignature.digestValue(of: [UInt8]())
        #expect(digest == "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=")  // SHA-256 of zero bytes
        let text = try RequestSignature.clientData(
            method: "post", target: "/api/points/use?dry=1&x=%2F", challenge: "abc_-", digest: digest)
        #expect(
            String(decoding: text, as: UTF8.self)
                == "rampart-request-v1\nPOST\n/api/points/use?dry=1&x=%2F\nabc_-\n" + digest)
        #expect(
            try RequestSignature.clientDataHash(
                method: "POST", target: "/api/points/use?dry=1&x=%2F", challenge: "abc_-", digest: digest)
                == SHA256.hash(text))
    }

    @Test("Content-Digest round-trips, and only its one canonical form is accepted")
    func contentDigestForm() throws {
        let body = Array(#"{"amount":1}"#.utf8)
        let header = RequestSignature.contentDigest(of: body)
        #expect(try RequestSignature.digestValue(ofHeader: header) == RequestSignature.digestValue(of: body))
        let good = RequestSignature.digestValue(of: body)
        for bad in [
            "sha-256=\(good)", "sha-256=:\(good)", " sha-256=:\(good):", "sha-256=:\(good): ", "SHA-256=:\(good):",
            "sha-512=:\(good):", "sha-256=:\(good.replacingOccurrences(of: "=", with: "")):",
            "sha-256=:\(good.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")):",
            "sha-256=:\(good):, sha-512=:AAAA:", "",
        ] {
            #expect(throws: RequestSigningError.invalidHeader("")) { try RequestSignature.digestValue(ofHeader: bad) }
        }
        // 43 significant characters and "=": a non-zero final pad bit spells the same bytes differently.
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
        let index = try #require(alphabet.firstIndex(of: Array(good)[42]))
        #expect(index % 4 == 0)  // the two bits after the 256th are zero in the canonical spelling
        let flipped = String(good.prefix(42)) + String(alphabet[index + 1]) + "="
        #expect(Data(base64Encoded: flipped) == Data(base64Encoded: good))
        #expect(throws: RequestSigningError.invalidHeader("")) {
            try RequestSignature.digestValue(ofHeader: "sha-256=:\(flipped):")
        }
    }

    @Test("a line break or control character in any part is refused, so one text cannot pass for another")
    func controlCharactersRefused() {
        let digest = RequestSignature.digestValue(of: [UInt8]())
        for (method, target, challenge) in [
            ("GET\nPOST", "/a", "c"), ("GET", "/a\n/b", "c"), ("GET", "/a", "c\n"), ("GET", "/a\r", "c"),
            ("GET", "/a\u{0}", "c"), ("", "/a", "c"), ("GET", "", "c"), ("GET", "/a", ""),
            ("GET", "/" + String(repeating: "a", count: RequestSignature.maximumTargetByteCount), "c"),
        ] {
            #expect(throws: RequestSigningError.invalidHeader("")) {
                try RequestSignature.clientData(method: method, target: target, challenge: challenge, digest: digest)
            }
        }
    }
}
