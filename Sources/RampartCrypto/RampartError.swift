/// The shape every Rampart module's one error type shares.
///
/// Each library module throws a single struct (``CryptoError`` here; `X509Error`, `SealError`, `VaultError`, … in
/// the others) holding a ``Code`` struct over a private enum, a ``reason`` sentence, log ``detail`` and the source
/// location that raised it. The type states its fields and codes; this protocol writes the rest once:
///
/// - `==` compares ``code`` only, and `hash(into:)` hashes ``code`` only, so
///   `#expect(throws: CryptoError.invalidKey(""))` matches any `invalidKey` wherever it was raised and whatever it
///   says.
/// - `description` is `code: reason`: the line a command line prints and a client may see.
/// - `debugDescription` is `TypeName.code: reason [detail] (file:line)`, with the brackets left out when ``detail``
///   is empty: the line a log keeps.
///
/// A conforming type can still write its own `description` or `debugDescription` where it has more to say
/// (`VaultError` adds the Keychain `OSStatus` to its debug description); its own implementation wins.
///
/// - Important: Declare the conformance of a type in another module in its own file, `XError+RampartError.swift`,
///   which does `public import RampartCrypto` in full. Declared in the type's own file, a missing or scoped import
///   makes the compiler quietly synthesise a memberwise `==` and `hash(into:)` (comparing reason, detail and site
///   too); declared apart, where nothing can be synthesised, the same slip is a compile error. See
///   <doc:HandlingErrors>.
///
/// - Important: ``reason`` and therefore `description` never hold secrets, tokens, key bytes or raw attacker input;
///   anything an operator needs beyond that goes in ``detail``, which only `debugDescription` shows.
public protocol RampartError: Error, Hashable, CustomStringConvertible, CustomDebugStringConvertible, Sendable {
    /// The error's kind: a struct over a private enum, so new codes are additive.
    associatedtype Code: Hashable & Sendable & CustomStringConvertible

    /// What kind of failure this is; the only thing two errors are compared and hashed by.
    var code: Code { get }
    /// A sentence saying what went wrong and what to do; never holds secrets or raw input.
    var reason: String { get }
    /// Extra detail for logs (an OpenSSL error queue, a database message), or empty.
    var detail: String { get }
    /// The source file that raised the error (`#fileID`).
    var file: String { get }
    /// The source line that raised the error (`#line`).
    var line: UInt { get }
}

extension RampartError {
    /// `code: reason`.
    public var description: String { "\(code): \(reason)" }

    /// `TypeName.code: reason [detail] (file:line)`; the detail and its brackets are left out when it is empty.
    public var debugDescription: String {
        let extra = detail.isEmpty ? "" : " [\(detail)]"
        return "\(Self.self).\(code): \(reason)\(extra) (\(file):\(line))"
    }

    /// Compares codes only: where and why the errors were raised does not matter.
    ///
    /// - Parameters:
    ///   - lhs: An error.
    ///   - rhs: Another error of the same type.
    /// - Returns: Whether both have the same ``code``.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }

    /// Hashes the code only, consistent with `==`.
    ///
    /// - Parameter hasher: The hasher to feed.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
