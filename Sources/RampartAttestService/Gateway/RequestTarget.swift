import RampartRequestSigning

/// A request target as an app sent it to the backend, checked so that its path has exactly one reading.
///
/// The signed text covers the target's bytes as sent (``raw``), so any spelling the app chose is bound by the
/// signature. Route policies, though, are chosen by the *path*, and backends differ in how they read a path: one
/// decodes `%2F` into a separator, another resolves `..`, a servlet container drops `;parameters` before it
/// resolves dot segments, ASP.NET Core on Windows trims a trailing `.`, a third framework folds case. The rule is a
/// principle, not a list of tricks: **a target is refused unless every common backend reads it as the same path**
/// (checked against servlet containers, Express, Rails, Spring, ASP.NET Core and Caddy's path matcher; see
/// `docs/protecting-your-backend.md`). Readings that differ only in ways that map a path to a *stricter* route
/// (case, a trailing `/`, `;params`, a `.json` suffix) are not refused here: ``RouteTable`` gives such a path the
/// stricter policy. What is refused:
///
/// - anything but origin-form (RFC 9112 3.2.1: `origin-form = absolute-path [ "?" query ]`): the target starts
///   with `/`; no `#`, no bytes outside printable ASCII (raw spaces, controls, non-ASCII are not URI characters);
/// - a `%` that does not start a well-formed `%HH` escape (RFC 3986 2.1); escapes of unreserved characters
///   (`ALPHA DIGIT - . _ ~`, RFC 3986 2.3) are decoded for matching (RFC 3986 6.2.2.2: they are the same URI), all
///   other escapes stay as they are, with upper-case hex;
/// - in the path: an encoded `/` (`%2F`), `\` raw or encoded (`%5C`), encoded controls (`%00`…), an encoded `%`
///   (`%25`: a second decoding pass, which some backends run, reads another path), and encoded non-ASCII bytes
///   (`%C0%AE`…: decoders disagree on invalid and overlong UTF-8 and on Unicode normalisation);
/// - a segment whose name — the part before any `;`, with every escape decoded — is a dot segment (`.`, `..`,
///   `%2e%2e`, `..;a=b`, `..%3Bx`: servlet containers resolve `..;` as `..`), is empty (`//`, `/;x/`; a single
///   trailing `/` is allowed), or ends in `.` or a space (Windows file-system semantics trim them).
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
            if decoded == UInt8(ascii: "%") {
                throw Self.refusal(
                    "the request path holds an encoded '%' (%25): backends that decode twice read another path than "
                        + "the others; send each byte encoded once")
            }
            if decoded >= 0x80 {
                throw Self.refusal(
                    "the request path holds an encoded non-ASCII byte (%80…%FF): backends disagree on invalid and "
                        + "overlong UTF-8 and on Unicode normalisation, so it has no single reading; use ASCII paths")
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
            if segment.isEmpty && position == segments.count - 1 { continue }  // one trailing '/'
            try Self.checkSegmentName(Self.name(of: segment))
        }
        self.raw = raw
        self.path = path
    }

    /// The normalised path as text (ASCII).
    var pathText: String { String(decoding: path, as: UTF8.self) }

    /// A segment's name as a backend that decodes every escape and drops `;parameters` reads it.
    private static func name(of segment: ArraySlice<UInt8>) -> [UInt8] {
        Array(percentDecoded(segment).prefix { $0 != UInt8(ascii: ";") })
    }

    /// `bytes` with every well-formed `%HH` escape decoded (once); anything else is kept as it is.
    static func percentDecoded(_ bytes: some Collection<UInt8>) -> [UInt8] {
        let bytes = Array(bytes)
        var decoded: [UInt8] = []
        decoded.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
                let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2])
            {
                decoded.append(high << 4 | low)
                index += 3
            } else {
                decoded.append(bytes[index])
                index += 1
            }
        }
        return decoded
    }

    private static func checkSegmentName(_ name: [UInt8]) throws {
        if name.isEmpty {
            throw refusal(
                "the request path has an empty segment ('//' or '/;x/'), which servers merge or keep differently; "
                    + "send single slashes and no segment made only of ';parameters'")
        }
        if name == [UInt8(ascii: ".")] || name == Array("..".utf8) {
            throw refusal(
                "the request path has a dot segment ('.' or '..', also as %2E or followed by ';…'), which servers "
                    + "resolve differently; send the path the app means, without dot segments")
        }
        if name.last == UInt8(ascii: ".") || name.last == UInt8(ascii: " ") {
            throw refusal(
                "the request path has a segment ending in '.' or a space, which some servers trim (Windows file "
                    + "names); send the path without them")
        }
    }

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
