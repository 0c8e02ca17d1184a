import Foundation
import FuzzSupport
import RampartCrypto
import RampartPinning

/// The harness's signer: a fixed key, so that the seed envelope verifies and mutations of it explore every check.
let key: Ed25519PrivateKey = {
    do { return try Ed25519PrivateKey(rawRepresentation: [UInt8](repeating: 7, count: 32)) } catch {
        fatalError("the fuzz harness could not make its key: \(error)")
    }
}()
let verifier = PinSetVerifier(bundleID: "com.rampart.fuzz", signers: [key.publicKey])
let now = Date(timeIntervalSince1970: 1_800_000_000)

/// ``PinSetVerifier`` must never crash on any bytes, and must adopt only what the key signed: an adopted set's
/// payload is byte for byte one the harness signed (the seed), whatever else the fuzzer changed around it. The same
/// bytes are also signed as a payload, which takes them past the signature to the strict payload reader: it must not
/// crash either, and what it lets through is UTF-8 without a byte-order mark.
func check(_ bytes: [UInt8]) {
    checkSignedPayload(bytes)
    guard case .adopt(let set) = verifier.verify(bytes, floor: 0, at: now) else { return }
    guard let separator = bytes.firstRange(of: [0x0A, 0x0A]) else {
        fuzzInvariant(false, "an adopted envelope has no blank line")
        return
    }
    let payload = Array(bytes[separator.upperBound...])
    fuzzInvariant(
        key.publicKey.isValidSignature(signature(of: bytes), for: SignedPinSet.signatureContext + payload),
        "an adopted envelope's signature does not cover its payload")
    fuzzInvariant(set.bundleID == "com.rampart.fuzz", "an envelope for another app was adopted")
}

/// Signs `payload` with the harness key and verifies the envelope: the payload reader sees the fuzzer's bytes.
func checkSignedPayload(_ payload: [UInt8]) {
    guard let signature = try? key.signature(for: SignedPinSet.signatureContext + payload) else { return }
    let header =
        "\(SignedPinSet.magic)\nkey-id: \(SignedPinSet.keyID(of: key.publicKey))\n"
        + "signature: \(Data(signature).base64EncodedString())\n\n"
    guard case .adopt = verifier.verify(Array(header.utf8) + payload, floor: 0, at: now) else { return }
    fuzzInvariant(String(validating: payload, as: UTF8.self) != nil, "a payload that is not UTF-8 was adopted")
    fuzzInvariant(!payload.starts(with: [0xEF, 0xBB, 0xBF]), "a payload with a byte-order mark was adopted")
}

/// The signature bytes of an envelope's header (base64 after `signature: `).
func signature(of bytes: [UInt8]) -> [UInt8] {
    let lines = bytes.split(separator: 0x0A, maxSplits: 3, omittingEmptySubsequences: false)
    guard lines.count > 2 else { return [] }
    let text = String(decoding: lines[2].dropFirst("signature: ".count), as: UTF8.self)
    return Data(base64Encoded: text).map { Array($0) } ?? []
}

#if FUZZING
/// libFuzzer's per-input hook.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzSignedPinSetTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    check(FuzzInput.bytes(data, size))
    return 0
}

/// The process entry point under `-DFUZZING` (see `FuzzInput.runLibFuzzer`).
@_cdecl("FuzzSignedPinSet_main")
func fuzzSignedPinSetMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzInput.runLibFuzzer(argc, argv, fuzzSignedPinSetTestOneInput)
}
#else
@main
enum FuzzSignedPinSetReplay {
    static func main() { exit(FuzzInput.replay(Array(CommandLine.arguments.dropFirst()), check)) }
}
#endif
