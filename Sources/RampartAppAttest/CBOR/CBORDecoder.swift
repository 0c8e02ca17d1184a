/// A strict, bounded decoder for the CBOR subset App Attest uses (RFC 8949).
///
/// Strictness, beyond RFC 8949 section 5.3 validity:
/// - every length and integer uses its shortest form (RFC 8949 section 4.2.1, "preferred serialization");
/// - indefinite lengths (additional information 31), the reserved values 28–30, tags, floats and simple values other
///   than `false`, `true` and `null` are rejected;
/// - text strings must be valid UTF-8 and map keys unique (RFC 8949 section 5.6);
/// - the input must hold exactly one data item: trailing bytes are an error.
///
/// Limits are checked before any allocation, so a length field cannot make the decoder reserve memory the input does
/// not contain.
public struct CBORDecoder: Sendable {
    /// Named denial-of-service bounds.
    public struct Limits: Sendable, Hashable {
        /// The most bytes one input may hold.
        public var maximumByteCount: Int
        /// The deepest nesting of arrays and maps (the top-level item is depth 1).
        public var maximumDepth: Int
        /// The most data items in one input, counting every key, value and element.
        public var maximumItemCount: Int

        /// Creates limits.
        ///
        /// - Parameters:
        ///   - maximumByteCount: The most bytes one input may hold.
        ///   - maximumDepth: The deepest nesting of arrays and maps.
        ///   - maximumItemCount: The most data items in one input.
        public init(maximumByteCount: Int, maximumDepth: Int, maximumItemCount: Int) {
            self.maximumByteCount = maximumByteCount
            self.maximumDepth = maximumDepth
            self.maximumItemCount = maximumItemCount
        }

        /// Bounds that fit every App Attest object with room to spare: 64 KiB, depth 8, 512 items.
        ///
        /// A real attestation object is about 5.5 KiB (two certificates and a receipt) and nests three deep
        /// (object → attStmt → x5c); an assertion is under 300 bytes.
        public static let appAttest = Limits(maximumByteCount: 64 * 1024, maximumDepth: 8, maximumItemCount: 512)
    }

    /// The limits this decoder enforces.
    public let limits: Limits

    /// Creates a decoder.
    ///
    /// - Parameter limits: The bounds to enforce; ``Limits/appAttest`` by default.
    public init(limits: Limits = .appAttest) {
        self.limits = limits
    }

    /// Decodes exactly one data item from `bytes`.
    ///
    /// - Parameter bytes: The encoded item.
    /// - Returns: The item.
    /// - Throws: ``AppAttestError/Code/malformedCBOR`` for anything outside the strict subset or trailing bytes, and
    ///   ``AppAttestError/Code/limitExceeded`` when a limit is crossed.
    public func decode(_ bytes: [UInt8]) throws -> CBORValue {
        guard bytes.count <= limits.maximumByteCount else {
            throw AppAttestError.limitExceeded(
                "the CBOR input is \(bytes.count) bytes; at most \(limits.maximumByteCount) are accepted"
            )
        }
        var reader = Reader(bytes: bytes, limits: limits)
        let value = try reader.readItem(depth: 1)
        guard reader.offset == bytes.count else {
            throw AppAttestError.malformedCBOR(
                "\(bytes.count - reader.offset) trailing bytes follow the CBOR item; send exactly one item"
            )
        }
        return value
    }

    /// Decodes one data item from the front of `bytes` and says how many bytes it used, for formats (like
    /// authenticator data) that embed CBOR followed by more data.
    ///
    /// - Parameter bytes: Bytes starting with an item.
    /// - Returns: The item and its encoded length.
    /// - Throws: As ``decode(_:)``, except that trailing bytes are allowed.
    public func decodePrefix(_ bytes: ArraySlice<UInt8>) throws -> (value: CBORValue, byteCount: Int) {
        guard bytes.count <= limits.maximumByteCount else {
            throw AppAttestError.limitExceeded(
                "the CBOR input is \(bytes.count) bytes; at most \(limits.maximumByteCount) are accepted"
            )
        }
        var reader = Reader(bytes: Array(bytes), limits: limits)
        let value = try reader.readItem(depth: 1)
        return (value, reader.offset)
    }
}

/// A cursor over the input. Every read checks the remaining length first; no subscript can trap.
private struct Reader {
    let bytes: [UInt8]
    let limits: CBORDecoder.Limits
    var offset = 0
    var itemCount = 0

    init(bytes: [UInt8], limits: CBORDecoder.Limits) {
        self.bytes = bytes
        self.limits = limits
    }

    var remaining: Int { bytes.count - offset }

    mutating func readByte() throws -> UInt8 {
        guard offset < bytes.count else {
            throw AppAttestError.malformedCBOR("the CBOR input ends in the middle of an item")
        }
        let byte = bytes[offset]
        offset += 1
        return byte
    }

    mutating func readBytes(_ count: Int) throws -> ArraySlice<UInt8> {
        guard count >= 0, count <= remaining else {
            throw AppAttestError.malformedCBOR(
                "a CBOR string claims \(count) bytes but only \(remaining) remain"
            )
        }
        let slice = bytes[offset..<(offset + count)]
        offset += count
        return slice
    }

    /// Reads the argument of an initial byte (RFC 8949 section 3), insisting on its shortest form.
    mutating func readArgument(_ additional: UInt8) throws -> UInt64 {
        switch additional {
        case 0..<24:
            return UInt64(additional)
        case 24:
            let value = UInt64(try readByte())
            guard value >= 24 else { throw nonShortest() }
            return value
        case 25:
            let value = try readBigEndian(2)
            guard value > 0xFF else { throw nonShortest() }
            return value
        case 26:
            let value = try readBigEndian(4)
            guard value > 0xFFFF else { throw nonShortest() }
            return value
        case 27:
            let value = try readBigEndian(8)
            guard value > 0xFFFF_FFFF else { throw nonShortest() }
            return value
        case 31:
            throw AppAttestError.malformedCBOR("indefinite-length CBOR items are not accepted in App Attest objects")
        default:
            throw AppAttestError.malformedCBOR("CBOR additional information \(additional) is reserved")
        }
    }

    mutating func readBigEndian(_ count: Int) throws -> UInt64 {
        var value: UInt64 = 0
        for byte in try readBytes(count) {
            value = value << 8 | UInt64(byte)
        }
        return value
    }

    func nonShortest() -> AppAttestError {
        .malformedCBOR("a CBOR length or integer is not in its shortest form (RFC 8949 section 4.2.1)")
    }

    /// Converts a length argument to `Int`, bounded by what the input can still hold.
    func length(_ argument: UInt64, minimumBytesEach: Int) throws -> Int {
        guard let count = Int(exactly: argument), count <= remaining / max(minimumBytesEach, 1) else {
            throw AppAttestError.malformedCBOR(
                "a CBOR length claims \(argument) but only \(remaining) bytes remain"
            )
        }
        return count
    }

    mutating func countItem() throws {
        itemCount += 1
        guard itemCount <= limits.maximumItemCount else {
            throw AppAttestError.limitExceeded(
                "the CBOR input holds more than \(limits.maximumItemCount) items"
            )
        }
    }

    mutating func readItem(depth: Int) throws -> CBORValue {
        try countItem()
        let initial = try readByte()
        let major = initial >> 5
        let additional = initial & 0x1F
        switch major {
        case 0:
            return .unsignedInteger(try readArgument(additional))
        case 1:
            return .negativeInteger(try readArgument(additional))
        case 2:
            let count = try length(try readArgument(additional), minimumBytesEach: 1)
            return .byteString(Array(try readBytes(count)))
        case 3:
            let count = try length(try readArgument(additional), minimumBytesEach: 1)
            guard let text = String(validating: try readBytes(count), as: UTF8.self) else {
                throw AppAttestError.malformedCBOR("a CBOR text string is not valid UTF-8")
            }
            return .textString(text)
        case 4:
            let count = try length(try readArgument(additional), minimumBytesEach: 1)
            try checkDepth(depth)
            var elements: [CBORValue] = []
            elements.reserveCapacity(count)
            for _ in 0..<count {
                elements.append(try readItem(depth: depth + 1))
            }
            return .array(elements)
        case 5:
            let count = try length(try readArgument(additional), minimumBytesEach: 2)
            try checkDepth(depth)
            var entries: [CBORMapEntry] = []
            entries.reserveCapacity(count)
            var keys = Set<CBORValue>()
            for _ in 0..<count {
                let key = try readItem(depth: depth + 1)
                guard keys.insert(key).inserted else {
                    throw AppAttestError.malformedCBOR("a CBOR map repeats a key (RFC 8949 section 5.6)")
                }
                entries.append(CBORMapEntry(key, try readItem(depth: depth + 1)))
            }
            return .map(entries)
        case 6:
            throw AppAttestError.malformedCBOR("CBOR tags are not accepted in App Attest objects")
        default:
            switch additional {
            case 20: return .boolean(false)
            case 21: return .boolean(true)
            case 22: return .null
            case 25, 26, 27: throw AppAttestError.malformedCBOR("CBOR floats are not accepted in App Attest objects")
            default: throw AppAttestError.malformedCBOR("CBOR simple value \(additional) is not accepted")
            }
        }
    }

    func checkDepth(_ depth: Int) throws {
        guard depth < limits.maximumDepth else {
            throw AppAttestError.limitExceeded("CBOR nests deeper than \(limits.maximumDepth) levels")
        }
    }
}
