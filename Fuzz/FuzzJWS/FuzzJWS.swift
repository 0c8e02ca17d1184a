import Foundation
import FuzzSupport
import RampartAttestService
import RampartCrypto
import RampartJOSE

/// The JOSE parsers must never crash on any bytes and must keep their promises. The first byte picks the parser:
///
/// - even: ``JSONWebKeySet/init(jsonEncoded:)``. Whatever it accepts has at least one key, and its canonical JSON
///   reads back to the same canonical JSON (the round trip a published JWKS relies on); a refusal is always
///   `invalidKeySet`.
/// - odd: ``SessionTokenVerifier/subject(authorization:now:)`` over `Bearer <rest>` with a fixed RS256 + ES256 key
///   set. A refusal is always `invalidSession`; nothing without a valid signature is accepted (the fuzzer holds no
///   private key, so any accepted token is a forgery).
let verifier: SessionTokenVerifier = {
    // The RSA key of RFC 7638 section 3.1 (public only), and a fresh P-256 key whose private half is dropped.
    let n =
        "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw"
    do {
        let ec = try JSONWebKeySet(keys: [try JSONWebKey(ECPrivateKey(curve: .p256).publicKey, keyID: "e1")])
        var text = String(decoding: ec.jsonEncoded, as: UTF8.self)
        text.removeLast(2)
        text += #",{"kty":"RSA","kid":"r1","n":"\#(n)","e":"AQAB"}]}"#
        return try SessionTokenVerifier(
            configuration: SessionTokenConfiguration(jwksPath: "fuzz", issuer: "https://id.example/", audience: "app"),
            keySet: JSONWebKeySet(jsonEncoded: Array(text.utf8)))
    } catch {
        fatalError("the fuzz harness could not start: \(error)")
    }
}()

func check(_ bytes: [UInt8]) {
    guard let selector = bytes.first else { return }
    let rest = Array(bytes.dropFirst())
    if selector % 2 == 0 {
        do {
            let set = try JSONWebKeySet(jsonEncoded: rest)
            fuzzInvariant(!set.keys.isEmpty, "an accepted JWKS has no usable key")
            let encoded = set.jsonEncoded
            let reread = try? JSONWebKeySet(jsonEncoded: encoded)
            fuzzInvariant(reread?.jsonEncoded == encoded, "the canonical JWKS does not read back to itself")
        } catch let error as JOSEError {
            fuzzInvariant(error.code == .invalidKeySet, "a JWKS refusal that is not invalidKeySet")
        } catch {
            fuzzInvariant(false, "a JWKS refusal that is not a JOSEError")
        }
    } else {
        let authorization = "Bearer " + String(decoding: rest, as: UTF8.self)
        do {
            _ = try verifier.subject(authorization: authorization, now: Date(timeIntervalSince1970: 1_800_000_000))
            fuzzInvariant(false, "a session JWT was accepted without any private key")
        } catch let error as AttestServiceError {
            fuzzInvariant(error.code == .invalidSession, "a session refusal that is not invalidSession")
        } catch {
            fuzzInvariant(false, "a session refusal that is not an AttestServiceError")
        }
    }
}

#if FUZZING
/// libFuzzer's per-input hook.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzJWSTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    check(FuzzInput.bytes(data, size))
    return 0
}

/// The process entry point under `-DFUZZING` (see `FuzzInput.runLibFuzzer`).
@_cdecl("FuzzJWS_main")
func fuzzJWSMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzInput.runLibFuzzer(argc, argv, fuzzJWSTestOneInput)
}
#else
@main
enum FuzzJWSReplay {
    static func main() { exit(FuzzInput.replay(Array(CommandLine.arguments.dropFirst()), check)) }
}
#endif
