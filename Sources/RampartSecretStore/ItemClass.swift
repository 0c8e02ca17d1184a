/// The kind of a vault item, as Keychain Services' `kSecClass`.
///
/// The class decides which attributes an item may carry and which of them form its primary key (see
/// ``PrimaryKey``).
public enum ItemClass: String, Hashable, CaseIterable, Codable {
    /// A password or any small secret, found by service and account (`kSecClassGenericPassword`). Tokens and API keys
    /// are stored as this class.
    case genericPassword = "generic-password"
    /// A password for a server, found by server, account, protocol, port, path, security domain and authentication
    /// type (`kSecClassInternetPassword`).
    case internetPassword = "internet-password"
    /// Key material, found by application tag, application label and key type (`kSecClassKey`).
    case key
    /// A certificate, found by issuer and serial number (`kSecClassCertificate`).
    case certificate

    /// The attributes an item of this class may set, besides the ones every class has (access group,
    /// accessibility, synchronizable, access control).
    public var allowedAttributes: Set<ItemAttributes.Name> {
        switch self {
        case .genericPassword: [.service, .account, .label, .generic]
        case .internetPassword:
            [.server, .account, .protocol, .port, .path, .securityDomain, .authenticationType, .label]
        case .key: [.applicationTag, .applicationLabel, .keyType, .label]
        case .certificate: [.issuer, .serialNumber, .label]
        }
    }

    /// The attributes that, with the class, access group and synchronizable flag, identify an item: two items of
    /// this class whose primary-key attributes are equal are duplicates.
    ///
    /// Accessibility and label are never part of it, so changing them never creates a second item.
    public var primaryKeyAttributes: [ItemAttributes.Name] {
        switch self {
        case .genericPassword: [.service, .account]
        case .internetPassword:
            [.server, .account, .protocol, .port, .path, .securityDomain, .authenticationType]
        case .key: [.applicationTag, .applicationLabel, .keyType]
        case .certificate: [.issuer, .serialNumber]
        }
    }
}

extension ItemClass: Sendable {}
