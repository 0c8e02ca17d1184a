/// One data item of the CBOR subset App Attest uses (RFC 8949).
///
/// Attestation objects, assertions, COSE keys and the iOS 27 authenticator-data extension map are built from unsigned
/// and negative integers, byte and text strings, arrays and maps. `false`, `true` and `null` are read too. Floats, tags,
/// `undefined` and indefinite lengths never appear in Apple's objects and are rejected by ``CBORDecoder``.
public indirect enum CBORValue: Hashable {
    /// Major type 0: an unsigned integer.
    case unsignedInteger(UInt64)
    /// Major type 1: the negative integer `-1 - n`, holding `n`.
    case negativeInteger(UInt64)
    /// Major type 2: a byte string.
    case byteString([UInt8])
    /// Major type 3: a UTF-8 text string.
    case textString(String)
    /// Major type 4: an array.
    case array([CBORValue])
    /// Major type 5: a map, its entries in encoded order (keys are unique).
    case map([CBORMapEntry])
    /// Major type 7, simple values 20 and 21.
    case boolean(Bool)
    /// Major type 7, simple value 22.
    case null

    /// The value for a text key when `self` is a map.
    ///
    /// - Parameter key: The text key.
    /// - Returns: The value, or nil when `self` is not a map or has no such key.
    public subscript(key: String) -> CBORValue? {
        guard case .map(let entries) = self else { return nil }
        return entries.first { $0.key == .textString(key) }?.value
    }

    /// The value for an integer key (COSE labels) when `self` is a map.
    ///
    /// - Parameter key: The integer key.
    /// - Returns: The value, or nil when `self` is not a map or has no such key.
    public subscript(integerKey key: Int64) -> CBORValue? {
        guard case .map(let entries) = self else { return nil }
        let wanted: CBORValue =
            key >= 0 ? .unsignedInteger(UInt64(key)) : .negativeInteger(UInt64(-(key + 1)))
        return entries.first { $0.key == wanted }?.value
    }

    /// The bytes of a byte string; nil for any other type.
    public var byteStringValue: [UInt8]? {
        if case .byteString(let bytes) = self { return bytes }
        return nil
    }

    /// The text of a text string; nil for any other type.
    public var textStringValue: String? {
        if case .textString(let text) = self { return text }
        return nil
    }

    /// The value of an integer that fits in `Int64`; nil for any other type or magnitude.
    public var integerValue: Int64? {
        switch self {
        case .unsignedInteger(let value): Int64(exactly: value)
        case .negativeInteger(let value): Int64(exactly: value).map { -1 - $0 }
        default: nil
        }
    }

    /// The entries of a map; nil for any other type.
    public var mapEntries: [CBORMapEntry]? {
        if case .map(let entries) = self { return entries }
        return nil
    }

    /// The elements of an array; nil for any other type.
    public var arrayElements: [CBORValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }
}

/// One key/value pair of a CBOR map.
public struct CBORMapEntry: Hashable {
    /// The key.
    public let key: CBORValue
    /// The value.
    public let value: CBORValue

    /// Pairs a key with a value.
    ///
    /// - Parameters:
    ///   - key: The key.
    ///   - value: The value.
    public init(_ key: CBORValue, _ value: CBORValue) {
        self.key = key
        self.value = value
    }
}

extension CBORValue: Sendable {}

extension CBORMapEntry: Sendable {}
