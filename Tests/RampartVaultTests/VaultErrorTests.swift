import RampartVault
import Testing

struct VaultErrorTests {
    struct Mapping: Sendable, CustomTestStringConvertible {
        let code: VaultError.Code
        let osStatus: Int32
        var testDescription: String { "\(code) ↔ \(osStatus)" }
    }

    static let mappings: [Mapping] = [
        Mapping(code: .duplicateItem, osStatus: -25299),
        Mapping(code: .itemNotFound, osStatus: -25300),
        Mapping(code: .interactionNotAllowed, osStatus: -25308),
        Mapping(code: .missingEntitlement, osStatus: -34018),
        Mapping(code: .authFailed, osStatus: -25293),
        Mapping(code: .invalidParameters, osStatus: -50),
        Mapping(code: .noSuchAttribute, osStatus: -25303),
        Mapping(code: .integrityFailure, osStatus: -26275),
        Mapping(code: .notAvailable, osStatus: -25291),
        Mapping(code: .ioFailure, osStatus: -36),
    ]

    @Test("codes map to Keychain OSStatus values and back", arguments: mappings)
    func mapping(_ mapping: Mapping) {
        #expect(mapping.code.osStatus == mapping.osStatus)
        #expect(VaultError.Code(osStatus: mapping.osStatus) == mapping.code)
    }

    @Test("errSecSuccess and unknown statuses have no code")
    func unknown() {
        #expect(VaultError.Code(osStatus: 0) == nil)
        #expect(VaultError.Code(osStatus: -1) == nil)
    }

    @Test("errors compare by code; the description names the code and never a value")
    func equality() {
        #expect(VaultError.duplicateItem("a") == VaultError.duplicateItem("b"))
        #expect(VaultError.duplicateItem() != VaultError.itemNotFound())
        let error = VaultError.authFailed()
        #expect(error.description == "authFailed: wrong passphrase or not a Rampart vault")
        #expect(error.debugDescription.contains("-25293"))
        let item = VaultItem.genericPassword(service: "s", account: "a", value: Array("hunter2".utf8))
        #expect(!"\(item)".contains("hunter2"))
        #expect(!String(reflecting: item).contains("hunter2"))
    }
}
