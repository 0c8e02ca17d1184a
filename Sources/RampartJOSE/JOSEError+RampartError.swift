public import RampartCrypto  // `==`, hashing and texts; the conformance sits apart so none of them is synthesised

@_exported public import protocol RampartCrypto.RampartError  // for callers that import only this module

/// JOSEError compares and hashes by code and prints `code: reason`, as RampartError does for every module.
extension JOSEError: RampartError {}
