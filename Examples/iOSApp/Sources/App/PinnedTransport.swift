#if canImport(Security)
import Foundation
import RampartApple
import RampartAttestClient

/// `AttestedClient`'s transport over a `URLSession` whose delegate is Rampart's pinning delegate: every
/// connection to the API passes the default trust evaluation, then the app's pins.
extension AppEnvironment {
    /// A transport for ``PointsService`` and the app's other API calls.
    var transport: URLSessionTransport {
        let session = URLSession(configuration: .ephemeral, delegate: pinning, delegateQueue: nil)
        return URLSessionTransport(baseURL: baseURL, session: session)
    }
}
#endif
