import RampartCrypto
import Testing

/// `String(strictUTF8:)` over contiguous and non-contiguous collections: valid text decodes, every ill-formed
/// sequence (RFC 3629: stray continuation, overlong, surrogate, past U+10FFFF, truncated) is nil.
struct StringStrictUTF8Tests {
    static let valid: [[UInt8]] = [
        [], Array("plain ASCII".utf8), Array("café 日本語 😀 \u{2028}".utf8), [0x00, 0x7F],
        // ASCII is read eight bytes at a time, then the tail: non-ASCII in either part still goes to the full check.
        Array("sixteen bytes ok and a tail".utf8), Array("0123456789abcdefé".utf8), Array("é0123456789abcdef".utf8),
    ]

    static let invalid: [[UInt8]] = [
        [0x80], [0xFF], [0xC0, 0x80], [0xE0, 0x80, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80],
        [0xE6, 0x97], Array("ok".utf8) + [0xC3],
        Array("0123456789abcdef".utf8) + [0x80] + Array("xyz".utf8),
        [0x41, 0x42, 0xFF] + Array("0123456789abcdef".utf8),
    ]

    @Test(
        "valid UTF-8 decodes to its text, from an array, a slice, a part of a buffer and a non-contiguous collection",
        arguments: valid)
    func validText(_ bytes: [UInt8]) {
        let expected = String(decoding: bytes, as: UTF8.self)
        #expect(String(strictUTF8: bytes) == expected)
        #expect(String(strictUTF8: ([0x41] + bytes)[1...]) == expected)
        #expect(Self.fromBufferPart(bytes) == expected)
        #expect(String(strictUTF8: bytes.lazy.map { $0 }) == expected)
    }

    @Test(
        "ill-formed UTF-8 is nil, from an array, a slice, a part of a buffer and a non-contiguous collection",
        arguments: invalid)
    func invalidText(_ bytes: [UInt8]) {
        #expect(String(strictUTF8: bytes) == nil)
        #expect(String(strictUTF8: ([0x41] + bytes)[1...]) == nil)
        #expect(Self.fromBufferPart(bytes) == nil)
        #expect(String(strictUTF8: bytes.lazy.map { $0 }) == nil)
    }

    /// `bytes` decoded as the middle part of a buffer (a byte before and after it that must not be read), through the
    /// non-generic `Slice<UnsafeBufferPointer<UInt8>>` entry the HTTP head decoder uses.
    static func fromBufferPart(_ bytes: [UInt8]) -> String? {
        let framed = [0x41] + bytes + [0xFF]
        return framed.withUnsafeBufferPointer { buffer in
            let part: Slice<UnsafeBufferPointer<UInt8>> = buffer[1..<(1 + bytes.count)]
            return String(strictUTF8: part)
        }
    }
}

/// `String.hasSameUTF8(as:)`: byte equality, eight bytes at a time then the tail.
struct StringSameUTF8Tests {
    @Test("equal bytes are equal, whatever the length; a difference anywhere, or in length, is not")
    func bytes() {
        for length in [0, 1, 7, 8, 9, 15, 16, 17, 40] {
            let text = String(repeating: "a", count: length)
            #expect(text.hasSameUTF8(as: String(repeating: "a", count: length)))
            #expect(!text.hasSameUTF8(as: text + "a"))
            for position in 0..<length {
                var bytes = Array(text.utf8)
                bytes[position] = UInt8(ascii: "b")
                #expect(!text.hasSameUTF8(as: String(decoding: bytes, as: UTF8.self)), "\(length) at \(position)")
            }
        }
    }

    @Test("canonically equivalent strings (which == calls equal) are different bytes")
    func notCanonicalEquivalence() {
        let composed = "caf\u{E9}-subject-longer-than-eight"
        let decomposed = "cafe\u{301}-subject-longer-than-eight"
        #expect(composed == decomposed)
        #expect(!composed.hasSameUTF8(as: decomposed))
        #expect(composed.hasSameUTF8(as: "caf\u{E9}-subject-longer-than-eight"))
        #expect(!"\u{212A}".hasSameUTF8(as: "K"))
    }
}
