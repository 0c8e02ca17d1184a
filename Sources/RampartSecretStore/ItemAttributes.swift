/// The searchable attributes of an item: what it is for, not the secret itself.
///
/// Every field is optional. In a ``VaultItem`` a set field is stored; in an ``ItemQuery`` it filters (equality); in
/// ``ItemChanges`` it replaces the stored value. Which fields a class may use is ``ItemClass/allowedAttributes``.
///
/// - Important: Attributes are not secret. The file vault keeps them readable (and authenticated) so it can search
///   them; put secrets only in ``VaultItem/value``.
public struct ItemAttributes: Hashable, Codable {
    /// The name of one attribute, as used in errors, the CLI and the Secret Service schema.
    public enum Name: String, Sendable, Hashable, CaseIterable, Codable {
        /// ``ItemAttributes/service``.
        case service
        /// ``ItemAttributes/account``.
        case account
        /// ``ItemAttributes/label``.
        case label
        /// ``ItemAttributes/generic``.
        case generic
        /// ``ItemAttributes/server``.
        case server
        /// ``ItemAttributes/protocol``.
        case `protocol`
        /// ``ItemAttributes/port``.
        case port
        /// ``ItemAttributes/path``.
        case path
        /// ``ItemAttributes/securityDomain``.
        case securityDomain = "security-domain"
        /// ``ItemAttributes/authenticationType``.
        case authenticationType = "authentication-type"
        /// ``ItemAttributes/applicationTag``.
        case applicationTag = "application-tag"
        /// ``ItemAttributes/applicationLabel``.
        case applicationLabel = "application-label"
        /// ``ItemAttributes/keyType``.
        case keyType = "key-type"
        /// ``ItemAttributes/issuer``.
        case issuer
        /// ``ItemAttributes/serialNumber``.
        case serialNumber = "serial-number"
    }

    /// The service the secret belongs to, e.g. `api.example.com` (`kSecAttrService`).
    public var service: String?
    /// The account, e.g. `refresh_token` or a user name (`kSecAttrAccount`).
    public var account: String?
    /// A human-readable label (`kSecAttrLabel`). Not part of any primary key.
    public var label: String?
    /// Application-defined bytes stored with a generic password (`kSecAttrGeneric`).
    public var generic: [UInt8]?
    /// The server of an internet password (`kSecAttrServer`).
    public var server: String?
    /// The protocol of an internet password, e.g. `https` (`kSecAttrProtocol`).
    public var `protocol`: String?
    /// The port of an internet password (`kSecAttrPort`).
    public var port: Int?
    /// The path of an internet password (`kSecAttrPath`).
    public var path: String?
    /// The security domain (realm) of an internet password (`kSecAttrSecurityDomain`).
    public var securityDomain: String?
    /// The authentication scheme of an internet password, e.g. `basic` (`kSecAttrAuthenticationType`).
    public var authenticationType: String?
    /// A tag the application gives a key (`kSecAttrApplicationTag`).
    public var applicationTag: [UInt8]?
    /// A label identifying a key, often the hash of its public key (`kSecAttrApplicationLabel`).
    public var applicationLabel: [UInt8]?
    /// The key's algorithm, e.g. `ec-p256` or `aes-256` (`kSecAttrKeyType`).
    public var keyType: String?
    /// The DER issuer name of a certificate (`kSecAttrIssuer`).
    public var issuer: [UInt8]?
    /// The serial number of a certificate (`kSecAttrSerialNumber`).
    public var serialNumber: [UInt8]?

    /// Creates a set of attributes; leave out what does not apply.
    ///
    /// - Parameters:
    ///   - service: The service.
    ///   - account: The account.
    ///   - label: A readable label.
    ///   - generic: Application bytes.
    ///   - server: An internet password's server.
    ///   - protocol: An internet password's protocol.
    ///   - port: An internet password's port.
    ///   - path: An internet password's path.
    ///   - securityDomain: An internet password's realm.
    ///   - authenticationType: An internet password's scheme.
    ///   - applicationTag: A key's tag.
    ///   - applicationLabel: A key's label.
    ///   - keyType: A key's algorithm.
    ///   - issuer: A certificate's issuer.
    ///   - serialNumber: A certificate's serial number.
    public init(
        service: String? = nil,
        account: String? = nil,
        label: String? = nil,
        generic: [UInt8]? = nil,
        server: String? = nil,
        protocol: String? = nil,
        port: Int? = nil,
        path: String? = nil,
        securityDomain: String? = nil,
        authenticationType: String? = nil,
        applicationTag: [UInt8]? = nil,
        applicationLabel: [UInt8]? = nil,
        keyType: String? = nil,
        issuer: [UInt8]? = nil,
        serialNumber: [UInt8]? = nil
    ) {
        self.service = service
        self.account = account
        self.label = label
        self.generic = generic
        self.server = server
        self.protocol = `protocol`
        self.port = port
        self.path = path
        self.securityDomain = securityDomain
        self.authenticationType = authenticationType
        self.applicationTag = applicationTag
        self.applicationLabel = applicationLabel
        self.keyType = keyType
        self.issuer = issuer
        self.serialNumber = serialNumber
    }

    /// The value of one attribute as bytes (strings as UTF-8, the port as 8 big-endian bytes), or nil when unset.
    ///
    /// This is the form primary keys, associated data and filters compare.
    ///
    /// - Parameter name: The attribute.
    /// - Returns: Its bytes, or nil.
    public func bytes(of name: Name) -> [UInt8]? {
        switch Self.field(name) {
        case .text(let keyPath): self[keyPath: keyPath].map { Array($0.utf8) }
        case .bytes(let keyPath): self[keyPath: keyPath]
        case .port: port.map { port in (0..<8).reversed().map { UInt8(truncatingIfNeeded: Int64(port) >> ($0 * 8)) } }
        }
    }

    /// Where an attribute's value is kept, by its kind: the one table the per-attribute code goes through.
    package enum Field {
        /// A string attribute.
        case text(WritableKeyPath<ItemAttributes, String?>)
        /// A byte-string attribute.
        case bytes(WritableKeyPath<ItemAttributes, [UInt8]?>)
        /// ``ItemAttributes/port``.
        case port
    }

    /// The field that holds `name`.
    package static func field(_ name: Name) -> Field {
        switch name {
        case .service: .text(\.service)
        case .account: .text(\.account)
        case .label: .text(\.label)
        case .generic: .bytes(\.generic)
        case .server: .text(\.server)
        case .protocol: .text(\.protocol)
        case .port: .port
        case .path: .text(\.path)
        case .securityDomain: .text(\.securityDomain)
        case .authenticationType: .text(\.authenticationType)
        case .applicationTag: .bytes(\.applicationTag)
        case .applicationLabel: .bytes(\.applicationLabel)
        case .keyType: .text(\.keyType)
        case .issuer: .bytes(\.issuer)
        case .serialNumber: .bytes(\.serialNumber)
        }
    }

    /// The names of the attributes that are set.
    public var setNames: [Name] { Name.allCases.filter { bytes(of: $0) != nil } }

    /// Whether every attribute set here has the same value in `other` (the filter rule of a query).
    ///
    /// - Parameter other: The stored attributes.
    /// - Returns: `true` when `other` matches this filter.
    public func isMatched(by other: ItemAttributes) -> Bool {
        func same<T: Equatable>(_ filter: T?, _ stored: T?) -> Bool { filter == nil || filter == stored }
        return same(service, other.service) && same(account, other.account) && same(label, other.label)
            && same(generic, other.generic) && same(server, other.server) && same(`protocol`, other.protocol)
            && same(port, other.port) && same(path, other.path) && same(securityDomain, other.securityDomain)
            && same(authenticationType, other.authenticationType) && same(applicationTag, other.applicationTag)
            && same(applicationLabel, other.applicationLabel) && same(keyType, other.keyType)
            && same(issuer, other.issuer) && same(serialNumber, other.serialNumber)
    }

    /// These attributes with every field set in `changes` replacing the stored one.
    ///
    /// - Parameter changes: The new values; unset fields leave the stored value alone.
    /// - Returns: The merged attributes.
    public func merging(_ changes: ItemAttributes) -> ItemAttributes {
        var merged = self
        if let value = changes.service { merged.service = value }
        if let value = changes.account { merged.account = value }
        if let value = changes.label { merged.label = value }
        if let value = changes.generic { merged.generic = value }
        if let value = changes.server { merged.server = value }
        if let value = changes.protocol { merged.protocol = value }
        if let value = changes.port { merged.port = value }
        if let value = changes.path { merged.path = value }
        if let value = changes.securityDomain { merged.securityDomain = value }
        if let value = changes.authenticationType { merged.authenticationType = value }
        if let value = changes.applicationTag { merged.applicationTag = value }
        if let value = changes.applicationLabel { merged.applicationLabel = value }
        if let value = changes.keyType { merged.keyType = value }
        if let value = changes.issuer { merged.issuer = value }
        if let value = changes.serialNumber { merged.serialNumber = value }
        return merged
    }
}

extension ItemAttributes: Sendable {}
