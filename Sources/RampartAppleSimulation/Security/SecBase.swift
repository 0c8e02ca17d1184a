// Status codes shared by every part of the Security simulation (values as in Security's SecBase.h).

// https://developer.apple.com/documentation/security/errsecsuccess
/// No error.
public let errSecSuccess: OSStatus = 0

// https://developer.apple.com/documentation/security/errsecparam
/// One or more parameters passed to a function were not valid.
public let errSecParam: OSStatus = -50
