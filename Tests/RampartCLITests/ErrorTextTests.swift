import RampartAppAttest
import RampartAttestClient
import RampartAttestService
import RampartPinning
import RampartSeal
import RampartTLS
import RampartVault
import RampartX509
import Testing

/// Every library module's error takes its equality, hashing and texts from RampartCrypto's `RampartError`, and the
/// command line prints those texts. This file deliberately does not import RampartCrypto: `RampartError` must reach it
/// through the modules' re-export, as it reaches a caller that imports only one of them.
struct ErrorTextTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let typeName: String
        let description: String
        let debugDescription: String
        let expectedDescription: String
        let expectedDebugDescription: String
        let equalsSameCode: Bool
        let hashesLikeSameCode: Bool
        let equalsOtherCode: Bool
        var testDescription: String { typeName }

        /// Records what `error` says and how it compares with `sameCode` (raised elsewhere, for another reason) and
        /// `otherCode` (the same reason under another code).
        init<E: RampartError>(_ error: E, sameCode: E, otherCode: E, description: String, debugDescription: String) {
            typeName = "\(E.self)"
            self.description = error.description
            self.debugDescription = error.debugDescription
            expectedDescription = description
            expectedDebugDescription = debugDescription
            equalsSameCode = error == sameCode
            hashesLikeSameCode = error.hashValue == sameCode.hashValue
            equalsOtherCode = error == otherCode
        }
    }

    static let cases: [Case] = [
        Case(
            X509Error.invalidDER("a length is not minimal", file: "M/F.swift", line: 7),
            sameCode: .invalidDER("another reason"),
            otherCode: .invalidPEM("a length is not minimal", file: "M/F.swift", line: 7),
            description: "invalidDER: a length is not minimal",
            debugDescription: "X509Error.invalidDER: a length is not minimal (M/F.swift:7)"
        ),
        Case(
            PinningError.invalidConfiguration("no domains", detail: "NSPinnedDomains", file: "M/F.swift", line: 7),
            sameCode: .invalidConfiguration("another reason"),
            otherCode: .invalidPin("no domains", file: "M/F.swift", line: 7),
            description: "invalidConfiguration: no domains",
            debugDescription: "PinningError.invalidConfiguration: no domains [NSPinnedDomains] (M/F.swift:7)"
        ),
        Case(
            TLSError.handshakeFailed("no common cipher", detail: "alert 40", file: "M/F.swift", line: 7),
            sameCode: .handshakeFailed("another reason"),
            otherCode: .timedOut("no common cipher", file: "M/F.swift", line: 7),
            description: "handshakeFailed: no common cipher",
            debugDescription: "TLSError.handshakeFailed: no common cipher [alert 40] (M/F.swift:7)"
        ),
        Case(
            AppAttestError.malformedReceipt("not CMS", detail: "offset 3", file: "M/F.swift", line: 7),
            sameCode: .malformedReceipt("another reason"),
            otherCode: .malformedCBOR("not CMS", file: "M/F.swift", line: 7),
            description: "malformedReceipt: not CMS",
            debugDescription: "AppAttestError.malformedReceipt: not CMS [offset 3] (M/F.swift:7)"
        ),
        Case(
            AttestServiceError.storeFailure("the store is down", detail: "refused", file: "M/F.swift", line: 7),
            sameCode: .storeFailure("another reason"),
            otherCode: .serverFailure("the store is down", file: "M/F.swift", line: 7),
            description: "storeFailure: the store is down",
            debugDescription: "AttestServiceError.storeFailure: the store is down [refused] (M/F.swift:7)"
        ),
        Case(
            SealError.keyStoreFailure("no such key", detail: "keyring locked", file: "M/F.swift", line: 7),
            sameCode: .keyStoreFailure("another reason"),
            otherCode: .ioFailure("no such key", file: "M/F.swift", line: 7),
            description: "keyStoreFailure: no such key",
            debugDescription: "SealError.keyStoreFailure: no such key [keyring locked] (M/F.swift:7)"
        ),
        Case(
            AttestedClientError.transportFailure("no answer", detail: "timed out", file: "M/F.swift", line: 7),
            sameCode: .transportFailure("another reason"),
            otherCode: .unexpectedResponse("no answer", file: "M/F.swift", line: 7),
            description: "transportFailure: no answer",
            debugDescription: "AttestedClientError.transportFailure: no answer [timed out] (M/F.swift:7)"
        ),
        // VaultError keeps its own debug text, which adds the Keychain OSStatus.
        Case(
            VaultError.ioFailure("disk full", detail: "SQLITE_FULL", file: "M/F.swift", line: 7),
            sameCode: .ioFailure("another reason"),
            otherCode: .notAvailable("disk full", detail: "SQLITE_FULL", file: "M/F.swift", line: 7),
            description: "ioFailure: disk full",
            debugDescription: "VaultError.ioFailure (-36): disk full [SQLITE_FULL] (M/F.swift:7)"
        ),
    ]

    @Test(
        "each module's error compares and hashes by code and keeps `code: reason` and its debug text", arguments: cases)
    func texts(_ check: Case) {
        #expect(check.description == check.expectedDescription)
        #expect(check.debugDescription == check.expectedDebugDescription)
        #expect(check.equalsSameCode)
        #expect(check.hashesLikeSameCode)
        #expect(!check.equalsOtherCode)
    }

    @Test("the texts are reachable on the concrete types without importing RampartCrypto")
    func concreteMembers() {
        let error = TLSError.timedOut("the handshake took longer than 5 s", file: "M/F.swift", line: 7)
        #expect(error.description == "timedOut: the handshake took longer than 5 s")
        #expect(error.debugDescription == "TLSError.timedOut: the handshake took longer than 5 s (M/F.swift:7)")
        var hasher = Hasher()
        error.hash(into: &hasher)
        #expect(hasher.finalize() == error.hashValue)
    }
}
