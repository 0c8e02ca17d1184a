// Trust-specific status codes (values as in Security's SecBase.h); the evaluation reports them as the code of its
// CFError in `NSOSStatusErrorDomain`.

// https://developer.apple.com/documentation/security/errsecnottrusted
/// The trust policy was not trusted.
public let errSecNotTrusted: OSStatus = -67843

// https://developer.apple.com/documentation/security/errseccertificateexpired
/// An expired certificate was detected.
public let errSecCertificateExpired: OSStatus = -67818

// https://developer.apple.com/documentation/security/errseccertificatenotvalidyet
/// The certificate is not yet valid.
public let errSecCertificateNotValidYet: OSStatus = -67819

// https://developer.apple.com/documentation/security/errsechostnamemismatch
/// A host name mismatch has occurred.
public let errSecHostNameMismatch: OSStatus = -67602

/// The error domain of the trust evaluation's CFError (Foundation's `NSOSStatusErrorDomain`).
let osStatusErrorDomain = "NSOSStatusErrorDomain"
