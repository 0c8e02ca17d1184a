/// The subset of Apple's Security, DeviceCheck, CryptoKit and URLSession-trust APIs that RampartApple calls,
/// transcribed from Apple's documentation and behaving as documented, so RampartApple's adapters compile and run on
/// Linux unchanged.
///
/// Every declaration carries the URL of the Apple documentation page it was transcribed from. This module is built
/// on Linux only: on Apple platforms the adapters import the real frameworks (`#if canImport(Security)`).
///
/// The namespace is not called `RampartAppleSimulation`: a type named like its module would hide every
/// module-qualified name (`RampartAppleSimulation.SymmetricKey`), which the CryptoKit backend needs.
public enum AppleSimulation {
    /// The Apple SDK release whose documentation the declarations follow.
    public static let transcribedFrom = "developer.apple.com documentation, iOS 18 / macOS 15 SDK"
}
