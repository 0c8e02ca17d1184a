import Foundation
import FuzzSupport
import RampartX509

/// Certificate parsing must never crash; an accepted certificate's properties must all be computable, its names
/// must re-parse to themselves, and its TBSCertificate must be a sub-range of the input.
func check(_ bytes: [UInt8]) {
    guard let certificate = try? Certificate(derEncoded: bytes) else { return }
    _ = certificate.description
    _ = certificate.spkiSHA256
    _ = certificate.fingerprintSHA256
    _ = certificate.signatureAlgorithm.description
    _ = certificate.pemString
    for name in [certificate.subject, certificate.issuer] {
        let again = try? DistinguishedName(derEncoded: name.derBytes)
        fuzzInvariant(again == name && again?.description == name.description, "a name does not re-parse to itself")
        for attribute in name.relativeNames.flatMap(\.attributes) { _ = attribute.stringValue }
    }
    let extensions = certificate.extensions
    if let basic = extensions.basicConstraints {
        fuzzInvariant(
            basic.derEncoded == extensions[oid: .X509Extension.basicConstraints]?.value,
            "basicConstraints does not re-encode to the bytes it was parsed from")
    }
    if let usage = extensions.keyUsage {
        fuzzInvariant(
            usage.derEncoded == extensions[oid: .X509Extension.keyUsage]?.value,
            "keyUsage does not re-encode to the bytes it was parsed from")
    }
    _ = extensions.subjectAlternativeNames
    _ = try? extensions.authorityKeyIdentifier?.derEncoded()
    fuzzInvariant(
        (2...5).contains { offset in bytes.dropFirst(offset).starts(with: certificate.tbsCertificateBytes) },
        "the TBSCertificate is not inside the certificate")
    _ = try? CertificateBuilder(copying: certificate).tbsCertificateBytes(
        signatureAlgorithm: certificate.signatureAlgorithm)
}

#if FUZZING
/// libFuzzer's per-input hook.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzCertificateTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    check(FuzzInput.bytes(data, size))
    return 0
}

/// The process entry point under `-DFUZZING` (see `FuzzInput.runLibFuzzer`).
@_cdecl("FuzzCertificate_main")
func fuzzCertificateMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzInput.runLibFuzzer(argc, argv, fuzzCertificateTestOneInput)
}
#else
@main
enum FuzzCertificateReplay {
    static func main() { exit(FuzzInput.replay(Array(CommandLine.arguments.dropFirst()), check)) }
}
#endif
