import Foundation

/// RFC 7468 textual encoding: `-----BEGIN LABEL-----`, base64 lines, `-----END LABEL-----`. Rampart's one PEM codec:
/// certificates, chains and trust anchors (``parseAll(_:)``) and keys (``init(pemEncoded:label:maximumInputByteCount:)``)
/// are read by the same code.
public struct PEMDocument: Hashable {
    /// The label, e.g. `CERTIFICATE`.
    public let label: String
    /// The decoded bytes.
    public let derBytes: [UInt8]

    /// Wraps DER bytes under a label.
    ///
    /// - Parameters:
    ///   - label: The label.
    ///   - derBytes: The DER.
    public init(label: String, derBytes: [UInt8]) {
        self.label = label
        self.derBytes = derBytes
    }

    /// The most PEM bytes Rampart reads in one input (DoS bound): 16 MiB.
    public static let maximumInputByteCount = 16 << 20
    /// The most documents one input may hold (DoS bound).
    public static let maximumDocumentCount = 1024
    /// The longest label accepted (labels such as `CERTIFICATE` or `EC PRIVATE KEY` are short; messages quote them).
    public static let maximumLabelLength = 64

    /// Parses every PEM block in `text`, in order. Text between blocks (such as `openssl s_client` chatter or
    /// `subject=` lines) is ignored, as RFC 7468 section 5.2 allows explanatory text.
    ///
    /// - Parameter text: The PEM text.
    /// - Returns: The documents; empty when there is none.
    /// - Throws: ``ASN1Error`` with code `invalidPEM` for an unterminated block, mismatched labels, bad base64, or
    ///   inputs beyond the limits.
    public static func parseAll(_ text: String) throws -> [PEMDocument] {
        try parse(Array(text.utf8), maximumInputByteCount: maximumInputByteCount, allowsExplanatoryText: true)
    }

    /// Parses text that must hold exactly one PEM block.
    ///
    /// - Parameter pemEncoded: The PEM text.
    /// - Throws: ``ASN1Error`` with code `invalidPEM` when there is not exactly one block.
    public init(pemEncoded: String) throws {
        let all = try Self.parseAll(pemEncoded)
        guard all.count == 1, let only = all.first else {
            throw ASN1Error.invalidPEM("expected exactly one PEM block; found \(all.count)")
        }
        self = only
    }

    /// Parses text that must be exactly one block labelled `label` and nothing else: whitespace may surround it, but
    /// no explanatory text, no second block and no RFC 1421 headers (the form a key file has).
    ///
    /// - Parameters:
    ///   - pemEncoded: The PEM text.
    ///   - label: The label the block must have (`PUBLIC KEY`).
    ///   - maximumInputByteCount: The most bytes of text read (a DoS bound for the caller's kind of input).
    /// - Throws: ``ASN1Error`` with code `invalidPEM` for anything else.
    public init(pemEncoded: String, label: String, maximumInputByteCount: Int) throws {
        let bytes = Array(pemEncoded.utf8)
        let expected = "expected one PEM block '-----BEGIN \(label)-----' … '-----END \(label)-----' and nothing else"
        let all: [PEMDocument]
        do {
            all = try Self.parse(bytes, maximumInputByteCount: maximumInputByteCount, allowsExplanatoryText: false)
        } catch let error as ASN1Error {
            throw ASN1Error.invalidPEM("\(error.reason); \(expected)")
        }
        guard all.count == 1, let only = all.first, only.label == label else {
            throw ASN1Error.invalidPEM(
                "\(expected); found " + (all.isEmpty ? "none" : all.map { "'\($0.label)'" }.joined(separator: ", ")))
        }
        self = only
    }

    /// The PEM text, with 64-character base64 lines and a trailing newline.
    public var pemString: String {
        let base64 = Data(derBytes).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return "-----BEGIN \(label)-----\n\(base64)\n-----END \(label)-----\n"
    }

    /// Every block of `bytes`; with `allowsExplanatoryText` false, a line outside a block that is not blank is refused.
    private static func parse(
        _ bytes: [UInt8], maximumInputByteCount: Int, allowsExplanatoryText: Bool
    ) throws -> [PEMDocument] {
        guard bytes.count <= maximumInputByteCount else {
            throw ASN1Error.invalidPEM("the input is larger than \(maximumInputByteCount) bytes")
        }
        var documents: [PEMDocument] = []
        var current: (label: String, body: [UInt8])?
        var lineStart = 0
        while lineStart <= bytes.count {
            // RFC 7468 section 3: lines end in CRLF, CR or LF; whitespace around a line is ignored.
            var lineEnd = lineStart
            while lineEnd < bytes.count, bytes[lineEnd] != 0x0A, bytes[lineEnd] != 0x0D { lineEnd += 1 }
            var first = lineStart
            var last = lineEnd
            while first < last, bytes[first] == 0x20 || bytes[first] == 0x09 { first += 1 }
            while last > first, bytes[last - 1] == 0x20 || bytes[last - 1] == 0x09 { last -= 1 }
            let line = bytes[first..<last]
            lineStart = lineEnd + 1

            if let label = try Self.label(of: line, marker: "BEGIN") {
                guard current == nil else { throw ASN1Error.invalidPEM("BEGIN \(label) inside another PEM block") }
                current = (label, [])
            } else if let label = try Self.label(of: line, marker: "END") {
                guard let open = current else { throw ASN1Error.invalidPEM("END \(label) without a BEGIN") }
                guard open.label == label else {
                    throw ASN1Error.invalidPEM("BEGIN \(open.label) closed by END \(label)")
                }
                guard let decoded = Data(base64Encoded: Data(open.body)), !decoded.isEmpty else {
                    throw ASN1Error.invalidPEM("the body of the \(label) block is not valid base64")
                }
                documents.append(PEMDocument(label: label, derBytes: Array(decoded)))
                guard documents.count <= maximumDocumentCount else {
                    throw ASN1Error.invalidPEM("more than \(maximumDocumentCount) PEM blocks")
                }
                current = nil
            } else if var open = current {
                guard !line.contains(UInt8(ascii: ":")) else {
                    throw ASN1Error.invalidPEM("RFC 1421 headers inside the \(open.label) block are not supported")
                }
                current = nil
                open.body += line
                current = open
            } else if !allowsExplanatoryText, !line.isEmpty {
                throw ASN1Error.invalidPEM("the input has text outside the PEM block")
            }
        }
        if let open = current { throw ASN1Error.invalidPEM("the \(open.label) block has no END line") }
        return documents
    }

    /// The label of an encapsulation boundary line, or nil when `line` is not one.
    ///
    /// - Throws: ``ASN1Error`` with code `invalidPEM` when the label is not RFC 7468 section 3 label text
    ///   (`labelchar *( ["-" / SP] labelchar )`, `labelchar = %x21-2C / %x2E-7E`) or is too long; the label is then
    ///   not quoted, because it is raw input.
    private static func label(of line: ArraySlice<UInt8>, marker: String) throws -> String? {
        let prefix = Array("-----\(marker) ".utf8)
        let dashes = Array("-----".utf8)
        guard line.count >= prefix.count + dashes.count, line.starts(with: prefix),
            line.suffix(dashes.count).elementsEqual(dashes)
        else { return nil }
        let octets = Array(line.dropFirst(prefix.count).dropLast(dashes.count))
        var valid = !octets.isEmpty && octets.count <= maximumLabelLength
        for (index, octet) in octets.enumerated() where valid {
            let isLabelChar = (0x21...0x2C).contains(octet) || (0x2E...0x7E).contains(octet)
            let isSeparator = isSeparatorOctet(octet)
            let between = index > 0 && index < octets.count - 1 && !isSeparatorOctet(octets[index - 1])
            valid = isLabelChar || (isSeparator && between)
        }
        guard valid else {
            throw ASN1Error.invalidPEM("a PEM \(marker) line has a malformed label (RFC 7468 section 3)")
        }
        return String(decoding: octets, as: UTF8.self)
    }

    private static func isSeparatorOctet(_ octet: UInt8) -> Bool {
        octet == UInt8(ascii: "-") || octet == UInt8(ascii: " ")
    }
}

extension PEMDocument: Sendable {}
