import Foundation
import RampartCrypto
import RampartJOSE
import TestSupport
import Testing

/// ``Base64URL``: the one accepted spelling of every byte string, and the size bound checked before any work.
struct Base64URLTests {
    @Test("encode is unpadded base64url, and decode reads it back, for every length up to 64")
    func roundTrip() {
        for count in 0...64 {
            let bytes = count == 0 ? [] : SecureRandom.bytes(count: count) + [0xFB, 0xFF].prefix(count % 3)
            let encoded = Base64URL.encode(bytes)
            #expect(encoded == JOSETestKeys.base64URL(bytes))
            #expect(Base64URL.decode(encoded.utf8, maximumByteCount: 128) == bytes)
        }
    }

    @Test(
        "decode refuses padding, the standard alphabet, whitespace, a length of 4k+1 and set unused bits",
        arguments: [
            "QQ==",  // padding
            "QQ=",
            "+/8",  // the standard alphabet's 62 and 63
            "QU JD",  // whitespace
            "QUJD\n",
            "QUJDR",  // 4k+1 characters: no byte string encodes to it
            "QR",  // decodes to the byte of "QQ" with an unused bit set
            "QUJ\u{00E9}",
        ])
    func refused(text: String) {
        #expect(Base64URL.decode(text.utf8, maximumByteCount: 16) == nil)
    }

    @Test("decode refuses text longer than the maximum before decoding it")
    func maximum() {
        #expect(Base64URL.decode("QUJD".utf8, maximumByteCount: 3) == [0x41, 0x42, 0x43])
        #expect(Base64URL.decode("QUJD".utf8, maximumByteCount: 2) == nil)
        #expect(Base64URL.decode("QUI".utf8, maximumByteCount: 1) == nil)
    }
}
