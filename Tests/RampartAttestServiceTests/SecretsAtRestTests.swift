import Foundation
import RampartAttestService
import RampartCrypto
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Issue 32 item 4: the service's secrets at rest. The SQLite file is created 0600, and access-token signing keys are
/// sealed under the challenge sealing keys, so a reader of the database cannot mint tokens.
struct SecretsAtRestTests {
    typealias F = TokensFixtures
    static let keyID = Data(SecureRandom.bytes(count: 32)).base64EncodedString()
    static let configuration = TokenConfiguration(audience: "ABCDE12345.com.example.app")

    static func mode(_ path: String) -> mode_t? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return status.st_mode & 0o777
    }

    @Test("a new SQLite store file and its WAL are created 0600, whatever the umask")
    func databaseMode() async throws {
        let path = temporarySQLitePath()
        let previous = umask(0)
        defer { umask(previous) }
        let store = try SQLiteAttestationStore(path: path)
        _ = try await store.transaction { try $0.tokenSigningKeys() }
        #expect(Self.mode(path) == 0o600)
        #expect(Self.mode(path + "-wal") == 0o600)
        await store.close()
        let missingDirectory = ScratchDirectory.uniquePath("absent") + "/store.db"
        let error = #expect(throws: AttestServiceError.self) { try SQLiteAttestationStore(path: missingDirectory) }
        #expect(error?.code == .storeFailure)
        #expect(error?.reason.contains("check that its directory exists") == true)
    }

    @Test("with sealing keys, signing keys are stored sealed: the row holds no PKCS#8 and opens only with the keys")
    func sealedSigningKeys() async throws {
        let path = temporarySQLitePath()
        let old = SymmetricKey(randomByteCount: 32)
        let sealing = try ChallengeSealingKeys(keys: [old])
        let store = try SQLiteAttestationStore(path: path)
        let issuer = try AccessTokenIssuer(configuration: Self.configuration, store: store, sealingKeys: sealing)
        let issued = try await issuer.issue(subject: "u", keyID: Self.keyID, environment: "production", now: F.now)
        let rows = try await store.transaction { try $0.tokenSigningKeys() }
        #expect(!rows.isEmpty)
        for row in rows {
            #expect(row.privateKey.starts(with: Array("RTK1".utf8)))
            #expect((try? ECPrivateKey(pkcs8DERRepresentation: row.privateKey)) == nil)
        }
        // Another process with the keys, the new one first (rotation): it verifies and signs with the stored key.
        let rotated = try ChallengeSealingKeys(keys: [SymmetricKey(randomByteCount: 32), old])
        let second = try AccessTokenIssuer(configuration: Self.configuration, store: store, sealingKeys: rotated)
        #expect(try await second.verify(issued.token, now: F.now).subject == "u")
        _ = try await second.issue(subject: "v", keyID: Self.keyID, environment: "production", now: F.now)
        // A reader of the database without the keys can neither sign nor verify with them.
        for keys in [nil, try ChallengeSealingKeys(keys: [SymmetricKey(randomByteCount: 32)])] {
            let reader = try AccessTokenIssuer(configuration: Self.configuration, store: store, sealingKeys: keys)
            let error = await #expect(throws: AttestServiceError.self) {
                try await reader.issue(subject: "mallory", keyID: Self.keyID, environment: "production", now: F.now)
            }
            #expect(error?.code == .storeFailure)
            #expect(
                error?.reason.contains(keys == nil ? "no challenge sealing keys are configured" : "no longer listed")
                    == true, "\(error?.reason ?? "")")
            let refused = await #expect(throws: AttestServiceError.self) {
                try await reader.verify(issued.token, now: F.now)
            }
            #expect(refused?.code == .invalidToken)
        }
        await store.close()
    }

    @Test("a sealed key moved to another row, or altered, does not open")
    func movedOrAlteredRow() async throws {
        let sealing = try ChallengeSealingKeys(keys: [SymmetricKey(randomByteCount: 32)])
        let store = try SQLiteAttestationStore(path: temporarySQLitePath())
        let issuer = try AccessTokenIssuer(configuration: Self.configuration, store: store, sealingKeys: sealing)
        _ = try await issuer.issue(subject: "u", keyID: Self.keyID, environment: "production", now: F.now)
        let row = try #require(try await store.transaction { try $0.tokenSigningKeys() }.first)
        for change in ["moved", "altered"] {
            var copy = row
            if change == "moved" {
                copy.keyID = F.base64URL(SecureRandom.bytes(count: 32))
            } else {
                copy.privateKey[copy.privateKey.count - 1] ^= 1
            }
            let planted = copy
            try await store.transaction { transaction in
                _ = try transaction.deleteTokenSigningKey(keyID: row.keyID)
                _ = try transaction.insertTokenSigningKey(planted)
            }
            let fresh = try AccessTokenIssuer(configuration: Self.configuration, store: store, sealingKeys: sealing)
            let error = await #expect(throws: AttestServiceError.self, "\(change)") {
                try await fresh.issue(subject: "u", keyID: Self.keyID, environment: "production", now: F.now)
            }
            #expect(error?.reason.contains("does not open under its sealing key") == true, "\(change)")
            try await store.transaction { transaction in
                _ = try transaction.deleteTokenSigningKey(keyID: planted.keyID)
                _ = try transaction.insertTokenSigningKey(row)
            }
        }
        await store.close()
    }
}
