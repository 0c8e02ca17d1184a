extension CBORValue {
    /// The item's encoding in RFC 8949 preferred serialization: shortest arguments, definite lengths, map entries in
    /// the order given (the simulator lists them in Apple's order).
    ///
    /// ``CBORDecoder`` reads back exactly these bytes.
    public var encoded: [UInt8] {
        var out: [UInt8] = []
        encode(into: &out)
        return out
    }

    /// Appends the item's encoding to `out`.
    ///
    /// - Parameter out: The buffer to append to.
    public func encode(into out: inout [UInt8]) {
        switch self {
        case .unsignedInteger(let value):
            Self.appendHead(major: 0, argument: value, into: &out)
        case .negativeInteger(let value):
            Self.appendHead(major: 1, argument: value, into: &out)
        case .byteString(let bytes):
            Self.appendHead(major: 2, argument: UInt64(bytes.count), into: &out)
            out += bytes
        case .textString(let text):
            Self.appendHead(major: 3, argument: UInt64(text.utf8.count), into: &out)
            out += text.utf8
        case .array(let elements):
            Self.appendHead(major: 4, argument: UInt64(elements.count), into: &out)
            for element in elements { element.encode(into: &out) }
        case .map(let entries):
            Self.appendHead(major: 5, argument: UInt64(entries.count), into: &out)
            for entry in entries {
                entry.key.encode(into: &out)
                entry.value.encode(into: &out)
            }
        case .boolean(let value):
            out.append(value ? 0xF5 : 0xF4)
        case .null:
            out.append(0xF6)
        }
    }

    private static func appendHead(major: UInt8, argument: UInt64, into out: inout [UInt8]) {
        let type = major << 5
        switch argument {
        case 0..<24:
            out.append(type | UInt8(argument))
        case 24...0xFF:
            out += [type | 24, UInt8(argument)]
        case 0x100...0xFFFF:
            out.append(type | 25)
            out += bigEndian(argument, byteCount: 2)
        case 0x1_0000...0xFFFF_FFFF:
            out.append(type | 26)
            out += bigEndian(argument, byteCount: 4)
        default:
            out.append(type | 27)
            out += bigEndian(argument, byteCount: 8)
        }
    }

    private static func bigEndian(_ value: UInt64, byteCount: Int) -> [UInt8] {
        (0..<byteCount).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }
}
