/// The one error type of ``RampartSeal``.
///
/// Errors compare by ``code`` only, so tests can write `#expect(throws: SealError.truncated())`-style checks while the
/// thrown value still carries where and why it was raised. New codes are additive.
///
/// The integrity codes (``Code/wrongKey``, ``Code/headerTampered``, ``Code/segmentTampered``, ``Code/truncated``,
/// ``Code/extended``) are the verdicts of opening well-formed but untrusted data: ``isIntegrityFailure`` groups them so
/// a command line can map them to exit status 1, and everything else to 2.
public struct SealError: Error {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        enum Backing: String, Hashable, Sendable {
            case invalidParameter
            case malformedBox
            case authenticationFailure
            case malformedHeader
            case unsupportedVersion
            case unsupportedAlgorithm
            case limitExceeded
            case wrongKey
            case unknownKeyID
            case headerTampered
            case segmentTampered
            case truncated
            case extended
            case malformedPasswordHash
            case malformedKeyset
            case keyStoreFailure
            case ioFailure
            case wrongKeyKind
        }

        let backing: Backing

        /// An argument was outside what the API allows (segment size, key length, a KDF weaker than the floor).
        public static let invalidParameter = Code(backing: .invalidParameter)
        /// A combined box is shorter than its nonce and tag.
        public static let malformedBox = Code(backing: .malformedBox)
        /// A box did not open: wrong key or associated data, or the box was altered.
        public static let authenticationFailure = Code(backing: .authenticationFailure)
        /// The bytes are not a sealed header: wrong magic, inconsistent lengths or trailing bytes.
        public static let malformedHeader = Code(backing: .malformedHeader)
        /// The header's format version is one this library does not read.
        public static let unsupportedVersion = Code(backing: .unsupportedVersion)
        /// The header or hash names an algorithm or KDF this library does not implement.
        public static let unsupportedAlgorithm = Code(backing: .unsupportedAlgorithm)
        /// A declared size or cost is above the named limit that bounds the work an untrusted input can demand.
        public static let limitExceeded = Code(backing: .limitExceeded)
        /// The data key did not unwrap: wrong passphrase or key, or the key stanza of the header was altered.
        public static let wrongKey = Code(backing: .wrongKey)
        /// The header names a key id the keyset does not hold.
        public static let unknownKeyID = Code(backing: .unknownKeyID)
        /// The key unwrapped but the header's MAC does not verify: a header field was edited.
        public static let headerTampered = Code(backing: .headerTampered)
        /// A segment did not authenticate: modified, reordered, or moved from another file. ``SealError/segmentIndex``
        /// says which.
        public static let segmentTampered = Code(backing: .segmentTampered)
        /// The data ends before its final segment: the file was cut short.
        public static let truncated = Code(backing: .truncated)
        /// Bytes follow the final segment: something was appended.
        public static let extended = Code(backing: .extended)
        /// A PHC password-hash string was malformed.
        public static let malformedPasswordHash = Code(backing: .malformedPasswordHash)
        /// A serialized keyset was malformed or inconsistent.
        public static let malformedKeyset = Code(backing: .malformedKeyset)
        /// The secret store holding key-encryption keys failed or lacks the named key.
        public static let keyStoreFailure = Code(backing: .keyStoreFailure)
        /// Reading or writing a file or stream failed.
        public static let ioFailure = Code(backing: .ioFailure)
        /// The header says the data key was wrapped by another kind of key than the one given: a passphrase for a
        /// file sealed with a key-encryption key (a keyset), or the reverse. The caller gave the wrong kind of key;
        /// this is not a verdict on the data.
        public static let wrongKeyKind = Code(backing: .wrongKeyKind)

        /// The code's stable name, e.g. `segmentTampered`.
        public var description: String { backing.rawValue }
    }

    /// What kind of failure this is.
    public let code: Code
    /// A sentence saying what went wrong and what to do; never holds key bytes, passphrases or raw input.
    public let reason: String
    /// For ``Code/segmentTampered``, ``Code/truncated`` and ``Code/extended``: the zero-based segment at fault.
    public let segmentIndex: UInt64?
    /// Extra detail for logs.
    public let detail: String
    /// The source file that raised the error.
    public let file: String
    /// The source line that raised the error.
    public let line: UInt

    init(
        code: Code,
        reason: String,
        segmentIndex: UInt64? = nil,
        detail: String = "",
        file: String,
        line: UInt
    ) {
        self.code = code
        self.reason = reason
        self.segmentIndex = segmentIndex
        self.detail = detail
        self.file = file
        self.line = line
    }

    /// Whether this is a verdict on well-formed but untrusted data (wrong key or tampering), not bad input or usage.
    public var isIntegrityFailure: Bool {
        switch code.backing {
        case .authenticationFailure, .wrongKey, .headerTampered, .segmentTampered, .truncated, .extended, .unknownKeyID:
            true
        default: false
        }
    }

    /// An argument was outside what the API allows.
    public static func invalidParameter(_ reason: String = "", file: String = #fileID, line: UInt = #line) -> SealError
    {
        SealError(code: .invalidParameter, reason: reason, file: file, line: line)
    }

    /// A combined box is too short.
    public static func malformedBox(_ reason: String = "", file: String = #fileID, line: UInt = #line) -> SealError {
        SealError(code: .malformedBox, reason: reason, file: file, line: line)
    }

    /// A box did not open.
    public static func authenticationFailure(
        _ reason: String = "the box does not open: wrong key or associated data, or the box was altered",
        file: String = #fileID,
        line: UInt = #line
    ) -> SealError {
        SealError(code: .authenticationFailure, reason: reason, file: file, line: line)
    }

    /// The bytes are not a sealed header.
    public static func malformedHeader(_ reason: String = "", file: String = #fileID, line: UInt = #line) -> SealError {
        SealError(code: .malformedHeader, reason: reason, file: file, line: line)
    }

    /// The format version is not one this library reads.
    public static func unsupportedVersion(
        _ reason: String = "", file: String = #fileID, line: UInt = #line
    )
        -> SealError
    {
        SealError(code: .unsupportedVersion, reason: reason, file: file, line: line)
    }

    /// An algorithm or KDF is not implemented.
    public static func unsupportedAlgorithm(
        _ reason: String = "", file: String = #fileID, line: UInt = #line
    )
        -> SealError
    {
        SealError(code: .unsupportedAlgorithm, reason: reason, file: file, line: line)
    }

    /// A declared size or cost is above its limit.
    public static func limitExceeded(_ reason: String = "", file: String = #fileID, line: UInt = #line) -> SealError {
        SealError(code: .limitExceeded, reason: reason, file: file, line: line)
    }

    /// The data key did not unwrap.
    public static func wrongKey(
        _ reason: String =
            "the data key did not unwrap: the passphrase or key is wrong, or the header's key stanza was altered",
        file: String = #fileID,
        line: UInt = #line
    ) -> SealError {
        SealError(code: .wrongKey, reason: reason, file: file, line: line)
    }

    /// The file needs another kind of key than the one given.
    public static func wrongKeyKind(_ reason: String, file: String = #fileID, line: UInt = #line) -> SealError {
        SealError(code: .wrongKeyKind, reason: reason, file: file, line: line)
    }

    /// The keyset lacks the header's key id.
    public static func unknownKeyID(_ reason: String = "", file: String = #fileID, line: UInt = #line) -> SealError {
        SealError(code: .unknownKeyID, reason: reason, file: file, line: line)
    }

    /// The header MAC did not verify.
    public static func headerTampered(
        _ reason: String =
            "the header's MAC does not verify: a header field (algorithm, segment size, salt or nonce prefix) was edited",
        file: String = #fileID,
        line: UInt = #line
    ) -> SealError {
        SealError(code: .headerTampered, reason: reason, file: file, line: line)
    }

    /// A segment did not authenticate.
    public static func segmentTampered(
        index: UInt64,
        _ reason: String? = nil,
        file: String = #fileID,
        line: UInt = #line
    ) -> SealError {
        let text =
            reason
            ?? ("segment \(index) does not authenticate: it was modified, reordered or taken from another file; "
                + "discard the output")
        return SealError(code: .segmentTampered, reason: text, segmentIndex: index, file: file, line: line)
    }

    /// The data ends before its final segment.
    public static func truncated(
        index: UInt64? = nil,
        _ reason: String = "the sealed data ends before its final segment: it was cut short; discard the output",
        file: String = #fileID,
        line: UInt = #line
    ) -> SealError {
        SealError(code: .truncated, reason: reason, segmentIndex: index, file: file, line: line)
    }

    /// Bytes follow the final segment.
    public static func extended(
        index: UInt64? = nil,
        _ reason: String = "bytes follow the final segment: data was appended to the sealed file; discard the output",
        file: String = #fileID,
        line: UInt = #line
    ) -> SealError {
        SealError(code: .extended, reason: reason, segmentIndex: index, file: file, line: line)
    }

    /// A PHC string was malformed.
    public static func malformedPasswordHash(
        _ reason: String = "", file: String = #fileID, line: UInt = #line
    )
        -> SealError
    {
        SealError(code: .malformedPasswordHash, reason: reason, file: file, line: line)
    }

    /// A serialized keyset was malformed.
    public static func malformedKeyset(_ reason: String = "", file: String = #fileID, line: UInt = #line) -> SealError {
        SealError(code: .malformedKeyset, reason: reason, file: file, line: line)
    }

    /// The secret store failed or lacks the key.
    public static func keyStoreFailure(
        _ reason: String = "",
        detail: String = "",
        file: String = #fileID,
        line: UInt = #line
    ) -> SealError {
        SealError(code: .keyStoreFailure, reason: reason, detail: detail, file: file, line: line)
    }

    /// Reading or writing failed.
    public static func ioFailure(_ reason: String = "", file: String = #fileID, line: UInt = #line) -> SealError {
        SealError(code: .ioFailure, reason: reason, file: file, line: line)
    }
}

extension SealError: Sendable {}
