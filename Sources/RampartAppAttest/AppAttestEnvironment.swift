/// The App Attest environment an object was made in, identified by the AAGUID of its authenticator data.
///
/// Apps built with the `com.apple.developer.devicecheck.appattest-environment` entitlement set to `development` get
/// keys from the development environment, whose attestations a production server must refuse.
public enum AppAttestEnvironment: String, Sendable, Hashable, CaseIterable {
    /// AAGUID `appattest` followed by seven zero bytes.
    case production
    /// AAGUID `appattestdevelop`.
    case development

    /// The 16-byte AAGUID Apple writes for this environment.
    public var aaguid: [UInt8] {
        switch self {
        case .production: Array("appattest".utf8) + [UInt8](repeating: 0, count: 7)
        case .development: Array("appattestdevelop".utf8)
        }
    }

    /// The environment an AAGUID names, or nil when it names neither.
    ///
    /// - Parameter aaguid: The 16 bytes from the attested credential data.
    public init?(aaguid: [UInt8]) {
        guard let match = Self.allCases.first(where: { $0.aaguid == aaguid }) else { return nil }
        self = match
    }
}
