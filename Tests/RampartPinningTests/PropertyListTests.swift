import Foundation
import RampartPinning
import Testing

/// Rampart's XML property list writer: Apple's layout, byte-stable, read back by the reader to the same value.
struct PropertyListTests {
    /// Every type, the characters XML escapes, and empty collections.
    static let everything = PropertyList.dictionary([
        "string": .string("a & b < c > d \"quoted\" 'single' é 😀"),
        "carriage": .string("line one\r\nline two\ttabbed"),
        "key <&>": .boolean(true),
        "false": .boolean(false),
        "integers": .array([.integer(0), .integer(1), .integer(-1), .integer(.max), .integer(.min)]),
        "reals": .array([.real(1.5), .real(-0.25), .real(1e300), .real(0)]),
        "date": .date(Date(timeIntervalSince1970: 1_790_000_000)),
        "data": .data(Data([0, 1, 2, 0xFF, 0xFE])),
        "empty": .dictionary([:]),
        "none": .array([]),
        "nested": .array([.dictionary(["SPKI-SHA256-BASE64": .string("x")]), .array([.string("deep")])]),
    ])

    @Test("the writer's output reads back to the same value, and writing it again gives the same bytes")
    func roundTrip() throws {
        let written = try Self.everything.xmlData()
        let read = try PropertyList(propertyListData: written)
        #expect(read == Self.everything)
        #expect(try read.xmlData() == written)
    }

    @Test("a dictionary is written in Apple's layout: DOCTYPE, tabs, sorted keys, escaped text, <dict/> and <array/>")
    func layout() throws {
        let value = PropertyList.dictionary([
            "b": .array([.string("x<y&z"), .integer(-3)]),
            "a": .dictionary(["on": .boolean(true), "n": .real(2.5)]),
            "B": .dictionary([:]),
            "c": .array([]),
            "d": .date(Date(timeIntervalSince1970: 0)),
            "e": .data(Data("hi".utf8)),
        ])
        let expected = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
            \t<key>B</key>
            \t<dict/>
            \t<key>a</key>
            \t<dict>
            \t\t<key>n</key>
            \t\t<real>2.5</real>
            \t\t<key>on</key>
            \t\t<true/>
            \t</dict>
            \t<key>b</key>
            \t<array>
            \t\t<string>x&lt;y&amp;z</string>
            \t\t<integer>-3</integer>
            \t</array>
            \t<key>c</key>
            \t<array/>
            \t<key>d</key>
            \t<date>1970-01-01T00:00:00Z</date>
            \t<key>e</key>
            \t<data>aGk=</data>
            </dict>
            </plist>

            """
        #expect(String(decoding: try value.xmlData(), as: UTF8.self) == expected)
    }

    @Test("an integer 1 and 0 read as integers, never as booleans; reals stay reals")
    func numbersAreTyped() throws {
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict><key>one</key><integer>1</integer><key>zero</key><integer>0</integer>
            <key>yes</key><true/><key>half</key><real>0.5</real><key>whole</key><real>2</real></dict></plist>
            """
        let value = try PropertyList(propertyListData: Data(xml.utf8))
        #expect(
            value
                == .dictionary([
                    "one": .integer(1), "zero": .integer(0), "yes": .boolean(true), "half": .real(0.5),
                    "whole": .real(2),
                ]))
    }

    @Test("a binary property list reads to the same value as its XML form")
    func binary() throws {
        let object = try PropertyListSerialization.propertyList(
            from: try Self.everything.xmlData(), options: [], format: nil)
        let binary = try PropertyListSerialization.data(fromPropertyList: object, format: .binary, options: 0)
        #expect(binary.starts(with: Array("bplist".utf8)))
        #expect(try PropertyList(propertyListData: binary) == Self.everything)
    }

    @Test(
        "a string XML cannot carry is refused, not written",
        arguments: ["nul \u{0}", "bell \u{7}", "escape \u{1B}", "noncharacter \u{FFFE}"])
    func unwritableText(_ text: String) throws {
        let error = #expect(throws: PinningError.self) { try PropertyList.string(text).xmlData() }
        #expect(error?.code == .invalidConfiguration)
        #expect(error?.reason.contains("XML property list cannot carry") == true)
        let asKey = #expect(throws: PinningError.self) { try PropertyList.dictionary([text: .boolean(true)]).xmlData() }
        #expect(asKey?.code == .invalidConfiguration)
    }

    @Test("nesting beyond the limit is refused when writing and when reading")
    func depth() throws {
        var value = PropertyList.string("bottom")
        for _ in 0..<PropertyList.maximumDepth { value = .array([value]) }
        let writing = #expect(throws: PinningError.self) { try value.xmlData() }
        #expect(writing?.code == .limitExceeded)
        let levels = PropertyList.maximumDepth + 1
        let xml =
            "<plist version=\"1.0\">" + String(repeating: "<array>", count: levels) + "<string>x</string>"
            + String(repeating: "</array>", count: levels) + "</plist>"
        let reading = #expect(throws: PinningError.self) { try PropertyList(propertyListData: Data(xml.utf8)) }
        #expect(reading?.code == .limitExceeded)
    }

    @Test("text that is not a property list is refused with invalidConfiguration")
    func notAPropertyList() throws {
        for text in ["{\"json\": true}", "<plist version=\"1.0\"><dict><key>a</key></plist>", "(unclosed, \"array\""] {
            let error = #expect(throws: PinningError.self) { try PropertyList(propertyListData: Data(text.utf8)) }
            #expect(error?.code == .invalidConfiguration, "\(text)")
        }
    }
}
