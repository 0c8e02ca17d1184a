import RampartRequestSigning

/// A request target as an app sent it to the backend, checked so that its path has exactly one reading.
///
/// The signed text covers the target's bytes as sent (``raw``), so any spelling the app chose is bound by the
/// signature. Route policies, though, are chosen by the *path*, and backends differ in how they read a path: one
/// decodes `%2F` into a separator, another resolves `..`, a third folds case. A target that a backend could read as
/// another path than Rampart does would let a request pick a laxer route than the one it reaches. So the path is
/// read under one strict rule (RFC 3986 section 6.2.2 normalisation, and nothing else), and targets whose reading
/// depends on the backend are refused:
///
/// - origin-form only (RFC 9112 3.2.1: `origin-form = absolute-path [ "?" query ]`): the target starts with `/`;
///   no `#`, no bytes outside printable ASCII (raw spaces, controls, non-ASCII are not URI characters);
/// - every `%` starts a well-formed `%HH` escape; escapes of unreserved characters (`ALPHA DIGIT - . _ ~`, RFC 3986
///   2.3) are decoded for matching (RFC 3986 6.2.2.2: they are the same URI), all other escapes stay as they are,
///   with upper-case hex;
/// - refused: an encoded `/` (`%2F`), `\` raw or encoded (`%5C`), an encoded NUL (`%00`) or other control
///   characters, dot segments `.` and `..` in any spelling (`%2E`, `.%2e`), and empty segments (`//`) — except a
///   single trailing `/`.
///
/// The query is never part of the route: routes match on ``path``.
struct RequestTarget: Hashable, Sendable {
    /// The target exactly as sent.
    let raw: String
    /// The normalised path used for route matching (unreserved escapes decoded, hex upper-cased), as bytes.
    let path: [UInt8]

    /// Parses and checks `raw`.
    ///
    /// - Parameter raw: The request target as sent (path and query, percent-encoding untouched).
    /// - Throws: ``AttestServiceError`` (`invalidTarget`) saying what was refused and what to send instead.
    init(_ raw: String) throws {
        let bytes = Array(raw.utf8)
        guard !bytes.isEmpty, bytes.count <= RequestSignature.maximumTargetByteCount else {
            throw Self.refusal(
                "the request target must be 1...\(RequestSignature.maximumTargetByteCount) bytes (path and query)")
        }
        guard bytes[0] == UInt8(ascii: "/") else {
            throw Self.refusal(
                "the request target must be a path starting with '/' (origin-form, RFC 9112 3.2.1); send the path "
                    + "and query as the app sent them, not an absolute URL")
        }
        if let bad = bytes.first(where: { $0 <= 0x20 || $0 >= 0x7F || $0 == UInt8(ascii: "#") }) {
            throw Self.refusal(
                bad == UInt8(ascii: "#")
                    ? "the request target holds '#'; a fragment is never sent in a request"
                    : "the request target holds a byte outside printable ASCII (a space, a control character or "
                        + "raw UTF-8); percent-encode it as the app's URL library does")
        }
        let pathEnd = bytes.firstIndex(of: UInt8(ascii: "?")) ?? bytes.endIndex
        var path: [UInt8] = []
        path.reserveCapacity(pathEnd)
        var index = 0
        while index < pathEnd {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\\") {
                throw Self.refusal(
                    "the request path holds '\\', which some servers read as '/'; use '/' or encode it differently")
            }
            guard byte == UInt8(ascii: "%") else {
                path.append(byte)
                index += 1
                continue
            }
            guard index + 2 < pathEnd, let high = Self.hexValue(bytes[index + 1]),
                let low = Self.hexValue(bytes[index + 2])
            else {
                throw Self.refusal("the request path holds a '%' that does not start a '%HH' escape (RFC 3986 2.1)")
            }
            let decoded = high << 4 | low
            if decoded == UInt8(ascii: "/") || decoded == UInt8(ascii: "\\") || decoded < 0x20 || decoded == 0x7F {
                throw Self.refusal(
                    "the request path holds an encoded '/', '\\' or control character (%2F, %5C, %00…), which "
                        + "servers decode differently; send path separators unencoded and no control characters")
            }
            if Self.isUnreserved(decoded) {
                path.append(decoded)
            } else {
                path += [UInt8(ascii: "%"), Self.hexDigit(high), Self.hexDigit(low)]
            }
            index += 3
        }
        let segments = path.dropFirst().split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        for (position, segment) in segments.enumerated() {
            if segment.isEmpty && position != segments.count - 1 {
                throw Self.refusal(
                    "the request path has an empty segment ('//'), which servers merge or keep differently; send "
                        + "single slashes")
            }
            if segment.elementsEqual([UInt8(ascii: ".")]) || segment.elementsEqual(Array("..".utf8)) {
                throw Self.refusal(
                    "the request path has a dot segment ('.' or '..', also as %2E), which servers resolve "
                        + "differently; send the path the app means, without dot segments")
            }
        }
        self.raw = raw
        self.path = path
    }

    /// The normalised path as text (ASCII).
    var pathText: String { String(decoding: path, as: UTF8.self) }

    private static func refusal(_ reason: String) -> AttestServiceError { AttestServiceError.invalidTarget(reason) }

    /// The value of one hex digit (either case), nil for any other byte.
    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "A") + value - 10
    }

    /// `unreserved = ALPHA / DIGIT / "-" / "." / "_" / "~"` (RFC 3986 2.3).
    static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            true
        default: false
        }
    }
}
