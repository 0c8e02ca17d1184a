// https://developer.apple.com/documentation/security/secpolicy
/// An object that represents a trust policy (simulated: the SSL server policy, with or without a host name).
public final class SecPolicy: Sendable {
    let hostname: String?
    let server: Bool

    init(server: Bool, hostname: String?) {
        self.server = server
        self.hostname = hostname
    }
}

// https://developer.apple.com/documentation/security/secpolicycreatessl(_:_:)
/// Returns a policy object for evaluating SSL certificate chains.
///
/// The simulation evaluates a server policy with a host name as a TLS server chain for that name (RampartX509
/// hostname rules, `serverAuth` when the leaf restricts its extended key usage); without a host name, or for a
/// client policy, it checks only the path to an anchor.
///
/// - Parameters:
///   - server: Specify `true` on the client side to return a policy for SSL server certificates.
///   - hostname: If you specify a value, the policy requires it to match the host name in the leaf certificate.
/// - Returns: The policy object.
public func SecPolicyCreateSSL(_ server: Bool, _ hostname: CFString?) -> SecPolicy {
    SecPolicy(server: server, hostname: hostname)
}
