public import Foundation
internal import RampartX509

// https://developer.apple.com/documentation/security/seccertificate
/// An abstract Core Foundation-type object representing an X.509 certificate (simulated: the DER bytes, parsed once
/// by RampartX509's strict reader).
public final class SecCertificate: Sendable {
    let der: [UInt8]
    let certificate: Certificate

    init(der: [UInt8], certificate: Certificate) {
        self.der = der
        self.certificate = certificate
    }
}

// https://developer.apple.com/documentation/security/seccertificatecreatewithdata(_:_:)
/// Creates a certificate object from a DER representation of a certificate.
///
/// - Parameters:
///   - allocator: The allocator; ignored by the simulation.
///   - data: A DER (Distinguished Encoding Rules) representation of an X.509 certificate.
/// - Returns: The certificate object, or nil if the data passed in is not a valid DER-encoded X.509 certificate.
public func SecCertificateCreateWithData(_ allocator: CFAllocator?, _ data: CFData) -> SecCertificate? {
    let bytes = Array(data)
    guard let certificate = try? Certificate(derEncoded: bytes) else { return nil }
    return SecCertificate(der: bytes, certificate: certificate)
}

// https://developer.apple.com/documentation/security/seccertificatecopydata(_:)
/// Returns a DER representation of a certificate given a certificate object.
///
/// - Parameter certificate: The certificate object for which you wish to return the DER representation.
/// - Returns: The DER representation of the certificate, byte for byte as it was created.
public func SecCertificateCopyData(_ certificate: SecCertificate) -> CFData { Data(certificate.der) }
