/// An OBJECT IDENTIFIER, held as its DER content octets (X.690 8.19) and shown in dotted decimal.
///
/// RampartX509 adds the well-known identifiers as static lets in nested enums (`ASN1ObjectIdentifier.AppAttest.nonce`,
/// `ASN1ObjectIdentifier.X509Extension.basicConstraints`). Two identifiers are equal when their encodings are.
public struct ASN1ObjectIdentifier: Hashable {
    /// The most content octets an identifier may have (DoS bound: the dotted form is computed digit by digit).
    public static let maximumEncodedByteCount = 128

    /// The DER content octets (without identifier and length).
    public let derContent: [UInt8]

    /// Creates an identifier from validated content octets (X.690 8.19.2).
    ///
    /// - Parameter content: The content octets.
    /// - Throws: ``ASN1Error`` with code `invalidDER` for empty, truncated or padded subidentifiers, or
    ///   `limitExceeded` beyond ``maximumEncodedByteCount``.
    package init(validatingContent content: ArraySlice<UInt8>) throws {
        try Self.validate(content)
        self.derContent = Array(content)
    }

    /// Checks content octets against X.690 8.19.2 without copying them.
    static func validate(_ content: ArraySlice<UInt8>) throws {
        guard let last = content.last else {
            throw ASN1Error.invalidDER("an OBJECT IDENTIFIER has no content octets (X.690 8.19)")
        }
        guard content.count <= Self.maximumEncodedByteCount else {
            throw ASN1Error.limitExceeded("an OBJECT IDENTIFIER is longer than \(Self.maximumEncodedByteCount) bytes")
        }
        guard last & 0x80 == 0 else {
            throw ASN1Error.invalidDER("an OBJECT IDENTIFIER ends inside a subidentifier (X.690 8.19.2)")
        }
        var startsSubidentifier = true
        for octet in content {
            if startsSubidentifier, octet == 0x80 {
                throw ASN1Error.invalidDER(
                    "an OBJECT IDENTIFIER subidentifier has a leading 0x80 octet (X.690 8.19.2)")
            }
            startsSubidentifier = octet & 0x80 == 0
        }
    }

    /// Parses a dotted-decimal identifier such as `1.2.840.113635.100.8.2`.
    ///
    /// - Parameter dotted: At least two arcs; the first is 0, 1 or 2, and the second below 40 unless the first is 2.
    /// - Throws: ``ASN1Error`` with code `invalidDER` when the text is not a valid identifier.
    public init(_ dotted: String) throws {
        let parts = dotted.split(separator: ".", omittingEmptySubsequences: false)
        var arcs: [UInt64] = []
        for part in parts {
            guard !part.isEmpty, part.allSatisfy(\.isASCII), let arc = UInt64(part),
                part.count == 1 || part.first != "0"
            else {
                throw ASN1Error.invalidDER("'\(dotted)' is not a dotted-decimal OBJECT IDENTIFIER")
            }
            arcs.append(arc)
        }
        guard arcs.count >= 2, arcs[0] <= 2, arcs[0] == 2 || arcs[1] < 40,
            arcs[1] <= UInt64.max - 80
        else {
            throw ASN1Error.invalidDER("'\(dotted)' does not start with a valid pair of arcs (X.660)")
        }
        var content: [UInt8] = []
        for arc in [arcs[0] * 40 + arcs[1]] + arcs.dropFirst(2) {
            var groups: [UInt8] = []
            var value = arc
            repeat {
                groups.append(UInt8(value & 0x7F))
                value >>= 7
            } while value > 0
            for (index, group) in groups.reversed().enumerated() {
                content.append(index == groups.count - 1 ? group : group | 0x80)
            }
        }
        try self.init(validatingContent: content[...])
    }

    /// The dotted-decimal form, e.g. `2.5.29.19`; arcs of any size are printed exactly.
    public var dottedString: String {
        var parts: [String] = []
        var subidentifier: [UInt8] = []
        for octet in derContent {
            subidentifier.append(octet & 0x7F)
            guard octet & 0x80 == 0 else { continue }
            if parts.isEmpty {
                // The first subidentifier packs two arcs: 40 * X + Y, with X = 2 for values of 80 and more.
                let decimal = Self.decimal(of: subidentifier)
                if let small = UInt64(decimal), small < 80 {
                    parts.append(String(small / 40))
                    parts.append(String(small % 40))
                } else {
                    parts.append("2")
                    parts.append(Self.decimal(of: subidentifier, minus: 80))
                }
            } else {
                parts.append(Self.decimal(of: subidentifier))
            }
            subidentifier = []
        }
        return parts.joined(separator: ".")
    }

    /// Base-128 digits to a decimal string, optionally minus a small value, without overflow.
    private static func decimal(of base128: [UInt8], minus subtrahend: UInt8 = 0) -> String {
        // Little-endian decimal digits.
        var digits: [UInt8] = [0]
        for group in base128 {
            var carry = Int(group)
            for index in digits.indices {
                let value = Int(digits[index]) * 128 + carry
                digits[index] = UInt8(value % 10)
                carry = value / 10
            }
            while carry > 0 {
                digits.append(UInt8(carry % 10))
                carry /= 10
            }
        }
        var borrow = Int(subtrahend)
        for index in digits.indices where borrow > 0 {
            let value = Int(digits[index]) - borrow % 10
            borrow /= 10
            if value < 0 {
                digits[index] = UInt8(value + 10)
                borrow += 1
            } else {
                digits[index] = UInt8(value)
            }
        }
        while digits.count > 1, digits.last == 0 { digits.removeLast() }
        return String(decoding: digits.reversed().map { $0 + UInt8(ascii: "0") }, as: UTF8.self)
    }
}

extension ASN1ObjectIdentifier: CustomStringConvertible {
    /// The dotted-decimal form.
    public var description: String { dottedString }
}

extension ASN1ObjectIdentifier: ExpressibleByStringLiteral {
    /// Creates an identifier from a dotted-decimal literal.
    ///
    /// - Parameter value: The literal; an invalid one is a programming error and stops the program.
    public init(stringLiteral value: String) {
        do {
            try self.init(value)
        } catch {
            preconditionFailure("invalid OBJECT IDENTIFIER literal '\(value)'")
        }
    }
}

extension ASN1ObjectIdentifier: Sendable {}
