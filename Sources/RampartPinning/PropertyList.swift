package import Foundation

/// A property list value, and the XML property list writer Rampart uses instead of Foundation's.
///
/// Foundation's writer (`PropertyListSerialization.data(fromPropertyList:format:options:)`) refuses every array in a
/// binary linked with `--static-swift-stdlib` on Linux ("property lists cannot contain objects of type 'Not A
/// Type'"), which is how the release `rampart` is built; its reader works there and still reads XML and binary
/// property lists (``init(propertyListData:)``). The writer follows Apple's XML property list format
/// (`PropertyList-1.0.dtd`) as `plutil -convert xml1` writes it: the DOCTYPE, one tab per level, `<dict/>` and
/// `<array/>` when empty, and dictionary keys in sorted order so the same value always gives the same bytes.
package enum PropertyList: Hashable, Sendable {
    case string(String)
    case integer(Int64)
    case real(Double)
    case boolean(Bool)
    case date(Date)
    case data(Data)
    case array([PropertyList])
    case dictionary([String: PropertyList])

    /// The deepest nesting read or written (a DoS bound: each level is a recursion).
    package static let maximumDepth = 64

    /// Reads an XML or binary property list.
    ///
    /// - Parameter data: The property list; the caller bounds its size.
    /// - Throws: ``PinningError`` with code `invalidConfiguration` when it is not a property list, or holds a value
    ///   with no property list type (an integer beyond 64 bits), and `limitExceeded` beyond ``maximumDepth``.
    package init(propertyListData data: Data) throws {
        let object: Any
        do {
            var format = PropertyListSerialization.PropertyListFormat.xml
            object = try PropertyListSerialization.propertyList(from: data, options: [], format: &format)
        } catch {
            throw PinningError.invalidConfiguration(
                "the file is not a well-formed property list; check it with `plutil -lint`",
                detail: String(describing: error))
        }
        try self.init(foundationObject: object, depth: 1)
    }

    /// The value of what Foundation's property list reader returned. Booleans, integers and reals all bridge to
    /// `NSNumber`; its type encoding tells them apart, so `<integer>1</integer>` never reads as `<true/>`.
    private init(foundationObject object: Any, depth: Int) throws {
        guard depth <= Self.maximumDepth else {
            throw PinningError.limitExceeded("the property list nests deeper than \(Self.maximumDepth) levels")
        }
        if let text = object as? String {
            self = .string(text)
        } else if let date = object as? Date {
            self = .date(date)
        } else if let bytes = object as? Data {
            self = .data(bytes)
        } else if let number = object as? NSNumber {
            switch String(cString: number.objCType) {
            // A property list integer is never read as a char, so "c" is a boolean (Swift's Bool here, CFBoolean
            // on Apple platforms).
            case "c", "B": self = .boolean(number.boolValue)
            case "f", "d": self = .real(number.doubleValue)
            case "Q", "L", "I", "S", "C":
                guard let value = Int64(exactly: number.uint64Value) else {
                    throw PinningError.invalidConfiguration("the property list holds an integer beyond 64 bits")
                }
                self = .integer(value)
            default: self = .integer(number.int64Value)
            }
        } else if let elements = object as? [Any] {
            self = .array(try elements.map { try PropertyList(foundationObject: $0, depth: depth + 1) })
        } else if let entries = object as? [String: Any] {
            self = .dictionary(try entries.mapValues { try PropertyList(foundationObject: $0, depth: depth + 1) })
        } else {
            throw PinningError.invalidConfiguration(
                "the property list holds a value of no property list type", detail: "\(type(of: object))")
        }
    }

    /// The dictionary, when this is one.
    package var dictionaryValue: [String: PropertyList]? {
        if case .dictionary(let entries) = self { entries } else { nil }
    }

    /// The array, when this is one.
    package var arrayValue: [PropertyList]? {
        if case .array(let elements) = self { elements } else { nil }
    }

    /// The string, when this is one.
    package var stringValue: String? {
        if case .string(let text) = self { text } else { nil }
    }

    /// The boolean, when this is one (never an integer's truth).
    package var booleanValue: Bool? {
        if case .boolean(let flag) = self { flag } else { nil }
    }

    /// The value as an XML property list document (UTF-8, ending in a newline).
    ///
    /// - Returns: The document's bytes; the same value always gives the same bytes.
    /// - Throws: ``PinningError`` with code `invalidConfiguration` for a string or key holding a character XML 1.0
    ///   cannot carry (a control character other than tab, line feed and carriage return, U+FFFE, U+FFFF), and
    ///   `limitExceeded` beyond ``maximumDepth``.
    package func xmlData() throws -> Data {
        var text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">

            """
        try write(into: &text, indent: 0)
        text += "</plist>\n"
        return Data(text.utf8)
    }

    private func write(into text: inout String, indent: Int) throws {
        guard indent < Self.maximumDepth else {
            throw PinningError.limitExceeded("the property list nests deeper than \(Self.maximumDepth) levels")
        }
        let tabs = String(repeating: "\t", count: indent)
        switch self {
        case .string(let value): text += "\(tabs)<string>\(try Self.escaped(value))</string>\n"
        case .integer(let value): text += "\(tabs)<integer>\(value)</integer>\n"
        case .real(let value): text += "\(tabs)<real>\(Self.realText(value))</real>\n"
        case .boolean(let value): text += "\(tabs)<\(value ? "true" : "false")/>\n"
        case .date(let value): text += "\(tabs)<date>\(Self.dateText(value))</date>\n"
        case .data(let value): text += "\(tabs)<data>\(value.base64EncodedString())</data>\n"
        case .array(let elements):
            guard !elements.isEmpty else {
                text += "\(tabs)<array/>\n"
                return
            }
            text += "\(tabs)<array>\n"
            for element in elements { try element.write(into: &text, indent: indent + 1) }
            text += "\(tabs)</array>\n"
        case .dictionary(let entries):
            guard !entries.isEmpty else {
                text += "\(tabs)<dict/>\n"
                return
            }
            text += "\(tabs)<dict>\n"
            // Sorted by UTF-8 bytes, as CoreFoundation's writer sorts keys: stable output, minimal diffs.
            for (key, value) in entries.sorted(by: { Array($0.key.utf8).lexicographicallyPrecedes(Array($1.key.utf8)) })
            {
                text += "\(tabs)\t<key>\(try Self.escaped(key))</key>\n"
                try value.write(into: &text, indent: indent + 1)
            }
            text += "\(tabs)</dict>\n"
        }
    }

    /// `value` as XML character data: `&`, `<` and `>` as entities, a carriage return as a character reference
    /// (an XML reader turns a raw one into a line feed, XML 1.0 §2.11), and no character XML 1.0 §2.2 forbids.
    private static func escaped(_ value: String) throws -> String {
        var result = ""
        result.reserveCapacity(value.utf8.count)
        for scalar in value.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\r": result += "&#13;"
            case "\t", "\n": result.unicodeScalars.append(scalar)
            default:
                guard scalar.value >= 0x20, scalar.value != 0xFFFE, scalar.value != 0xFFFF else {
                    throw PinningError.invalidConfiguration(
                        "a property list string holds the control character U+\(String(scalar.value, radix: 16, uppercase: true)), "
                            + "which an XML property list cannot carry")
                }
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// A real as CoreFoundation reads it back: the shortest text that round-trips, `nan`, `+infinity`, `-infinity`.
    private static func realText(_ value: Double) -> String {
        if value.isNaN { return "nan" }
        if value.isInfinite { return value < 0 ? "-infinity" : "+infinity" }
        return "\(value)"
    }

    /// `yyyy-MM-ddTHH:mm:ssZ` in UTC, the date form of `PropertyList-1.0.dtd` (whole seconds).
    private static func dateText(_ value: Date) -> String {
        value.formatted(.iso8601)
    }
}
