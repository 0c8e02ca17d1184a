public import Foundation

// The Core Foundation types the Security trust simulation's declarations use, as plain Swift types: on Apple
// platforms they are toll-free bridged CF objects, so the same spelling (`data as CFData`, `array as CFArray`,
// `SecTrustCopyCertificateChain(trust) as? [SecCertificate]`) compiles on both sides.

// https://developer.apple.com/documentation/corefoundation/cftyperef
/// An untyped "generic" reference to any Core Foundation object.
public typealias CFTypeRef = AnyObject

// https://developer.apple.com/documentation/corefoundation/cfindex
/// An integer type used throughout Core Foundation as an array index and count.
public typealias CFIndex = Int

// https://developer.apple.com/documentation/corefoundation/cfdata
/// A reference to an immutable data object (simulated as `Data`).
public typealias CFData = Data

// https://developer.apple.com/documentation/corefoundation/cfarray
/// A reference to an immutable array object (simulated as `[Any]`).
public typealias CFArray = [Any]

// https://developer.apple.com/documentation/corefoundation/cfstring
/// A reference to a CFString object (simulated as `String`).
public typealias CFString = String

// https://developer.apple.com/documentation/corefoundation/cfdate
/// A reference to a CFDate object (simulated as `Date`).
public typealias CFDate = Date

// https://developer.apple.com/documentation/corefoundation/cfallocator
/// An allocator; the simulation ignores it (pass `nil` or `kCFAllocatorDefault`).
public final class CFAllocator: Sendable {
    init() {}
}

// https://developer.apple.com/documentation/corefoundation/kcfallocatordefault
/// The default allocator.
public let kCFAllocatorDefault: CFAllocator? = nil

// https://developer.apple.com/documentation/corefoundation/cferror
/// An error: a domain, a code and a description (Security's trust errors use `NSOSStatusErrorDomain` with the
/// OSStatus as code).
public final class CFError: Error, Sendable, CustomStringConvertible {
    let domain: String
    let code: CFIndex
    let text: String

    init(domain: String, code: CFIndex, description: String) {
        self.domain = domain
        self.code = code
        self.text = description
    }

    /// `Error Domain=<domain> Code=<code> "<description>"`, as Foundation prints an NSError.
    public var description: String { "Error Domain=\(domain) Code=\(code) \"\(text)\"" }
}

// https://developer.apple.com/documentation/corefoundation/cferrorgetcode(_:)
/// Returns the error code for a given CFError.
///
/// - Parameter err: The CFError to examine.
/// - Returns: The error code of `err`.
public func CFErrorGetCode(_ err: CFError) -> CFIndex { err.code }

// https://developer.apple.com/documentation/corefoundation/cferrorgetdomain(_:)
/// Returns the error domain for a given CFError.
///
/// - Parameter err: The CFError to examine.
/// - Returns: The error domain of `err`.
public func CFErrorGetDomain(_ err: CFError) -> CFString { err.domain }

// https://developer.apple.com/documentation/corefoundation/cferrorcopydescription(_:)
/// Returns a human-presentable description for a given error.
///
/// - Parameter err: The CFError to examine.
/// - Returns: A description of `err`.
public func CFErrorCopyDescription(_ err: CFError) -> CFString { err.text }
