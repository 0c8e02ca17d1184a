public import RampartX509

extension PinPolicy {
    /// The policy Apple advises for `host`, built from a *verified* path: the keys of every CA certificate
    /// (intermediates and root) in `NSPinnedCAIdentities`, or with `pinLeaf` the leaf's key in
    /// `NSPinnedLeafIdentities`.
    ///
    /// - Parameters:
    ///   - host: The domain to pin.
    ///   - path: The verified path, leaf first (`ChainVerdict.path`); never pin an unverified chain.
    ///   - pinLeaf: Pin the leaf key instead of the CA keys.
    ///   - includesSubdomains: Set `NSIncludesSubdomains`.
    /// - Returns: The policy.
    /// - Throws: ``PinningError`` with code `invalidConfiguration` when the path has no certificate of the kind to pin.
    public static func suggested(
        for host: String,
        path: [Certificate],
        pinLeaf: Bool,
        includesSubdomains: Bool
    ) throws -> PinPolicy {
        let chosen = pinLeaf ? Array(path.prefix(1)) : Array(path.dropFirst())
        guard !chosen.isEmpty else {
            throw PinningError.invalidConfiguration(
                "the verified path has no \(pinLeaf ? "leaf" : "CA certificate") to pin; "
                    + (pinLeaf ? "" : "pin the leaf with --leaf"))
        }
        var pins: [Pin] = []
        for certificate in chosen {
            let pin = try Pin(kind: .spkiSHA256, digest: PinMismatch.spkiDigest(certificate))
            if !pins.contains(pin) { pins.append(pin) }
        }
        return PinPolicy(
            domain: host, includesSubdomains: includesSubdomains, caPins: pinLeaf ? nil : pins,
            leafPins: pinLeaf ? pins : nil)
    }
}
