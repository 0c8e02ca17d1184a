// Security result codes, transcribed from Apple's documentation (each page declares `var NAME: OSStatus { get }`).

// https://developer.apple.com/documentation/security/errsecsuccess
/// No error. (`0`)
public var errSecSuccess: OSStatus { 0 }

// https://developer.apple.com/documentation/security/errsecunimplemented
/// Function or operation not implemented. (`-4`)
public var errSecUnimplemented: OSStatus { -4 }

// https://developer.apple.com/documentation/security/errsecio
/// I/O error. (`-36`)
public var errSecIO: OSStatus { -36 }

// https://developer.apple.com/documentation/security/errsecparam
/// One or more parameters passed to a function were not valid. (`-50`)
public var errSecParam: OSStatus { -50 }

// https://developer.apple.com/documentation/security/errsecusercanceled
/// User canceled the operation. (`-128`)
public var errSecUserCanceled: OSStatus { -128 }

// https://developer.apple.com/documentation/security/errsecnotavailable
/// No keychain is available. (`-25291`)
public var errSecNotAvailable: OSStatus { -25291 }

// https://developer.apple.com/documentation/security/errsecauthfailed
/// Authorization and/or authentication failed. (`-25293`)
public var errSecAuthFailed: OSStatus { -25293 }

// https://developer.apple.com/documentation/security/errsecduplicateitem
/// The item already exists. (`-25299`)
public var errSecDuplicateItem: OSStatus { -25299 }

// https://developer.apple.com/documentation/security/errsecitemnotfound
/// The item cannot be found. (`-25300`)
public var errSecItemNotFound: OSStatus { -25300 }

// https://developer.apple.com/documentation/security/errsecnosuchattr
/// The attribute does not exist. (`-25303`)
public var errSecNoSuchAttr: OSStatus { -25303 }

// https://developer.apple.com/documentation/security/errsecinteractionnotallowed
/// Interaction is not allowed with the Security Server. (`-25308`)
public var errSecInteractionNotAllowed: OSStatus { -25308 }

// https://developer.apple.com/documentation/security/errsecdecode
/// Unable to decode the provided data. (`-26275`)
public var errSecDecode: OSStatus { -26275 }

// https://developer.apple.com/documentation/security/errsecmissingentitlement
/// A required entitlement isn't present. (`-34018`)
public var errSecMissingEntitlement: OSStatus { -34018 }
