import Foundation
import RampartCrypto
import RampartJOSE
import Testing

@testable import RampartAttestService

struct Base64FieldTests {
    /// The encoding as Foundation's string replacement gives it (an encoder independent of Base64URL's).
    private static func reference(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    @Test("Base64URL's unpadded base64url (challenges use it) reads back through decode, for every length up to 64")
    func roundTrip() throws {
        for count in 0...64 {
            let bytes = count == 0 ? [] : SecureRandom.bytes(count: count) + [0xFB, 0xFF].prefix(count % 3)
            let encoded = Base64URL.encode(bytes)
            #expect(encoded == Self.reference(bytes))
            #expect(!encoded.contains("=") && !encoded.contains("+") && !encoded.contains("/"))
            if !bytes.isEmpty {
                #expect(try Base64Field.decode(encoded, field: "f", maximumByteCount: 128) == bytes)
                let standard = Data(bytes).base64EncodedString()
                #expect(try Base64Field.decode(standard, field: "f", maximumByteCount: 128) == bytes)
            }
        }
    }

    @Test(
        "decode refuses what is not base64 with invalidBase64, and an over-long field with invalidField",
        arguments: [
            ("", AttestServiceError.Code.invalidBase64), ("A", .invalidBase64), ("AB$C", .invalidBase64),
            ("AB\u{2212}C", .invalidBase64), ("ABC==", .invalidBase64),
            (String(repeating: "A", count: 48), .invalidField),
        ])
    func refused(text: String, code: AttestServiceError.Code) {
        #expect {
            _ = try Base64Field.decode(text, field: "f", maximumByteCount: 32)
        } throws: { error in
            (error as? AttestServiceError)?.code == code
        }
    }

    @Test("a signed request's base64 fields take only the one padded encoding of their bytes, within the maximum")
    func strictBase64() {
        #expect(SignedRequestVerifier.strictBase64("QQ==", maximum: 8) == [0x41])
        #expect(SignedRequestVerifier.strictBase64("+/+/", maximum: 8) == [0xFB, 0xFF, 0xBF])
        let long = SecureRandom.bytes(count: 100)
        #expect(SignedRequestVerifier.strictBase64(Data(long).base64EncodedString(), maximum: 100) == long)
        for refused in [
            "QR==",  // decodes to the same byte as QQ==, with unused bits set
            "QQ", "QQ=", "Q Q==", "-_-_", "", "QUJD\n",
        ] {
            #expect(SignedRequestVerifier.strictBase64(refused, maximum: 8) == nil, "\(refused)")
        }
        #expect(SignedRequestVerifier.strictBase64(nil, maximum: 8) == nil)
        #expect(SignedRequestVerifier.strictBase64(Data(long).base64EncodedString(), maximum: 99) == nil)
    }
}
