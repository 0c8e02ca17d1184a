internal import RampartCrypto

// https://developer.apple.com/documentation/cryptokit/cryptokiterror
/// General cryptography errors used by CryptoKit (simulated).
///
/// The simulation throws ``incorrectKeySize`` for keys of the wrong length, ``incorrectParameterSize`` for nonces,
/// tags and encodings of the wrong length, ``authenticationFailure`` when a tag does not verify, and
/// ``invalidParameter`` for well-sized but invalid input (a point off the curve, a scalar out of range).
public enum CryptoKitError: Error, Sendable {
    // https://developer.apple.com/documentation/cryptokit/cryptokiterror/incorrectkeysize
    /// The key size is incorrect.
    case incorrectKeySize
    // https://developer.apple.com/documentation/cryptokit/cryptokiterror/incorrectparametersize
    /// The parameter size is incorrect.
    case incorrectParameterSize
    // https://developer.apple.com/documentation/cryptokit/cryptokiterror/authenticationfailure
    /// The authentication tag or signature is incorrect.
    case authenticationFailure
    // https://developer.apple.com/documentation/cryptokit/cryptokiterror/underlyingcorecryptoerror(error:)
    /// The underlying corecrypto library is unable to complete the requested action.
    case underlyingCoreCryptoError(error: Int32)
    // https://developer.apple.com/documentation/cryptokit/cryptokiterror/wrapfailure
    /// The data can't be wrapped.
    case wrapFailure
    // https://developer.apple.com/documentation/cryptokit/cryptokiterror/unwrapfailure
    /// The data can't be unwrapped.
    case unwrapFailure
    // https://developer.apple.com/documentation/cryptokit/cryptokiterror/invalidparameter
    /// The parameter is invalid.
    case invalidParameter
}

extension CryptoKitError {
    /// Maps a RampartCrypto error from the OpenSSL implementation to the case CryptoKit documents for it.
    static func from(_ error: any Error) -> CryptoKitError {
        guard let error = error as? CryptoError else { return .underlyingCoreCryptoError(error: -1) }
        switch error.code {
        case .invalidKey: return .invalidParameter
        case .invalidParameter: return .incorrectParameterSize
        case .authenticationFailure: return .authenticationFailure
        case .invalidEncoding: return .incorrectParameterSize
        default: return .underlyingCoreCryptoError(error: -1)
        }
    }
}
