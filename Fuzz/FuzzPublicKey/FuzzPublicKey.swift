import Foundation
import FuzzSupport
import RampartCrypto

/// Key import must never crash: SubjectPublicKeyInfo DER (the strict DER check, the fast EC/Ed25519 path and
/// OpenSSL's decoder), PEM public and private keys, PKCS#8 private keys, X9.63 points, raw Ed25519 keys, and ECDSA
/// signatures in DER and raw form. A key that imports must re-import from its own encoding to the same key, and is
/// then used to verify the input as a signature under every algorithm.
func check(_ bytes: [UInt8]) {
    let message: [UInt8] = [0x61, 0x62, 0x63]
    if let key = try? PublicKey(spkiDER: bytes) {
        fuzzInvariant(!key.description.isEmpty, "an imported key has no description")
        let again = try? PublicKey(spkiDER: key.derRepresentation)
        fuzzInvariant(again == key, "a key does not re-import from its own SubjectPublicKeyInfo")
        fuzzInvariant((try? PublicKey(pemRepresentation: key.pemRepresentation)) == key, "PEM does not round-trip")
        for algorithm in FuzzFixtures.algorithms { _ = key.isValidSignature(bytes, for: message, algorithm: algorithm) }
    }
    if let text = String(validating: bytes, as: UTF8.self) {
        _ = try? PublicKey(pemRepresentation: text)
        _ = try? ECPrivateKey(pemRepresentation: text)
    }
    if let key = try? ECPrivateKey(pkcs8DERRepresentation: bytes) {
        let again = try? ECPrivateKey(pkcs8DERRepresentation: key.pkcs8DERRepresentation)
        fuzzInvariant(again?.rawRepresentation == key.rawRepresentation, "PKCS#8 does not round-trip")
    }
    _ = try? RSAPrivateKey(pkcs8DERRepresentation: bytes)
    for curve in ECCurve.allCases {
        if let point = try? ECPublicKey(x963Representation: bytes, curve: curve) {
            fuzzInvariant(point.x963Representation.count == 1 + 2 * curve.coordinateByteCount, "point not uncompressed")
            _ = point.isValidSignature(bytes, for: message)
        }
    }
    _ = try? Ed25519PublicKey(rawRepresentation: bytes)
    _ = FuzzFixtures.p256.isValidSignature(bytes, for: message)
    _ = FuzzFixtures.p256.isValidRawSignature(bytes, for: message)
}

enum FuzzFixtures {
    static let p256 = ECPrivateKey(curve: .p256).publicKey
    static let algorithms: [SignatureAlgorithm] = [
        .ecdsaWithSHA256, .sha256WithRSAEncryption, .rsaPSSWithSHA256, .ed25519, .ed448,
    ]
}

#if FUZZING
/// libFuzzer's per-input hook.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzPublicKeyTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    check(FuzzInput.bytes(data, size))
    return 0
}

/// The process entry point under `-DFUZZING` (see `FuzzInput.runLibFuzzer`).
@_cdecl("FuzzPublicKey_main")
func fuzzPublicKeyMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzInput.runLibFuzzer(argc, argv, fuzzPublicKeyTestOneInput)
}
#else
@main
enum FuzzPublicKeyReplay {
    static func main() { exit(FuzzInput.replay(Array(CommandLine.arguments.dropFirst()), check)) }
}
#endif
