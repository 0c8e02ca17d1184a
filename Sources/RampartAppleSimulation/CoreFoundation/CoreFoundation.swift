public import Foundation

// Core Foundation stand-ins for the Security and DeviceCheck simulation.
//
// Linux Swift has no Core Foundation bridging (`as CFDictionary`, `as String` on a CFString), so the container types
// are type aliases of the Swift types Apple's overlays bridge them to: adapter code written the Apple way
// (`query as CFDictionary`, `kSecClass as String`, `result as? Data`) compiles unchanged on both sides. Values
// (`kSecClass` and the other keys) are opaque strings: on Apple platforms their contents are private.

// https://developer.apple.com/documentation/corefoundation/cftyperef
/// Any Core Foundation object (Apple: `typealias CFTypeRef = AnyObject`).
public typealias CFTypeRef = AnyObject

// https://developer.apple.com/documentation/corefoundation/cfstring
/// A string; Apple's is a class toll-free bridged to `String`, here `String` itself.
public typealias CFString = String

// https://developer.apple.com/documentation/corefoundation/cfdictionary
/// A dictionary; Apple's is a class bridged to `[String: Any]` for Security's keys, here that dictionary itself.
public typealias CFDictionary = [String: Any]

// https://developer.apple.com/documentation/corefoundation/cfdata
/// Bytes; Apple's is a class bridged to `Data`, here `Data` itself.
public typealias CFData = Data

// https://developer.apple.com/documentation/corefoundation/cfarray
/// An array; Apple's is a class bridged to `[Any]`, here that array itself (`certificates as CFArray`).
public typealias CFArray = [Any]

// https://developer.apple.com/documentation/corefoundation/cfdate
/// A point in time; Apple's is a class bridged to `Date`, here `Date` itself.
public typealias CFDate = Date

// https://developer.apple.com/documentation/corefoundation/cfindex
/// A count or index (Apple: `typealias CFIndex = Int`).
public typealias CFIndex = Int

// https://developer.apple.com/documentation/corefoundation/cfoptionflags
/// Option bits (Apple: `typealias CFOptionFlags = UInt`).
public typealias CFOptionFlags = UInt

// https://developer.apple.com/documentation/corefoundation/cfallocator
/// A memory allocator; the simulation ignores it (pass nil or ``kCFAllocatorDefault``).
public final class CFAllocator: Sendable {
    init() {}
}

// https://developer.apple.com/documentation/corefoundation/kcfallocatordefault
/// The default allocator (Apple: `let kCFAllocatorDefault: CFAllocator!`).
// swift-format-ignore: NeverUseImplicitlyUnwrappedOptionals
public let kCFAllocatorDefault: CFAllocator! = CFAllocator()

// https://developer.apple.com/documentation/corefoundation/cferror
/// An error with a domain and a code; as on Apple platforms it is an `Error`, so `takeRetainedValue() as Error` works.
public final class CFError: Error, Sendable, CustomStringConvertible {
    /// The error domain, e.g. `NSOSStatusErrorDomain` for Security's `OSStatus` codes.
    public let domain: String
    /// The code, e.g. `errSecUserCanceled`.
    public let code: CFIndex
    /// What went wrong.
    public let description: String

    init(domain: String, code: CFIndex, description: String) {
        self.domain = domain
        self.code = code
        self.description = description
    }

    /// An `NSOSStatusErrorDomain` error for a Security status, as `SecKey` and `SecAccessControl` functions report.
    static func osStatus(_ status: OSStatus, _ description: String) -> CFError {
        CFError(domain: "NSOSStatusErrorDomain", code: CFIndex(status), description: description)
    }

    /// The error a Secure Enclave key operation gives for a failed user check, in LocalAuthentication's domain
    /// (`kLAErrorDomain`, LAPublicDefines.h), as CryptoTokenKit passes it on; other statuses stay `OSStatus` errors.
    ///
    /// The codes are LAPublicDefines.h's: `kLAErrorUserCancel` (-2) for `errSecUserCanceled`,
    /// `kLAErrorAuthenticationFailed` (-1) for `errSecAuthFailed`, `kLAErrorNotInteractive` (-1004) for
    /// `errSecInteractionNotAllowed`; Security maps them back the same way (OSX/sec/Security/SecItem.m:203-215).
    static func secureEnclave(_ status: OSStatus, _ description: String) -> CFError {
        let code: CFIndex
        switch status {
        case errSecUserCanceled: code = -2
        case errSecAuthFailed: code = -1
        case errSecInteractionNotAllowed: code = -1004
        default: return osStatus(status, description)
        }
        return CFError(domain: "com.apple.LocalAuthentication", code: code, description: description)
    }

    /// Stores `self` retained in `pointer`, as a Core Foundation `CFErrorRef *` out-parameter.
    func store(in pointer: UnsafeMutablePointer<Unmanaged<CFError>?>?) {
        pointer?.pointee = Unmanaged.passRetained(self)
    }
}

// https://developer.apple.com/documentation/corefoundation/cferrorgetcode(_:)
/// Returns the error code of a `CFError` (Apple: `func CFErrorGetCode(_ err: CFError!) -> CFIndex`).
///
/// - Parameter err: The error.
/// - Returns: Its code.
// swift-format-ignore: NeverUseImplicitlyUnwrappedOptionals
public func CFErrorGetCode(_ err: CFError!) -> CFIndex { err.code }

// https://developer.apple.com/documentation/corefoundation/cferrorgetdomain(_:)
/// Returns the error domain of a `CFError` (Apple: `func CFErrorGetDomain(_ err: CFError!) -> CFErrorDomain!`).
///
/// - Parameter err: The error.
/// - Returns: Its domain.
// swift-format-ignore: NeverUseImplicitlyUnwrappedOptionals
public func CFErrorGetDomain(_ err: CFError!) -> CFString { err.domain }

// https://developer.apple.com/documentation/corefoundation/cferrorcopydescription(_:)
/// Returns a human-presentable description of a `CFError` (Apple: `func CFErrorCopyDescription(_ err: CFError!) ->
/// CFString!`).
///
/// - Parameter err: The error.
/// - Returns: Its description.
// swift-format-ignore: NeverUseImplicitlyUnwrappedOptionals
public func CFErrorCopyDescription(_ err: CFError!) -> CFString { err.description }
