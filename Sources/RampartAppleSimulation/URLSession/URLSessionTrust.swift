public import Foundation

// How the simulation provides URLSession's trust-challenge API: on Linux, FoundationNetworking has URLSession and
// URLProtectionSpace but no `serverTrust` (there is no SecTrust), so this module declares its own types under
// Apple's names, as Apple declares them, for the part RampartApple's delegate calls. RampartApple (and its tests)
// import this module and not FoundationNetworking, so the names never meet; on Apple platforms the same adapter
// source imports Foundation and Security instead. Only the simulation can make a server-trust challenge (on a
// device one comes from a TLS handshake); the initializers that do so are marked as not Apple's.

// https://developer.apple.com/documentation/foundation/nsurlauthenticationmethodservertrust
/// Perform server trust authentication (certificate validation) for this protection space.
public let NSURLAuthenticationMethodServerTrust = "NSURLAuthenticationMethodServerTrust"

// https://developer.apple.com/documentation/foundation/nsurlauthenticationmethoddefault
/// Use the default authentication method for a protocol.
public let NSURLAuthenticationMethodDefault = "NSURLAuthenticationMethodDefault"

// https://developer.apple.com/documentation/foundation/nsurlauthenticationmethodhttpbasic
/// Use HTTP basic authentication for this protection space.
public let NSURLAuthenticationMethodHTTPBasic = "NSURLAuthenticationMethodHTTPBasic"

// https://developer.apple.com/documentation/foundation/urlprotectionspace
/// A server or an area on a server, commonly referred to as a realm, that requires authentication.
public final class URLProtectionSpace: NSObject, Sendable {
    // https://developer.apple.com/documentation/foundation/urlprotectionspace/host
    /// The receiver's host.
    public let host: String
    // https://developer.apple.com/documentation/foundation/urlprotectionspace/port
    /// The receiver's port.
    public let port: Int
    // https://developer.apple.com/documentation/foundation/urlprotectionspace/protocol
    /// The receiver's protocol.
    public let `protocol`: String?
    // https://developer.apple.com/documentation/foundation/urlprotectionspace/realm
    /// The authentication realm for the receiver.
    public let realm: String?
    // https://developer.apple.com/documentation/foundation/urlprotectionspace/authenticationmethod
    /// The authentication method used by the receiver.
    public let authenticationMethod: String
    // https://developer.apple.com/documentation/foundation/urlprotectionspace/servertrust
    /// A representation of the server's SSL transaction state; nil if the authentication method of the protection
    /// space is not server trust.
    public let serverTrust: SecTrust?

    // https://developer.apple.com/documentation/foundation/urlprotectionspace/init(host:port:protocol:realm:authenticationmethod:)
    /// Creates a protection space object from the given host, port, protocol, realm, and authentication method.
    ///
    /// - Parameters:
    ///   - host: The host name for the protection space object.
    ///   - port: The port for the protection space object.
    ///   - protocol: The protocol for the protection space object.
    ///   - realm: A string indicating a protocol-specific subdivision of the host.
    ///   - authenticationMethod: The type of authentication to use (`NSURLAuthenticationMethodDefault` when nil).
    public init(host: String, port: Int, protocol: String?, realm: String?, authenticationMethod: String?) {
        self.host = host
        self.port = port
        self.protocol = `protocol`
        self.realm = realm
        self.authenticationMethod = authenticationMethod ?? NSURLAuthenticationMethodDefault
        self.serverTrust = nil
    }

    /// Not an Apple declaration: the protection space of a TLS handshake's server-trust challenge, as the URL
    /// loading system builds it on a device.
    ///
    /// - Parameters:
    ///   - serverTrust: The trust object holding the server's certificates and an SSL policy for `host`.
    ///   - host: The host connected to.
    ///   - port: The port; 443 by default.
    public init(simulatedServerTrust serverTrust: SecTrust, host: String, port: Int = 443) {
        self.host = host
        self.port = port
        self.protocol = "https"
        self.realm = nil
        self.authenticationMethod = NSURLAuthenticationMethodServerTrust
        self.serverTrust = serverTrust
    }
}

// https://developer.apple.com/documentation/foundation/urlcredential
/// An authentication credential consisting of information specific to the type of credential and the type of
/// persistent storage to use, if any.
public final class URLCredential: NSObject, Sendable {
    let trust: SecTrust?

    // https://developer.apple.com/documentation/foundation/urlcredential/init(trust:)
    /// Creates a URL credential instance for server trust authentication, initialized with an accepted trust.
    ///
    /// - Parameter trust: The accepted trust.
    public init(trust: SecTrust) { self.trust = trust }
}

// https://developer.apple.com/documentation/foundation/urlauthenticationchallenge
/// A challenge from a server requiring authentication from the client.
public final class URLAuthenticationChallenge: NSObject, Sendable {
    // https://developer.apple.com/documentation/foundation/urlauthenticationchallenge/protectionspace
    /// The receiver's protection space.
    public let protectionSpace: URLProtectionSpace
    // https://developer.apple.com/documentation/foundation/urlauthenticationchallenge/proposedcredential
    /// The proposed credential for this challenge.
    public let proposedCredential: URLCredential?
    // https://developer.apple.com/documentation/foundation/urlauthenticationchallenge/previousfailurecount
    /// The receiver's count of failed authentication attempts.
    public let previousFailureCount: Int

    /// Not Apple's initializer (which also takes a failure response and a sender the simulation has no use for): a
    /// challenge for `protectionSpace`, as the URL loading system hands one to a delegate.
    ///
    /// - Parameters:
    ///   - protectionSpace: The protection space.
    ///   - proposedCredential: A proposed credential, or nil.
    ///   - previousFailureCount: Failed attempts so far.
    public init(protectionSpace: URLProtectionSpace, proposedCredential: URLCredential?, previousFailureCount: Int) {
        self.protectionSpace = protectionSpace
        self.proposedCredential = proposedCredential
        self.previousFailureCount = previousFailureCount
    }
}

// https://developer.apple.com/documentation/foundation/urlsession
/// An object that coordinates a group of related, network data transfer tasks (simulated: only the identity the
/// delegate methods receive).
public final class URLSession: NSObject, Sendable {
    // https://developer.apple.com/documentation/foundation/urlsession/shared
    /// The shared singleton session object.
    public static let shared = URLSession()

    override private init() {}

    // https://developer.apple.com/documentation/foundation/urlsession/authchallengedisposition
    /// Constants passed by session or task delegates to the provided continuation block in response to an
    /// authentication challenge.
    public enum AuthChallengeDisposition: Int, Sendable {
        // https://developer.apple.com/documentation/foundation/urlsession/authchallengedisposition/usecredential
        /// Use the specified credential, which may be nil.
        case useCredential = 0
        // https://developer.apple.com/documentation/foundation/urlsession/authchallengedisposition/performdefaulthandling
        /// Use the default handling for the challenge as though this delegate method were not implemented.
        case performDefaultHandling = 1
        // https://developer.apple.com/documentation/foundation/urlsession/authchallengedisposition/cancelauthenticationchallenge
        /// Cancel the entire request.
        case cancelAuthenticationChallenge = 2
        // https://developer.apple.com/documentation/foundation/urlsession/authchallengedisposition/rejectprotectionspace
        /// Reject this challenge, and call the authentication delegate method again with the next protection space.
        case rejectProtectionSpace = 3
    }
}

// https://developer.apple.com/documentation/foundation/urlsessiontask
/// A task, like downloading a specific resource, performed in a URL session.
public final class URLSessionTask: NSObject, Sendable {
    /// Not how a task is made on a device (a session makes it): a task object for a delegate test.
    override public init() {}
}

// https://developer.apple.com/documentation/foundation/urlsessiondelegate
/// A protocol that defines methods that URL session instances call on their delegates to handle session-level
/// events, like session life cycle changes.
public protocol URLSessionDelegate: NSObjectProtocol, Sendable {
    // https://developer.apple.com/documentation/foundation/urlsessiondelegate/urlsession(_:didreceive:completionhandler:)
    /// Requests credentials from the delegate in response to a session-level authentication request from the remote
    /// server. (Optional in Apple's protocol; the default performs default handling.)
    ///
    /// - Parameters:
    ///   - session: The session containing the task that requested authentication.
    ///   - challenge: An object that contains the request for authentication.
    ///   - completionHandler: A handler that your delegate method must call.
    func urlSession(
        _ session: URLSession,
        didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    )
}

extension URLSessionDelegate {
    /// Default handling, as for a delegate that does not implement the optional method.
    ///
    /// - Parameters:
    ///   - session: The session.
    ///   - challenge: The challenge.
    ///   - completionHandler: Called with `.performDefaultHandling`.
    public func urlSession(
        _ session: URLSession,
        didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) { completionHandler(.performDefaultHandling, nil) }
}

// https://developer.apple.com/documentation/foundation/urlsessiontaskdelegate
/// A protocol that defines methods that URL session instances call on their delegates to handle task-level events.
public protocol URLSessionTaskDelegate: URLSessionDelegate {
    // https://developer.apple.com/documentation/foundation/urlsessiontaskdelegate/urlsession(_:task:didreceive:completionhandler:)
    /// Requests credentials from the delegate in response to an authentication request from the remote server.
    /// (Optional in Apple's protocol; the default performs default handling.)
    ///
    /// - Parameters:
    ///   - session: The session containing the task whose request requires authentication.
    ///   - task: The task whose request requires authentication.
    ///   - challenge: An object that contains the request for authentication.
    ///   - completionHandler: A handler that your delegate method must call.
    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    )
}

extension URLSessionTaskDelegate {
    /// Default handling, as for a delegate that does not implement the optional method.
    ///
    /// - Parameters:
    ///   - session: The session.
    ///   - task: The task.
    ///   - challenge: The challenge.
    ///   - completionHandler: Called with `.performDefaultHandling`.
    public func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) { completionHandler(.performDefaultHandling, nil) }
}
