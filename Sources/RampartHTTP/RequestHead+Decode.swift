import Foundation
import RampartCrypto

extension RequestHead {
    /// A head that ``examine(_:maximumByteCount:)`` judged complete, read into the parts the server uses.
    package struct Decoded: Equatable {
        /// The method token, e.g. `POST` (RFC 9112 3.1: case-sensitive, kept as sent).
        package var method: String
        /// The request target exactly as sent (RFC 9112 3.2).
        package var target: String
        /// 1 for HTTP/1.1, 0 for HTTP/1.0.
        package var minorVersion: Int
        /// Field values by lower-cased name, leading and trailing whitespace removed (RFC 9112 5.1); a name sent more
        /// than once holds its values joined by `, ` in the order sent (RFC 9110 5.3).
        package var fields: [String: String]
        /// How many `Host` fields the head holds.
        package var hostCount: Int

        /// Whether the client asked for the connection to stay open after the answer (RFC 9112 9.3): HTTP/1.1 unless
        /// `Connection` holds `close`; HTTP/1.0 only when it holds `keep-alive`.
        package var keepAlive: Bool {
            let tokens = (fields["connection"] ?? "").split(separator: ",").map {
                $0.trimmingCharacters(in: .whitespaces).lowercased()
            }
            if tokens.contains("close") { return false }
            return minorVersion == 1 || tokens.contains("keep-alive")
        }

        /// Whether the client waits for `100 Continue` before it sends the body (RFC 9110 10.1.1).
        package var expectsContinue: Bool { fields["expect"]?.lowercased() == "100-continue" }
    }

    /// Why a complete, well-framed head still cannot be served.
    package enum DecodeProblem: Error, Equatable {
        /// Answer 400 with this reason.
        case malformed(String)
        /// An HTTP version other than 1.1 and 1.0: answer 505.
        case versionNotSupported
    }

    /// Reads the parts of `head`, a complete head that ``examine(_:maximumByteCount:)`` judged well-framed (so its
    /// lines end in CRLF, its request line has three parts between single spaces, and its field names are tokens).
    ///
    /// - `HTTP-version = HTTP-name "/" DIGIT "." DIGIT` (RFC 9112 2.3); 1.1 and 1.0 are served.
    /// - `field-value = *field-content`, and "field values containing CR, LF, or NUL characters are invalid and
    ///   dangerous" (RFC 9110 5.5): every control character but HTAB is refused, and a value must be UTF-8 text, so
    ///   that two different byte strings never reach the router as the same string (a subject header compares as
    ///   bytes).
    /// - "A server MUST respond with a 400 (Bad Request) status code to any HTTP/1.1 request message that lacks a
    ///   Host header field and to any request message that contains more than one Host header field" (RFC 9112 3.2).
    ///
    /// - Parameter head: The head's bytes, through its final CRLF CRLF.
    /// - Returns: The decoded head.
    /// - Throws: ``DecodeProblem``.
    package static func decode(_ head: ArraySlice<UInt8>) throws(DecodeProblem) -> Decoded {
        // Over the slice's buffer, each line a range of it (no array of lines, no copy of a part to check it).
        try head.withUnsafeBufferPointer { buffer throws(DecodeProblem) in try decode(buffer) }
    }

    private typealias Bytes = Slice<UnsafeBufferPointer<UInt8>>

    private static func decode(_ head: UnsafeBufferPointer<UInt8>) throws(DecodeProblem) -> Decoded {
        var requestLine: Bytes?
        var fieldLines: [Bytes] = []
        fieldLines.reserveCapacity(16)
        var start = 0
        var index = 0
        while index < head.count {
            if head[index] == cr, index + 1 < head.count, head[index + 1] == lf {
                let line = head[start..<index]
                // Empty lines before the request line are ignored (RFC 9112 2.2), the last one ends the head.
                if !line.isEmpty {
                    if requestLine == nil { requestLine = line } else { fieldLines.append(line) }
                }
                index += 2
                start = index
            } else {
                index += 1
            }
        }
        guard let requestLine else { throw .malformed("no request line") }
        let parts = requestLine.split(separator: space, maxSplits: 3, omittingEmptySubsequences: false)
        guard parts.count == 3, let method = String(strictUTF8: parts[0]), let target = String(strictUTF8: parts[1])
        else { throw .malformed("the request line must be 'METHOD target HTTP/1.1', single spaces") }
        guard parts[0].allSatisfy(isTokenCharacter) else {
            throw .malformed("the method must be a token, e.g. POST")
        }
        guard parts[1].allSatisfy({ $0 > space && $0 < 0x7F }) else {
            throw .malformed("the request target must be visible ASCII; percent-encode anything else")
        }
        let version = Array(parts[2])
        guard version.count == 8, version.starts(with: httpName), version[5].isDigit, version[6] == dot,
            version[7].isDigit
        else { throw .malformed("the HTTP version must read HTTP/1.1") }
        guard version[5] == UInt8(ascii: "1"), version[7] == UInt8(ascii: "0") || version[7] == UInt8(ascii: "1")
        else { throw .versionNotSupported }
        var fields: [String: String] = [:]
        fields.reserveCapacity(fieldLines.count)
        var hostCount = 0
        for line in fieldLines {
            // examine found the colon after a token name.
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { throw .malformed("a header without ':'") }
            var valueStart = colon + 1
            var valueEnd = line.endIndex
            while valueStart < valueEnd, line[valueStart] == space || line[valueStart] == tab { valueStart += 1 }
            while valueEnd > valueStart, line[valueEnd - 1] == space || line[valueEnd - 1] == tab { valueEnd -= 1 }
            let valueBytes = line[valueStart..<valueEnd]
            guard valueBytes.allSatisfy({ $0 >= space ? $0 != 0x7F : $0 == tab }) else {
                throw .malformed("a header value holds a control character")
            }
            guard let value = String(strictUTF8: valueBytes) else {
                throw .malformed("a header value is not UTF-8 text")
            }
            let nameBytes = line[line.startIndex..<colon]
            let name = String(unsafeUninitializedCapacity: nameBytes.count) { buffer in
                for (offset, byte) in nameBytes.enumerated() {
                    buffer[offset] = (0x41...0x5A).contains(byte) ? byte | 0x20 : byte
                }
                return nameBytes.count
            }
            if name == "host" { hostCount += 1 }
            if let earlier = fields[name] {
                fields[name] = earlier + ", " + value
            } else {
                fields[name] = value
            }
        }
        let minorVersion = version[7] == UInt8(ascii: "1") ? 1 : 0
        if minorVersion == 1 && hostCount != 1 || hostCount > 1 {
            throw .malformed("a request needs exactly one Host header (RFC 9112 3.2)")
        }
        return Decoded(
            method: method, target: target, minorVersion: minorVersion, fields: fields, hostCount: hostCount)
    }

    private static let httpName = Array("HTTP/".utf8)
    private static let dot = UInt8(ascii: ".")
}

extension UInt8 {
    fileprivate var isDigit: Bool { (0x30...0x39).contains(self) }
}
