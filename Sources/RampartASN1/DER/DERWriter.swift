public import Foundation

/// Builds DER (ITU-T X.690 clause 10) element by element.
///
/// Lengths are always definite and minimal (10.1), INTEGERs minimal (8.3.2), BOOLEAN TRUE is `0xFF` (11.1), and
/// ``appendSetOf(_:)`` sorts its components (11.6). Constructed elements are written with a closure:
///
/// ```swift
/// var writer = DERWriter()
/// writer.appendSequence { sequence in
///     sequence.appendInteger(2)
///     sequence.appendObjectIdentifier("2.5.29.19")
/// }
/// let der = writer.bytes
/// ```
public struct DERWriter {
    /// The encoding so far.
    public private(set) var bytes: [UInt8] = []

    /// Starts an empty encoding.
    public init() {}

    /// Appends one element with the given identifier and content octets.
    ///
    /// - Parameters:
    ///   - identifier: The identifier.
    ///   - content: The content octets, already encoded.
    public mutating func appendTLV(_ identifier: ASN1Identifier, content: some Collection<UInt8>) {
        bytes += identifier.encoded
        Self.appendLength(content.count, to: &bytes)
        bytes += content
    }

    /// Appends a constructed element whose contents `body` writes.
    ///
    /// - Parameters:
    ///   - identifier: The identifier; it should be constructed.
    ///   - body: Writes the nested elements.
    /// - Throws: Whatever `body` throws.
    public mutating func appendConstructed(
        _ identifier: ASN1Identifier,
        _ body: (inout DERWriter) throws -> Void
    ) rethrows {
        var inner = DERWriter()
        try body(&inner)
        appendTLV(identifier, content: inner.bytes)
    }

    /// Appends a SEQUENCE whose components `body` writes, in order.
    ///
    /// - Parameter body: Writes the components.
    /// - Throws: Whatever `body` throws.
    public mutating func appendSequence(_ body: (inout DERWriter) throws -> Void) rethrows {
        try appendConstructed(.sequence, body)
    }

    /// Appends a SET OF whose components are sorted as X.690 11.6 requires ("in ascending order, the encodings
    /// being compared as octet strings with the shorter components being padded at their trailing end with 0-octets").
    ///
    /// - Parameter components: The encoded components.
    public mutating func appendSetOf(_ components: [[UInt8]]) {
        let sorted = components.sorted { left, right in
            for index in 0..<max(left.count, right.count) {
                let leftOctet = index < left.count ? left[index] : 0
                let rightOctet = index < right.count ? right[index] : 0
                if leftOctet != rightOctet { return leftOctet < rightOctet }
            }
            return false
        }
        appendTLV(.set, content: sorted.flatMap { $0 })
    }

    /// Appends `[tag] EXPLICIT`: a constructed context-specific element wrapping what `body` writes.
    ///
    /// - Parameters:
    ///   - tag: The context-specific tag number.
    ///   - body: Writes the wrapped element.
    /// - Throws: Whatever `body` throws.
    public mutating func appendExplicit(tag: UInt32, _ body: (inout DERWriter) throws -> Void) rethrows {
        try appendConstructed(.contextSpecific(tag, isConstructed: true), body)
    }

    /// Appends `[tag] IMPLICIT` of a primitive type: a primitive context-specific element with `content`.
    ///
    /// - Parameters:
    ///   - tag: The context-specific tag number.
    ///   - content: The content octets of the underlying type.
    public mutating func appendImplicit(tag: UInt32, content: some Collection<UInt8>) {
        appendTLV(.contextSpecific(tag, isConstructed: false), content: content)
    }

    /// Appends an element that is already DER, after checking that it is exactly one strict DER element.
    ///
    /// - Parameter encoded: The element.
    /// - Throws: ``ASN1Error`` (`invalidDER`, `limitExceeded`) when `encoded` is not one strict DER element.
    public mutating func appendRawTLV(_ encoded: [UInt8]) throws {
        _ = try DER.parse(encoded)
        bytes += encoded
    }

    /// Appends a BOOLEAN (TRUE is `0xFF`, X.690 11.1).
    ///
    /// - Parameter value: The value.
    public mutating func appendBoolean(_ value: Bool) {
        appendTLV(.boolean, content: [value ? 0xFF : 0x00])
    }

    /// Appends an INTEGER in the minimum number of octets.
    ///
    /// - Parameter value: The value.
    public mutating func appendInteger(_ value: Int) {
        var content = withUnsafeBytes(of: value.bigEndian) { Array($0) }
        while content.count > 1,
            (content[0] == 0 && content[1] & 0x80 == 0) || (content[0] == 0xFF && content[1] & 0x80 != 0)
        {
            content.removeFirst()
        }
        appendTLV(.integer, content: content)
    }

    /// Appends a non-negative INTEGER given by its unsigned big-endian magnitude (a serial number, an RSA modulus).
    ///
    /// Leading zero octets are dropped and one is added when the top bit is set, so the encoding is minimal.
    ///
    /// - Parameter unsignedBigEndian: The magnitude; empty means zero.
    public mutating func appendInteger(unsignedBigEndian: some Collection<UInt8>) {
        var content = Array(unsignedBigEndian.drop { $0 == 0 })
        if content.first.map({ $0 & 0x80 != 0 }) ?? true { content.insert(0, at: 0) }
        appendTLV(.integer, content: content)
    }

    /// Appends NULL.
    public mutating func appendNull() {
        appendTLV(.null, content: [])
    }

    /// Appends an OCTET STRING.
    ///
    /// - Parameter octets: The contents.
    public mutating func appendOctetString(_ octets: some Collection<UInt8>) {
        appendTLV(.octetString, content: octets)
    }

    /// Appends a BIT STRING whose unused trailing bits are zeroed (X.690 11.2.1).
    ///
    /// - Parameters:
    ///   - octets: The bits, most significant first.
    ///   - unusedBitCount: How many trailing bits of the last octet are unused, 0–7 (0 when `octets` is empty).
    public mutating func appendBitString(_ octets: some Collection<UInt8>, unusedBitCount: Int = 0) {
        var content = [UInt8(truncatingIfNeeded: octets.isEmpty ? 0 : min(max(unusedBitCount, 0), 7))]
        content += octets
        if content.count > 1, let unused = content.first, let last = content.last {
            content[content.count - 1] = last & ~UInt8((1 << unused) - 1)
        }
        appendTLV(.bitString, content: content)
    }

    /// Appends an OBJECT IDENTIFIER.
    ///
    /// - Parameter identifier: The identifier.
    public mutating func appendObjectIdentifier(_ identifier: ASN1ObjectIdentifier) {
        appendTLV(.objectIdentifier, content: identifier.derContent)
    }

    /// Appends a UTF8String.
    ///
    /// - Parameter text: The text.
    public mutating func appendUTF8String(_ text: String) {
        appendTLV(.utf8String, content: Array(text.utf8))
    }

    /// Appends a PrintableString.
    ///
    /// - Parameter text: The text; the caller keeps to the PrintableString alphabet (X.680 41.4).
    public mutating func appendPrintableString(_ text: String) {
        appendTLV(.printableString, content: Array(text.utf8))
    }

    /// Appends an IA5String (ASCII).
    ///
    /// - Parameter text: The text; the caller keeps to ASCII.
    public mutating func appendIA5String(_ text: String) {
        appendTLV(.ia5String, content: Array(text.utf8))
    }

    /// Appends a certificate `Time` as RFC 5280 4.1.2.5 requires: UTCTime for 1950–2049, GeneralizedTime otherwise,
    /// always in UTC with seconds and without fractions (the fraction of `date` is dropped).
    ///
    /// - Parameter date: The instant.
    /// - Throws: ``ASN1Error`` with code `invalidDER` for dates outside years 1–9999.
    public mutating func appendTime(_ date: Date) throws {
        guard let (identifier, content) = ASN1Time.encode(date) else {
            throw ASN1Error.invalidDER("a certificate time must fall in the years 1 to 9999")
        }
        appendTLV(identifier, content: content)
    }

    /// Appends a GeneralizedTime `YYYYMMDDHHMMSSZ`.
    ///
    /// - Parameter date: The instant (the fraction is dropped).
    /// - Throws: ``ASN1Error`` with code `invalidDER` for dates outside years 1–9999.
    public mutating func appendGeneralizedTime(_ date: Date) throws {
        guard let (identifier, content) = ASN1Time.encode(date, forceGeneralized: true) else {
            throw ASN1Error.invalidDER("a GeneralizedTime must fall in the years 1 to 9999")
        }
        appendTLV(identifier, content: content)
    }

    /// X.690 8.1.3 and 10.1: short form below 128, otherwise the long form in the minimum number of octets.
    static func appendLength(_ length: Int, to bytes: inout [UInt8]) {
        guard length >= 0x80 else {
            bytes.append(UInt8(truncatingIfNeeded: length))
            return
        }
        var octets: [UInt8] = []
        var remaining = length
        while remaining > 0 {
            octets.insert(UInt8(truncatingIfNeeded: remaining), at: 0)
            remaining >>= 8
        }
        bytes.append(0x80 | UInt8(truncatingIfNeeded: octets.count))
        bytes += octets
    }
}

extension DERWriter: Sendable {}
