internal import RampartCrypto

// https://developer.apple.com/documentation/cryptokit/cryptokiterror
/// General cryptography errors used by CryptoKit (simulated).
///
/// The simulation throws what swift-crypto's public API throws: ``incorrectKeySize`` for symmetric keys of the wrong
/// length and an x9.63 key without its 04 prefix, ``incorrectParameterSize`` for nonces, tags and EC keys of the
/// wrong length, ``authenticationFailure`` when a tag does not verify, and ``underlyingCoreCryptoError(error:)`` for
/// well-sized but invalid EC input (a point off the curve, a scalar out of range), which swift-crypto reports as its
/// library's error (Sources/Crypto/Util/BoringSSL/CryptoKitErrors_boring.swift:23-25).
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

// https://developer.apple.com/documentation/cryptokit/cryptokitasn1error
/// Errors from decoding ASN.1 content (swift-crypto: Sources/Crypto/CryptoKitErrors.swift:42-68; the cases it
/// declares, of which the simulation throws ``invalidASN1Object``).
public enum CryptoKitASN1Error: Equatable, Error, Hashable, Sendable {
    /// The ASN.1 tag for this field is invalid or unsupported.
    case invalidFieldIdentifier
    /// The ASN.1 tag for the parsed field does not match the required format.
    case unexpectedFieldType
    /// An invalid ASN.1 object identifier was encountered.
    case invalidObjectIdentifier
    /// The format of the parsed ASN.1 object does not match the format required for the data type being decoded.
    case invalidASN1Object
    /// An ASN.1 integer was decoded that does not use the minimum number of bytes for its encoding.
    case invalidASN1IntegerEncoding
    /// An ASN.1 field was truncated and could not be decoded.
    case truncatedASN1Field
    /// The encoding used for the field length is not supported.
    case unsupportedFieldLength
    /// It was not possible to parse a string as a PEM document.
    case invalidPEMDocument
}
