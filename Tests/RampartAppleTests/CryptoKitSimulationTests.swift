// The simulated CryptoKit exists on Linux only; on Apple platforms these names are CryptoKit's own.
#if canImport(RampartAppleSimulation)
import Dispatch
import Foundation
import RampartAppleSimulation
import Testing

/// The simulated CryptoKit throws what swift-crypto's public API (the same API as CryptoKit) throws, and takes the
/// argument types it takes.
struct CryptoKitSimulationTests {
    /// Whether `body` throws exactly `expected`.
    func throwsCryptoKitError(_ expected: CryptoKitError, _ body: () throws -> Void) -> Bool {
        do {
            try body()
            return false
        } catch let error as CryptoKitError {
            return "\(error)" == "\(expected)"
        } catch {
            return false
        }
    }

    @Test("P-256 keys of the wrong length are incorrectParameterSize; a wrong x9.63 prefix is incorrectKeySize")
    func keyLengths() {
        #expect(
            throwsCryptoKitError(.incorrectParameterSize) {
                _ = try P256.Signing.PrivateKey(rawRepresentation: [UInt8](repeating: 1, count: 31))
            })
        #expect(
            throwsCryptoKitError(.incorrectParameterSize) {
                _ = try P256.Signing.PublicKey(rawRepresentation: [UInt8](repeating: 1, count: 63))
            })
        #expect(
            throwsCryptoKitError(.incorrectParameterSize) {
                _ = try P256.Signing.PublicKey(x963Representation: [UInt8](repeating: 4, count: 64))
            })
        let point = P256.Signing.PrivateKey().publicKey.x963Representation
        #expect(
            throwsCryptoKitError(.incorrectKeySize) {
                _ = try P256.Signing.PublicKey(x963Representation: [0x02] + point.dropFirst())
            })
        #expect(
            throwsCryptoKitError(.incorrectParameterSize) {
                _ = try P256.KeyAgreement.PublicKey(x963Representation: point.dropLast())
            })
    }

    @Test("a point off the curve or a scalar out of range is the library's own error (underlyingCoreCryptoError)")
    func invalidValues() {
        func isUnderlying(_ body: () throws -> Void) -> Bool {
            do {
                try body()
                return false
            } catch CryptoKitError.underlyingCoreCryptoError {
                return true
            } catch {
                return false
            }
        }
        #expect(isUnderlying { _ = try P256.Signing.PrivateKey(rawRepresentation: [UInt8](repeating: 0, count: 32)) })
        #expect(
            isUnderlying {
                _ = try P256.Signing.PublicKey(x963Representation: [0x04] + [UInt8](repeating: 1, count: 64))
            })
    }

    @Test("a signature that is not DER is a CryptoKitASN1Error; an r or s longer than 32 bytes incorrectParameterSize")
    func signatureEncoding() throws {
        #expect(throws: CryptoKitASN1Error.self) {
            _ = try P256.Signing.ECDSASignature(derRepresentation: [0x30, 0x03, 0x02])
        }
        // SEQUENCE { INTEGER (33 bytes, no sign padding needed: 0x01 first), INTEGER 1 }
        let long: [UInt8] = [0x30, 0x26, 0x02, 0x21, 0x01] + [UInt8](repeating: 0x11, count: 32) + [0x02, 0x01, 0x01]
        #expect(
            throwsCryptoKitError(.incorrectParameterSize) {
                _ = try P256.Signing.ECDSASignature(derRepresentation: long)
            })
        let signature = try P256.Signing.PrivateKey().signature(for: Data("m".utf8))
        #expect(
            try P256.Signing.ECDSASignature(derRepresentation: signature.derRepresentation).rawRepresentation
                == signature.rawRepresentation)
    }

    @Test("HMAC takes any DataProtocol, as CryptoKit declares it (DispatchData is not ContiguousBytes)")
    func hmacTakesDataProtocol() {
        let key = SymmetricKey(data: [UInt8](repeating: 7, count: 32))
        let bytes: [UInt8] = Array("message".utf8)
        let dispatched = bytes.withUnsafeBytes { DispatchData(bytes: $0) }
        let code = HMAC<SHA256>.authenticationCode(for: dispatched, using: key)
        #expect(Array(code) == Array(HMAC<SHA256>.authenticationCode(for: Data(bytes), using: key)))
        #expect(HMAC<SHA256>.isValidAuthenticationCode(code, authenticating: dispatched, using: key))
    }
}
#endif
