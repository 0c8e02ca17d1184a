internal import RampartX509
import Synchronization

/// The simulated device's trust store: the anchors a `SecTrust` trusts when no anchors of its own are set (or
/// `SecTrustSetAnchorCertificatesOnly(trust, false)` adds them back). Not an Apple declaration: iOS's store is the
/// system's; here it is Debian's CA bundle plus what a test installs.
public enum SimulatedTrustStore {
    private static let state = Mutex<(extra: [SecCertificate], includesSystemBundle: Bool)>(([], true))

    /// Installs anchors the simulated device trusts, as if they were in its trust store (a test's private root).
    ///
    /// - Parameters:
    ///   - anchors: The roots to trust.
    ///   - includesSystemBundle: Whether Debian's CA bundle is trusted too (`false` makes tests independent of it).
    public static func install(_ anchors: [SecCertificate], includesSystemBundle: Bool = true) {
        state.withLock { $0 = (anchors, includesSystemBundle) }
    }

    static var current: (extra: [SecCertificate], includesSystemBundle: Bool) { state.withLock { $0 } }
}
