/// RampartApple: thin adapters between Apple's frameworks and Rampart's cross-platform modules.
///
/// Each adapter only translates: the decisions (pin policies, Keychain semantics, request signing) stay in
/// RampartPinning, RampartSecretStore and RampartAttestClient, which servers and tests run too.
public enum RampartApple {
    /// The Apple frameworks the adapters call.
    public static let frameworks = ["Security", "DeviceCheck", "CryptoKit", "Foundation (URLSession)"]
}
