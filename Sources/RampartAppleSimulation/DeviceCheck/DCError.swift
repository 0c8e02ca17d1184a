import Foundation

// https://developer.apple.com/documentation/devicecheck/dcerror-swift.struct
/// An error code that indicates why a method provided by the DeviceCheck framework failed (Apple:
/// `struct DCError: CustomNSError, Hashable, Error`), available as DeviceCheck.framework/Headers/DCError.h of the iOS 18
/// SDK declares it: `API_AVAILABLE(ios(11.0), macos(10.15), tvos(11.0), watchos(9.0))`.
@available(iOS 11.0, macOS 10.15, tvOS 11.0, watchOS 9.0, *)
public struct DCError: Error, Hashable, CustomStringConvertible {
    // https://developer.apple.com/documentation/devicecheck/dcerror-swift.struct/code
    /// Codes that indicate DeviceCheck errors (Apple: `enum Code: Int`).
    public enum Code: Int, Sendable, Hashable {
        // https://developer.apple.com/documentation/devicecheck/dcerror-swift.struct/code/unknownsystemfailure
        /// A failure has occurred, such as the failure to generate a token.
        case unknownSystemFailure = 0
        // https://developer.apple.com/documentation/devicecheck/dcerror-swift.struct/code/featureunsupported
        /// DeviceCheck is unavailable on this device.
        case featureUnsupported = 1
        // https://developer.apple.com/documentation/devicecheck/dcerror-swift.struct/code/invalidinput
        /// An error code that indicates when your app provides data that isn't formatted correctly.
        case invalidInput = 2
        // https://developer.apple.com/documentation/devicecheck/dcerror-swift.struct/code/invalidkey
        /// An error caused by a failed attempt to use the App Attest key.
        case invalidKey = 3
        // https://developer.apple.com/documentation/devicecheck/dcerror-swift.struct/code/serverunavailable
        /// An error that indicates a failed attempt to contact the App Attest service during an attestation.
        case serverUnavailable = 4
    }

    /// The error's code.
    public let code: Code

    /// Wraps a code.
    ///
    /// - Parameter code: The code.
    public init(_ code: Code) { self.code = code }

    // https://developer.apple.com/documentation/devicecheck/dcerror-swift.struct/errordomain
    /// The DeviceCheck error domain (Apple: `static var errorDomain: String`).
    public static var errorDomain: String { "com.apple.devicecheck.error" }

    /// The code's name.
    public var description: String { "DCError(\(code))" }
}
