import Foundation
import RampartSecretStore

#if canImport(Security)
import Security
#else
import RampartAppleSimulation
#endif

/// Translation between RampartSecretStore's item types and Keychain Services dictionaries.
extension KeychainStore {
    static func classValue(_ itemClass: ItemClass) -> CFString {
        switch itemClass {
        case .genericPassword: kSecClassGenericPassword
        case .internetPassword: kSecClassInternetPassword
        case .key: kSecClassKey
        case .certificate: kSecClassCertificate
        }
    }

    static func accessible(_ accessibility: Accessibility) -> CFString {
        switch accessibility {
        case .whenUnlocked: kSecAttrAccessibleWhenUnlocked
        case .afterFirstUnlock: kSecAttrAccessibleAfterFirstUnlock
        case .whenUnlockedThisDeviceOnly: kSecAttrAccessibleWhenUnlockedThisDeviceOnly
        case .afterFirstUnlockThisDeviceOnly: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
        case .whenPasscodeSetThisDeviceOnly: kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly
        }
    }

    static func accessibility(_ value: Any?) -> Accessibility {
        let text = value as? String
        return Accessibility.allCases.first { (accessible($0) as String) == text } ?? .whenUnlocked
    }

    /// A `SecAccessControl` with `accessibility`'s protection class and the flags.
    static func accessControl(_ flags: AccessControl, _ accessibility: Accessibility) throws -> SecAccessControl {
        var secFlags: SecAccessControlCreateFlags = []
        if flags.contains(.userPresence) { secFlags.insert(.userPresence) }
        if flags.contains(.biometryAny) { secFlags.insert(.biometryAny) }
        if flags.contains(.biometryCurrentSet) { secFlags.insert(.biometryCurrentSet) }
        if flags.contains(.devicePasscode) { secFlags.insert(.devicePasscode) }
        var error: Unmanaged<CFError>?
        guard
            let control = SecAccessControlCreateWithFlags(
                nil, accessible(accessibility) as CFTypeRef, secFlags, &error)
        else {
            let code = error.map { status(of: $0.takeRetainedValue()) } ?? 0
            throw VaultError.invalidParameters(
                "SecAccessControlCreateWithFlags refused flags \(flags.rawValue) with \(accessibility.rawValue) "
                    + "(OSStatus \(code)): Security refuses userPresence combined with another check and biometryAny "
                    + "with biometryCurrentSet; pick one")
        }
        return control
    }

    // The tables hold each constant as a String: on Apple platforms `CFString` is a class that is not `Sendable`, so
    // Swift 6 refuses a static stored property of a type holding one (scripts/check-apple-build.py checks for it).

    /// Internet protocols Rampart names, and their `kSecAttrProtocol` values.
    static let protocols: [(String, String)] = [
        ("https", kSecAttrProtocolHTTPS as String), ("http", kSecAttrProtocolHTTP as String),
        ("ftp", kSecAttrProtocolFTP as String), ("ssh", kSecAttrProtocolSSH as String),
    ]
    /// Authentication schemes Rampart names, and their `kSecAttrAuthenticationType` values.
    static let authenticationTypes: [(String, String)] = [
        ("default", kSecAttrAuthenticationTypeDefault as String),
        ("basic", kSecAttrAuthenticationTypeHTTPBasic as String),
        ("digest", kSecAttrAuthenticationTypeHTTPDigest as String),
        ("form", kSecAttrAuthenticationTypeHTMLForm as String),
    ]
    /// Key types Rampart names, and their `kSecAttrKeyType` values; other names are stored as they are.
    static let keyTypes: [(String, String)] = [
        ("ec-p256", kSecAttrKeyTypeECSECPrimeRandom as String), ("rsa", kSecAttrKeyTypeRSA as String),
    ]

    static func encode(_ name: String, _ table: [(String, String)]) -> String {
        table.first { $0.0 == name }?.1 ?? name
    }

    static func decode(_ value: String, _ table: [(String, String)]) -> String {
        table.first { $0.1 == value }?.0 ?? value
    }

    /// The attribute keys and values of `attributes`.
    static func dictionary(_ attributes: ItemAttributes) throws -> [String: Any] {
        var result: [String: Any] = [:]
        for name in attributes.setNames {
            switch name {
            case .service: result[kSecAttrService as String] = attributes.service
            case .account: result[kSecAttrAccount as String] = attributes.account
            case .label: result[kSecAttrLabel as String] = attributes.label
            case .generic: result[kSecAttrGeneric as String] = attributes.generic.map { Data($0) }
            case .server: result[kSecAttrServer as String] = attributes.server
            case .protocol: result[kSecAttrProtocol as String] = attributes.protocol.map { encode($0, protocols) }
            case .port: result[kSecAttrPort as String] = attributes.port
            case .path: result[kSecAttrPath as String] = attributes.path
            case .securityDomain: result[kSecAttrSecurityDomain as String] = attributes.securityDomain
            case .authenticationType:
                result[kSecAttrAuthenticationType as String] = attributes.authenticationType.map {
                    encode($0, authenticationTypes)
                }
            case .applicationTag: result[kSecAttrApplicationTag as String] = attributes.applicationTag.map { Data($0) }
            case .applicationLabel:
                result[kSecAttrApplicationLabel as String] = attributes.applicationLabel.map { Data($0) }
            case .keyType: result[kSecAttrKeyType as String] = attributes.keyType.map { encode($0, keyTypes) }
            case .issuer: result[kSecAttrIssuer as String] = attributes.issuer.map { Data($0) }
            case .serialNumber: result[kSecAttrSerialNumber as String] = attributes.serialNumber.map { Data($0) }
            }
        }
        return result
    }

    /// A flag securityd returns as a number: `kSecAttrSynchronizable` is its `sync` column, 0 or 1
    /// (keychain/securityd/SecItemSchema.c:88; SecDbItem.c:944-948 stores a Boolean as a number), not a Boolean.
    static func isSet(_ value: Any?) -> Bool {
        if let number = value as? Int { return number != 0 }
        return value as? Bool ?? false
    }

    /// The item a `kSecReturnAttributes` (and maybe `kSecReturnData`) dictionary describes.
    static func item(_ found: [String: Any], _ itemClass: ItemClass) -> VaultItem {
        func text(_ key: CFString) -> String? { found[key as String] as? String }
        // securityd stores kSecAttrKeyType and kSecAttrProtocol as numbers when the value is a number's text
        // ("73", kSecAttrKeyTypeECSECPrimeRandom), and returns them as numbers (keychain/securityd/SecDbItem.c:131,
        // SecItemSchema.c:118, 157).
        func textOrNumber(_ key: CFString) -> String? { text(key) ?? (found[key as String] as? Int).map(String.init) }
        func bytes(_ key: CFString) -> [UInt8]? { (found[key as String] as? Data).map { Array($0) } }
        var attributes = ItemAttributes()
        let allowed = itemClass.allowedAttributes
        if allowed.contains(.service) { attributes.service = text(kSecAttrService) }
        if allowed.contains(.account) { attributes.account = text(kSecAttrAccount) }
        attributes.label = text(kSecAttrLabel)
        if allowed.contains(.generic) { attributes.generic = bytes(kSecAttrGeneric) }
        if allowed.contains(.server) { attributes.server = text(kSecAttrServer) }
        if allowed.contains(.protocol) {
            attributes.protocol = textOrNumber(kSecAttrProtocol).map { decode($0, protocols) }
        }
        if allowed.contains(.port) { attributes.port = found[kSecAttrPort as String] as? Int }
        if allowed.contains(.path) { attributes.path = text(kSecAttrPath) }
        if allowed.contains(.securityDomain) { attributes.securityDomain = text(kSecAttrSecurityDomain) }
        if allowed.contains(.authenticationType) {
            attributes.authenticationType = text(kSecAttrAuthenticationType).map { decode($0, authenticationTypes) }
        }
        if allowed.contains(.applicationTag) { attributes.applicationTag = bytes(kSecAttrApplicationTag) }
        if allowed.contains(.applicationLabel) { attributes.applicationLabel = bytes(kSecAttrApplicationLabel) }
        if allowed.contains(.keyType) {
            attributes.keyType = textOrNumber(kSecAttrKeyType).map { decode($0, keyTypes) }
        }
        if allowed.contains(.issuer) { attributes.issuer = bytes(kSecAttrIssuer) }
        if allowed.contains(.serialNumber) { attributes.serialNumber = bytes(kSecAttrSerialNumber) }
        var item = VaultItem(
            itemClass: itemClass, attributes: attributes,
            value: (found[kSecValueData as String] as? Data).map { Array($0) } ?? [],
            accessGroup: text(kSecAttrAccessGroup),
            accessibility: accessibility(found[kSecAttrAccessible as String]),
            synchronizable: isSet(found[kSecAttrSynchronizable as String]))
        item.creationDate = found[kSecAttrCreationDate as String] as? Date
        item.modificationDate = found[kSecAttrModificationDate as String] as? Date
        return item
    }
}
