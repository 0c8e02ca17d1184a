import RampartCrypto
import Testing

/// A conforming type written the way each module writes its error: stored fields only, every Hashable member left to
/// the protocol. Its stored properties are all Hashable, so if the compiler synthesised `==` or `hash(into:)` instead
/// of taking the protocol's defaults, the tests below would see fields other than the code compared.
private struct SampleError: RampartError {
    struct Code: Hashable, Sendable, CustomStringConvertible {
        let name: String
        var description: String { name }

        static let broken = Code(name: "broken")
        static let lost = Code(name: "lost")
    }

    let code: Code
    let reason: String
    let detail: String
    let file: String
    let line: UInt
}

/// A conforming type that keeps its own texts, as `VaultError` keeps its debug description.
private struct CustomTextError: RampartError {
    let code = SampleError.Code.broken
    let reason = "the reason"
    let detail = ""
    let file = "Module/File.swift"
    let line: UInt = 1

    var description: String { "custom" }
    var debugDescription: String { "custom debug" }
}

struct RampartErrorTests {
    private let first = SampleError(
        code: .broken, reason: "the widget broke; replace it", detail: "queue: x", file: "A/B.swift", line: 10)
    private let sameCodeElsewhere = SampleError(
        code: .broken, reason: "another reason", detail: "", file: "C/D.swift", line: 99)
    private let otherCode = SampleError(
        code: .lost, reason: "the widget broke; replace it", detail: "queue: x", file: "A/B.swift", line: 10)

    @Test("== compares the code only: reason, detail, file and line do not count")
    func equalityByCode() {
        #expect(first == sameCodeElsewhere)
        #expect(first != otherCode)
    }

    @Test("hash(into:) hashes the code only, so equal errors hash alike and a Set keeps one per code")
    func hashingByCode() {
        #expect(first.hashValue == sameCodeElsewhere.hashValue)
        var hasher = Hasher()
        hasher.combine(SampleError.Code.broken)
        #expect(first.hashValue == hasher.finalize())
        #expect(Set([first, sameCodeElsewhere, otherCode]).count == 2)
    }

    @Test("description is `code: reason`, without detail or raising site")
    func descriptionFormat() {
        #expect(first.description == "broken: the widget broke; replace it")
        #expect("\(first)" == "broken: the widget broke; replace it")
    }

    @Test("debugDescription is `Type.code: reason [detail] (file:line)`, the brackets only when there is detail")
    func debugDescriptionFormat() {
        #expect(first.debugDescription == "SampleError.broken: the widget broke; replace it [queue: x] (A/B.swift:10)")
        #expect(sameCodeElsewhere.debugDescription == "SampleError.broken: another reason (C/D.swift:99)")
        #expect(String(reflecting: first) == first.debugDescription)
    }

    @Test("a type's own description and debugDescription win over the defaults")
    func ownTextsWin() {
        let error = CustomTextError()
        #expect(error.description == "custom")
        #expect(error.debugDescription == "custom debug")
        #expect("\(error)" == "custom")
    }

    @Test("CryptoError takes the defaults: equal by code, `code: reason`, debug text with detail and site")
    func cryptoErrorUsesDefaults() {
        let short = CryptoError.invalidKey("the key is 31 bytes; AES-256 needs 32", file: "X/Y.swift", line: 3)
        let other = CryptoError.invalidKey("another reason")
        #expect(short == other)
        #expect(short.hashValue == other.hashValue)
        #expect(short != CryptoError.invalidParameter("the key is 31 bytes; AES-256 needs 32"))
        #expect(short.description == "invalidKey: the key is 31 bytes; AES-256 needs 32")
        #expect(short.debugDescription == "CryptoError.invalidKey: the key is 31 bytes; AES-256 needs 32 (X/Y.swift:3)")
    }

    @Test("a thrown error matches #expect(throws:) by code whatever its reason")
    func expectThrowsMatchesByCode() {
        #expect(throws: SampleError(code: .lost, reason: "", detail: "", file: "", line: 0)) {
            throw otherCode
        }
    }
}
