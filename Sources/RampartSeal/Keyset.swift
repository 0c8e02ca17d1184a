import Foundation
public import RampartCrypto

/// Named key-encryption keys: one primary that seals, older ones that still open.
///
/// Each key is 32 random bytes with the id `name/vN`. ``rotate()`` adds a key and makes it primary; files sealed
/// earlier keep opening with their old key until ``SealedFile/rewrap(at:using:)`` re-wraps their data keys under the
/// new primary, without touching their bodies. After every file is re-wrapped, ``removeKey(id:)`` retires the old key.
///
/// A keyset serializes to a small binary form (``serialized()``) that is kept in a secret store (the vault), never
/// next to the data.
public struct Keyset: Sendable {
    /// DoS limit: a serialized keyset holds at most 1,000 keys.
    public static let maximumKeyCount = 1_000
    /// The longest keyset name: the key id `name/vN` must fit the header's 255 bytes.
    public static let maximumNameByteCount = 200

    private struct Entry: Sendable {
        let version: UInt32
        let key: SymmetricKey
    }

    /// The keyset's name, the first part of every key id.
    public let name: String
    private var entries: [Entry]
    private var primaryVersion: UInt32

    /// Creates a keyset with one fresh random primary key, `name/v1`.
    ///
    /// - Parameter name: 1…200 characters from `A-Z a-z 0-9 . _ : @ + -`.
    /// - Throws: ``SealError/Code/invalidParameter`` for an invalid name.
    public init(name: String) throws {
        try Self.checkName(name)
        self.name = name
        self.entries = [Entry(version: 1, key: SymmetricKey(randomByteCount: 32))]
        self.primaryVersion = 1
    }

    private static func checkName(_ name: String) throws {
        let bytes = Array(name.utf8)
        guard bytes.count <= maximumNameByteCount, !bytes.contains(UInt8(ascii: "/")),
            SealHeader.keyID(bytes) != nil
        else {
            throw SealError.invalidParameter(
                "a keyset name must be 1…\(maximumNameByteCount) characters from A-Z a-z 0-9 . _ : @ + -")
        }
    }

    private func id(_ version: UInt32) -> String { "\(name)/v\(version)" }

    /// The id of the primary key, which seals new files.
    public var primaryID: String { id(primaryVersion) }

    /// The primary key.
    var primaryKey: SymmetricKey {
        entries.first { $0.version == primaryVersion }?.key ?? SymmetricKey(bytes: [UInt8]())
    }

    /// Every key id, oldest first.
    public var keyIDs: [String] { entries.map { id($0.version) } }

    /// The key with `id`, if the keyset holds it.
    ///
    /// - Parameter id: A key id such as `backups/v2`.
    /// - Returns: The key, or nil.
    public func key(id: String) -> SymmetricKey? {
        entries.first { self.id($0.version) == id }?.key
    }

    /// Adds a fresh random key without making it primary (stage it everywhere first, then ``promote(id:)``).
    ///
    /// - Returns: The new key's id.
    /// - Throws: ``SealError/Code/limitExceeded`` when the keyset already holds ``maximumKeyCount`` keys.
    @discardableResult
    public mutating func addKey() throws -> String {
        guard entries.count < Self.maximumKeyCount else {
            throw SealError.limitExceeded(
                "keyset '\(name)' already holds \(Self.maximumKeyCount) keys; remove retired keys first")
        }
        let newest = entries.map(\.version).max() ?? 0
        guard newest < UInt32.max else {
            throw SealError.limitExceeded("keyset '\(name)' has used every key version up to \(UInt32.max)")
        }
        let version = newest + 1
        entries.append(Entry(version: version, key: SymmetricKey(randomByteCount: 32)))
        return id(version)
    }

    /// Makes an existing key the primary.
    ///
    /// - Parameter id: The key id.
    /// - Throws: ``SealError/Code/unknownKeyID`` when the keyset lacks it.
    public mutating func promote(id: String) throws {
        guard let entry = entries.first(where: { self.id($0.version) == id }) else {
            throw SealError.unknownKeyID("keyset '\(name)' holds no key '\(id)'")
        }
        primaryVersion = entry.version
    }

    /// Adds a fresh key and makes it primary.
    ///
    /// - Returns: The new primary's id.
    /// - Throws: ``SealError/Code/limitExceeded`` when the keyset is full.
    @discardableResult
    public mutating func rotate() throws -> String {
        let id = try addKey()
        try promote(id: id)
        return id
    }

    /// Removes a retired key; files still wrapped under it will no longer open.
    ///
    /// - Parameter id: The key id; not the primary.
    /// - Throws: ``SealError/Code/unknownKeyID`` when absent, ``SealError/Code/invalidParameter`` for the primary.
    public mutating func removeKey(id: String) throws {
        guard let index = entries.firstIndex(where: { self.id($0.version) == id }) else {
            throw SealError.unknownKeyID("keyset '\(name)' holds no key '\(id)'")
        }
        guard entries[index].version != primaryVersion else {
            throw SealError.invalidParameter("'\(id)' is the primary key; promote another key before removing it")
        }
        entries.remove(at: index)
    }
}

// MARK: - Serialization

extension Keyset {
    /// The serialized form's format version.
    static let formatVersion: UInt8 = 1
    static let magic: [UInt8] = Array("RKEYSET".utf8)

    /// The binary form kept in a secret store:
    /// `"RKEYSET" ‖ version 1 ‖ name length u8 ‖ name ‖ primary u32 ‖ count u16 ‖ (version u32 ‖ key 32 bytes)*`.
    ///
    /// - Important: The result holds every key in the clear; store it only in a secret store.
    /// - Returns: The bytes.
    public func serialized() -> [UInt8] {
        var writer = ByteWriter()
        writer.append(contentsOf: Self.magic)
        writer.append(Self.formatVersion)
        writer.append(UInt8(truncatingIfNeeded: name.utf8.count))
        writer.append(contentsOf: Array(name.utf8))
        writer.append(primaryVersion)
        writer.append(UInt16(truncatingIfNeeded: entries.count))
        for entry in entries {
            writer.append(entry.version)
            entry.key.withUnsafeBytes { writer.append(contentsOf: Array($0)) }
        }
        return writer.bytes
    }

    /// Parses the form written by ``serialized()``.
    ///
    /// - Parameter bytes: The serialized keyset.
    /// - Throws: ``SealError/Code/malformedKeyset`` for any structural fault, duplicate versions, a missing primary or
    ///   trailing bytes; ``SealError/Code/limitExceeded`` above ``maximumKeyCount`` keys.
    public init(serialized bytes: [UInt8]) throws {
        var reader = ByteReader(bytes, what: "keyset", code: .malformedKeyset)
        guard try reader.readBytes(Self.magic.count) == Self.magic, try reader.readByte() == Self.formatVersion else {
            throw SealError.malformedKeyset("this is not a version-1 Rampart keyset")
        }
        let nameBytes = try reader.readBytes(Int(try reader.readByte()))
        let name = String(decoding: nameBytes, as: UTF8.self)
        do {
            try Self.checkName(name)
        } catch {
            throw SealError.malformedKeyset("the keyset's name is invalid")
        }
        let primary = try reader.readUInt32()
        let count = Int(try reader.readUInt16())
        guard count <= Self.maximumKeyCount else {
            throw SealError.limitExceeded(
                "a keyset holds at most \(Self.maximumKeyCount) keys; this one claims \(count)")
        }
        var entries: [Entry] = []
        for _ in 0..<count {
            let version = try reader.readUInt32()
            let key = try reader.readBytes(32)
            guard version > 0, !entries.contains(where: { $0.version == version }) else {
                throw SealError.malformedKeyset("the keyset repeats key version \(version) or uses version 0")
            }
            entries.append(Entry(version: version, key: SymmetricKey(bytes: key)))
        }
        try reader.finish()
        guard entries.contains(where: { $0.version == primary }) else {
            throw SealError.malformedKeyset("the keyset's primary key v\(primary) is not among its keys")
        }
        self.name = name
        self.entries = entries
        self.primaryVersion = primary
    }
}
