/// The one error type of ``RampartVault``.
///
/// Each code maps to the Keychain Services `OSStatus` an Apple app would see for the same failure
/// (``Code/osStatus``), and back (``Code/init(osStatus:)``), so code written against `SecItem` results carries over.
/// Errors compare by ``code`` only: `#expect(throws: VaultError.duplicateItem())` matches any duplicate. New codes are
/// additive.
public struct VaultError: Error {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        enum Backing: String, Hashable, Sendable, CaseIterable {
            case duplicateItem
            case itemNotFound
            case interactionNotAllowed
            case missingEntitlement
            case authFailed
            case invalidParameters
            case noSuchAttribute
            case integrityFailure
            case notAvailable
            case ioFailure
        }

        let backing: Backing

        /// An item with the same primary key already exists (`errSecDuplicateItem`, −25299).
        public static let duplicateItem = Code(backing: .duplicateItem)
        /// No item matched the query (`errSecItemNotFound`, −25300).
        public static let itemNotFound = Code(backing: .itemNotFound)
        /// The item cannot be used in the device's current state, or needs a user check nobody can answer
        /// (`errSecInteractionNotAllowed`, −25308).
        public static let interactionNotAllowed = Code(backing: .interactionNotAllowed)
        /// The caller is not entitled to the access group it named (`errSecMissingEntitlement`, −34018).
        public static let missingEntitlement = Code(backing: .missingEntitlement)
        /// A passphrase, key file or user-presence check was wrong (`errSecAuthFailed`, −25293).
        public static let authFailed = Code(backing: .authFailed)
        /// A parameter or a combination of attributes is not allowed (`errSecParam`, −50).
        public static let invalidParameters = Code(backing: .invalidParameters)
        /// An attribute does not exist for the item's class (`errSecNoSuchAttr`, −25303).
        public static let noSuchAttribute = Code(backing: .noSuchAttribute)
        /// A stored item failed authentication: it was altered, moved or swapped (`errSecDecode`, −26275).
        public static let integrityFailure = Code(backing: .integrityFailure)
        /// The backing store is not reachable, for example no Secret Service on the bus (`errSecNotAvailable`,
        /// −25291).
        public static let notAvailable = Code(backing: .notAvailable)
        /// Reading or writing the store failed (`errSecIO`, −36).
        public static let ioFailure = Code(backing: .ioFailure)

        /// The Keychain Services `OSStatus` for this code.
        public var osStatus: Int32 {
            switch backing {
            case .duplicateItem: -25299
            case .itemNotFound: -25300
            case .interactionNotAllowed: -25308
            case .missingEntitlement: -34018
            case .authFailed: -25293
            case .invalidParameters: -50
            case .noSuchAttribute: -25303
            case .integrityFailure: -26275
            case .notAvailable: -25291
            case .ioFailure: -36
            }
        }

        /// The code for a Keychain Services `OSStatus`, or nil for `errSecSuccess` and statuses Rampart has no code
        /// for.
        ///
        /// - Parameter osStatus: A status returned by a `SecItem` function.
        public init?(osStatus: Int32) {
            guard let backing = Backing.allCases.first(where: { Code(backing: $0).osStatus == osStatus }) else {
                return nil
            }
            self.backing = backing
        }

        init(backing: Backing) { self.backing = backing }

        /// The code's stable name, e.g. `duplicateItem`.
        public var description: String { backing.rawValue }
    }

    /// What kind of failure this is.
    public let code: Code
    /// A sentence saying what went wrong and what to do; never holds secret values.
    public let reason: String
    /// Extra detail for logs (for example SQLite's or libsecret's message).
    public let detail: String
    /// The source file that raised the error.
    public let file: String
    /// The source line that raised the error.
    public let line: UInt

    init(code: Code, reason: String, detail: String = "", file: String, line: UInt) {
        self.code = code
        self.reason = reason
        self.detail = detail
        self.file = file
        self.line = line
    }

    /// The description plus detail, the `OSStatus` and the raising site.
    public var debugDescription: String {
        let extra = detail.isEmpty ? "" : " [\(detail)]"
        return "VaultError.\(code) (\(code.osStatus)): \(reason)\(extra) (\(file):\(line))"
    }

    /// An item with the same primary key already exists.
    public static func duplicateItem(
        _ reason: String = "an item with this primary key already exists; use update or upsert to change it",
        file: String = #fileID,
        line: UInt = #line
    ) -> VaultError {
        VaultError(code: .duplicateItem, reason: reason, file: file, line: line)
    }

    /// No item matched.
    public static func itemNotFound(
        _ reason: String = "no item matches the query",
        file: String = #fileID,
        line: UInt = #line
    ) -> VaultError {
        VaultError(code: .itemNotFound, reason: reason, file: file, line: line)
    }

    /// The item cannot be used now.
    public static func interactionNotAllowed(
        _ reason: String = "the item is not available in the device's current state",
        file: String = #fileID,
        line: UInt = #line
    ) -> VaultError {
        VaultError(code: .interactionNotAllowed, reason: reason, file: file, line: line)
    }

    /// The caller is not entitled to an access group.
    public static func missingEntitlement(
        _ reason: String = "the caller is not entitled to this access group",
        file: String = #fileID,
        line: UInt = #line
    ) -> VaultError {
        VaultError(code: .missingEntitlement, reason: reason, file: file, line: line)
    }

    /// A passphrase, key or user check was wrong.
    public static func authFailed(
        _ reason: String = "wrong passphrase or not a Rampart vault",
        file: String = #fileID,
        line: UInt = #line
    ) -> VaultError {
        VaultError(code: .authFailed, reason: reason, file: file, line: line)
    }

    /// A parameter or combination is not allowed.
    public static func invalidParameters(
        _ reason: String = "invalid parameters",
        file: String = #fileID,
        line: UInt = #line
    ) -> VaultError {
        VaultError(code: .invalidParameters, reason: reason, file: file, line: line)
    }

    /// An attribute does not exist for the class.
    public static func noSuchAttribute(
        _ reason: String = "the attribute does not exist for this item class",
        file: String = #fileID,
        line: UInt = #line
    ) -> VaultError {
        VaultError(code: .noSuchAttribute, reason: reason, file: file, line: line)
    }

    /// A stored item failed authentication.
    public static func integrityFailure(
        _ reason: String =
            "a stored item failed authentication: the vault file was altered, or rows were moved or swapped",
        file: String = #fileID,
        line: UInt = #line
    ) -> VaultError {
        VaultError(code: .integrityFailure, reason: reason, file: file, line: line)
    }

    /// The store is not reachable.
    public static func notAvailable(
        _ reason: String = "the secret store is not available",
        detail: String = "",
        file: String = #fileID,
        line: UInt = #line
    ) -> VaultError {
        VaultError(code: .notAvailable, reason: reason, detail: detail, file: file, line: line)
    }

    /// Reading or writing the store failed.
    public static func ioFailure(
        _ reason: String = "reading or writing the vault failed",
        detail: String = "",
        file: String = #fileID,
        line: UInt = #line
    ) -> VaultError {
        VaultError(code: .ioFailure, reason: reason, detail: detail, file: file, line: line)
    }
}

extension VaultError: Sendable {}
