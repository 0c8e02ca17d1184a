// https://developer.apple.com/documentation/security/osstatus
/// A status code returned by Security functions: `errSecSuccess` (0) or a negative error code.
public typealias OSStatus = Int32
