import Foundation
import RampartHTTP

/// JSON response bodies: compact, keys sorted, slashes unescaped.
///
/// The answers on the request path (challenges, verdicts, errors) are written by hand with ``JSONObjectWriter``;
/// the rest go through `JSONEncoder`. Both produce the same JSON (checked in tests).
enum JSONBody {
    /// The body of `GET /healthz`.
    static let healthy = Array(#"{"status":"ok"}"#.utf8)

    /// A response with `value` encoded by `JSONEncoder`.
    @_disfavoredOverload
    static func response(status: Int, _ value: some Encodable) -> HTTPResponse {
        let bytes = StageClock.measure(.json) {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            encoder.dateEncodingStrategy = .iso8601
            // Encoding the service's own response types cannot fail; fall back to an empty object rather than trap.
            return (try? encoder.encode(value)).map { Array($0) } ?? Array("{}".utf8)
        }
        return response(status: status, bytes: bytes)
    }

    /// A response with `value` written by hand.
    static func response(status: Int, _ value: some JSONObjectWritable) -> HTTPResponse {
        let bytes = StageClock.measure(.json) { value.jsonBytes }
        return response(status: status, bytes: bytes)
    }

    /// A response with a JSON body already encoded.
    static func response(status: Int, bytes: [UInt8]) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: bytes)
    }
}

/// A response body that writes its own JSON object, keys in sorted order, `nil` members left out (as
/// `JSONEncoder` with `.sortedKeys` does for a synthesised `Encodable`).
protocol JSONObjectWritable {
    /// Writes the members, keys in ascending byte order.
    func write(to object: inout JSONObjectWriter)
}

extension JSONObjectWritable {
    /// The compact JSON object.
    var jsonBytes: [UInt8] {
        var object = JSONObjectWriter()
        write(to: &object)
        return object.finish()
    }
}

/// Writes one flat JSON object (RFC 8259): `{"key":value,…}`.
///
/// Strings are escaped as RFC 8259 section 7 requires: `"` and `\` with a backslash, the control characters
/// U+0000…U+001F as `\b`, `\f`, `\n`, `\r`, `\t` or `\u00XX`; everything else (including `/`, non-ASCII and
/// U+2028) is copied as UTF-8. Dates are ISO 8601 in UTC to the second, `2026-12-01T12:56:17Z`, the form of
/// `JSONEncoder.DateEncodingStrategy.iso8601`.
struct JSONObjectWriter {
    private var bytes: [UInt8]
    private var isEmpty = true

    init(capacity: Int = 256) {
        bytes = []
        bytes.reserveCapacity(capacity)
        bytes.append(UInt8(ascii: "{"))
    }

    /// Closes the object and returns its bytes.
    consuming func finish() -> [UInt8] {
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }

    private mutating func key(_ name: StaticString) {
        if !isEmpty { bytes.append(UInt8(ascii: ",")) }
        isEmpty = false
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
    }

    /// Writes `"name":"value"`; nothing when `value` is nil.
    mutating func string(_ name: StaticString, _ value: String?) {
        guard let value else { return }
        key(name)
        Self.appendString(value, to: &bytes)
    }

    /// Writes `"name":value`; nothing when `value` is nil.
    mutating func integer(_ name: StaticString, _ value: (some BinaryInteger)?) {
        guard let value else { return }
        key(name)
        bytes.append(contentsOf: String(value).utf8)
    }

    /// Writes `"name":value` with `value` as Swift prints a `Double` (`12.375`, `0.0`); the caller passes only finite
    /// values.
    mutating func number(_ name: StaticString, _ value: Double) {
        key(name)
        bytes.append(contentsOf: value.description.utf8)
    }

    /// Writes `"name":true` or `false`.
    mutating func bool(_ name: StaticString, _ value: Bool) {
        key(name)
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    /// Writes `"name":"<ISO 8601>"`; nothing when `value` is nil.
    mutating func date(_ name: StaticString, _ value: Date?) {
        guard let value else { return }
        key(name)
        bytes.append(UInt8(ascii: "\""))
        Self.appendISO8601(value, to: &bytes)
        bytes.append(UInt8(ascii: "\""))
    }

    /// Appends `value` as a JSON string, quotes included.
    static func appendString(_ value: String, to bytes: inout [UInt8]) {
        var value = value
        value.withUTF8 { text in
            bytes.append(UInt8(ascii: "\""))
            // Most strings (base64, identifiers, codes) need no escape: one copy, not a call per byte.
            if !text.contains(where: { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 < 0x20 }) {
                bytes.append(contentsOf: text)
            } else {
                for byte in text { appendEscaped(byte, to: &bytes) }
            }
            bytes.append(UInt8(ascii: "\""))
        }
    }

    private static func appendEscaped(_ byte: UInt8, to bytes: inout [UInt8]) {
        switch byte {
        case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
        case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
        case 0x08: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
        case 0x0C: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
        case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
        case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
        case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
        case 0x00..<0x20:
            bytes.append(contentsOf: [
                UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0x0F)],
            ])
        default: bytes.append(byte)
        }
    }

    /// Lower-case hex digits, by value.
    static let hexDigits = Array("0123456789abcdef".utf8)

    /// Appends `date` as `YYYY-MM-DDTHH:MM:SSZ` (UTC, the fraction dropped).
    static func appendISO8601(_ date: Date, to bytes: inout [UInt8]) {
        let since1970 = date.timeIntervalSince1970
        var seconds = time_t(0)
        if since1970.isFinite, abs(since1970) < 1e15 { seconds = time_t(since1970.rounded(.down)) }
        var parts = tm()
        if gmtime_r(&seconds, &parts) == nil {
            seconds = 0
            _ = gmtime_r(&seconds, &parts)
        }
        bytes.appendDecimal(Int(parts.tm_year) + 1900, width: 4)
        bytes.append(UInt8(ascii: "-"))
        bytes.appendDecimal(Int(parts.tm_mon) + 1, width: 2)
        bytes.append(UInt8(ascii: "-"))
        bytes.appendDecimal(Int(parts.tm_mday), width: 2)
        bytes.append(UInt8(ascii: "T"))
        bytes.appendDecimal(Int(parts.tm_hour), width: 2)
        bytes.append(UInt8(ascii: ":"))
        bytes.appendDecimal(Int(parts.tm_min), width: 2)
        bytes.append(UInt8(ascii: ":"))
        bytes.appendDecimal(Int(parts.tm_sec), width: 2)
        bytes.append(UInt8(ascii: "Z"))
    }
}
