public import Foundation
public import RampartApple
import RampartAttestClient
public import RampartPinning
import RampartSecretStore

/// The app's wiring: the Keychain as the secret store, App Attest through `DCAppAttestService`, and a `URLSession`
/// pinned with the `NSPinnedDomains` of the app's own Info.plist — the same configuration ATS enforces, checked a
/// second time by Rampart so mismatches are reported.
public struct AppEnvironment: Sendable {
    /// The secret store: the data protection keychain.
    public let secrets: KeychainStore
    /// The App Attest device.
    public let device: DeviceCheckAppAttestDevice
    /// The pinning delegate for every session that talks to the API.
    public let pinning: PinningURLSessionDelegate
    /// The API's base URL (Info.plist `RampartAPIBaseURL`).
    public let baseURL: URL

    /// Reads the pins and the API address from an Info.plist.
    ///
    /// - Parameters:
    ///   - infoPlist: The app's Info.plist (`Bundle.main`'s, or a file in tests).
    ///   - report: Called with every pinning decision that refused a connection or mismatched in report-only mode.
    /// - Throws: `PinningError` when the pins cannot be read, `URLError(.badURL)` without `RampartAPIBaseURL`.
    public init(infoPlist: Data, report: (@Sendable (PinningDecision) -> Void)? = nil) throws {
        let configuration = try PinConfiguration(plistData: infoPlist)
        let plist = try PropertyListSerialization.propertyList(from: infoPlist, options: [], format: nil)
        guard let text = (plist as? [String: Any])?["RampartAPIBaseURL"] as? String, let url = URL(string: text) else {
            throw URLError(.badURL)
        }
        secrets = KeychainStore()
        device = DeviceCheckAppAttestDevice()
        pinning = PinningURLSessionDelegate(
            configuration: configuration,
            report: { decision in
                if !decision.isAllowed || decision.outcome == .reportOnlyMismatch { report?(decision) }
            })
        baseURL = url
    }

    /// The session store over the Keychain.
    public var sessions: SessionStore { SessionStore(store: secrets) }
}
