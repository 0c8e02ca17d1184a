#if canImport(Security)
import Security
#else
import RampartAppleSimulation
#endif

/// Reading the `CFError`s of Security functions.
extension KeychainStore {
    /// Security's own code for an error it has no public name for: `errSecInternal` (base/SecBasePriv.h:66).
    static let internalStatus: OSStatus = -26276

    /// The `OSStatus` a Security `CFError` stands for, read as Security's `SecErrorGetOSStatus` reads one
    /// (apple-oss-distributions/Security, OSX/sec/Security/SecItem.m:238-270).
    ///
    /// `SecKey` operations on a Secure Enclave key run in a CryptoTokenKit token (OSX/sec/Security/SecCTKKey.m) and
    /// fail with its errors or LocalAuthentication's, not with `OSStatus` codes: a canceled Face ID prompt is
    /// `com.apple.LocalAuthentication` -2, not `errSecUserCanceled`. Those domains are translated the way
    /// `osstatus_for_localauthentication_error` and `osstatus_for_ctk_error` do (SecItem.m:203-232); any other domain
    /// (`NSOSStatusErrorDomain`) carries the status as its code.
    ///
    /// - Parameter error: The error.
    /// - Returns: The status.
    static func status(of error: CFError) -> OSStatus {
        let code = CFErrorGetCode(error)
        switch CFErrorGetDomain(error) as String {
        case "com.apple.LocalAuthentication":  // kLAErrorDomain (LAPublicDefines.h)
            switch code {
            case -2: return errSecUserCanceled  // kLAErrorUserCancel
            case -1004: return errSecInteractionNotAllowed  // kLAErrorNotInteractive
            default: return errSecAuthFailed
            }
        case "CryptoTokenKit":  // TKErrorDomain (TKError.h)
            switch code {
            case -8: return errSecParam  // TKErrorCodeBadParameter
            case -1: return errSecUnimplemented  // TKErrorCodeNotImplemented
            case -4: return errSecUserCanceled  // TKErrorCodeCanceledByUser
            case -3: return errSecDecode  // TKErrorCodeCorruptedData
            case -6, -7: return errSecItemNotFound  // TKErrorCodeObjectNotFound, TKErrorCodeTokenNotFound
            default: return internalStatus
            }
        default:
            return OSStatus(truncatingIfNeeded: code)
        }
    }
}
