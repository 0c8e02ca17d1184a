import Foundation
import RampartAttestService
import RampartCrypto
import RampartJOSE
import RampartSQLite
import TestSupport
import Testing

/// The `rampart_token_keys` operations on both stores, and the table's migration (schema version 4) from version 2.
enum TokenKeyContract {
    static func record(
        slot: Int64 = Int64.random(in: 1_000_000...Int64(Int32.max)), created: Double = 1_800_000_000
    )
        -> TokenSigningKeyRecord
    {
        TokenSigningKeyRecord(
            keyID: TokensFixtures.base64URL(SecureRandom.bytes(count: 32)),
            createdAt: Date(timeIntervalSince1970: created), slot: slot,
            privateKey: ECPrivateKey(curve: .p256).pkcs8DERRepresentation)
    }

    static func keysRoundTripAndSlotsAreUnique(_ store: any AttestationStore) async throws {
        let first = record(created: 7_000_000_000.5)
        #expect(try await store.transaction { try $0.insertTokenSigningKey(first) })
        var sameSlot = record(slot: first.slot)
        sameSlot.createdAt = first.createdAt
        let conflict = sameSlot
        #expect(try await store.transaction { try $0.insertTokenSigningKey(conflict) } == false)
        var sameKid = record()
        sameKid.keyID = first.keyID
        let kidConflict = sameKid
        #expect(try await store.transaction { try $0.insertTokenSigningKey(kidConflict) } == false)
        let second = record(created: 7_000_000_001)
        #expect(try await store.transaction { try $0.insertTokenSigningKey(second) })
        let all = try await store.transaction { try $0.tokenSigningKeys() }
        let mine = all.filter { [first.keyID, second.keyID].contains($0.keyID) }
        #expect(mine == [first, second])
        #expect(try await store.transaction { try $0.deleteTokenSigningKey(keyID: first.keyID) })
        #expect(try await store.transaction { try $0.deleteTokenSigningKey(keyID: first.keyID) } == false)
        let left = try await store.transaction { try $0.tokenSigningKeys() }.map(\.keyID)
        #expect(!left.contains(first.keyID) && left.contains(second.keyID))
        #expect(try await store.transaction { try $0.deleteTokenSigningKey(keyID: second.keyID) })
    }

    static func concurrentInsertsForOneSlotMakeOneKey(_ store: any AttestationStore) async throws {
        let slot = Int64.random(in: 1_000_000...Int64(Int32.max))
        let winners = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    let candidate = record(slot: slot, created: 7_000_000_003)
                    return try await store.transaction { try $0.insertTokenSigningKey(candidate) }
                }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(winners == 1)
        let deleted = try await store.transaction { transaction in
            try transaction.tokenSigningKeys().filter { $0.slot == slot }
                .filter { try transaction.deleteTokenSigningKey(keyID: $0.keyID) }.count
        }
        #expect(deleted == 1)
    }

    /// Two issuers on one database, racing at one instant of a pre-publication window, make exactly one key for the
    /// current period and one for the next between them, sign with the current one and publish both.
    ///
    /// The issuers rotate hourly in a random hour of 2004 to 2015: no real issuer (daily, now) and no contract key
    /// (2191) is published or retired then, so a shared PostgreSQL database is left as it was.
    static func twoIssuersPreMakeOneNextKey(_ one: any AttestationStore, _ two: any AttestationStore) async throws {
        let configuration = TokenConfiguration(audience: "T.b", lifetimeSeconds: 600, rotationSeconds: 3_600)
        let slot = Int64.random(in: 300_000...400_000)
        let windowStart = Double(slot + 1) * 3_600 - Double(configuration.prePublicationSeconds)
        let now = Date(timeIntervalSince1970: windowStart + 1)
        let first = try AccessTokenIssuer(configuration: configuration, store: one)
        let second = try AccessTokenIssuer(configuration: configuration, store: two)
        let keyID = Data(SecureRandom.bytes(count: 32)).base64EncodedString()
        async let a = first.issue(subject: "u", keyID: keyID, environment: "production", now: now)
        async let b = second.issue(subject: "v", keyID: keyID, environment: "production", now: now)
        let (fromFirst, fromSecond) = try await (a, b)
        let records = try await one.transaction { try $0.tokenSigningKeys() }.filter {
            [slot, slot + 1].contains($0.slot)
        }
        #expect(records.map(\.slot).sorted() == [slot, slot + 1])
        let current = try #require(records.first { $0.slot == slot })
        let next = try #require(records.first { $0.slot == slot + 1 })
        #expect(fromFirst.claims.signingKeyID == current.keyID && fromSecond.claims.signingKeyID == current.keyID)
        for issuer in [first, second] {
            let published = try JSONWebKeySet(jsonEncoded: try await issuer.jwks(now: now)).keys.compactMap(\.keyID)
            #expect(published == [current.keyID, next.keyID])
        }
        #expect(try await first.verify(fromSecond.token, now: now).subject == "v")
        #expect(try await second.verify(fromFirst.token, now: now).subject == "u")
        for record in records {
            #expect(try await one.transaction { try $0.deleteTokenSigningKey(keyID: record.keyID) })
        }
    }
}

struct TokensStoreTests {
    @Test("SQLite: token keys round-trip, slots and kids are unique, old keys are deleted")
    func sqliteKeys() async throws {
        try await TokenKeyContract.keysRoundTripAndSlotsAreUnique(SQLiteAttestationStore(path: temporarySQLitePath()))
    }

    @Test("SQLite: 20 concurrent inserts for one slot make exactly one key")
    func sqliteConcurrent() async throws {
        try await TokenKeyContract.concurrentInsertsForOneSlotMakeOneKey(
            SQLiteAttestationStore(path: temporarySQLitePath()))
    }

    @Test("SQLite: two issuers on one file, in the pre-publication window, make exactly one next key")
    func sqlitePreMadeKey() async throws {
        let path = temporarySQLitePath()
        try await TokenKeyContract.twoIssuersPreMakeOneNextKey(
            SQLiteAttestationStore(path: path), SQLiteAttestationStore(path: path))
    }

    /// StoreSchemaTests' version 2 tables, with one key.
    static let version2 =
        StoreSchemaTests.version2 + """
            INSERT INTO rampart_keys (key_id, subject, public_key, environment, counter, receipt, registered_at,
                risk_score) VALUES ('a2V5', 'alice', x'04', 'production', 7, x'00', 1790000000000, 2);
            """

    func database(_ script: String) throws -> String {
        let path = temporarySQLitePath()
        try SQLiteConnection(path: path).execute(unsafeScript: script)
        return path
    }

    @Test("a version 2 database migrates to version 6, keeps its keys and gains rampart_token_keys")
    func migrationFrom2() async throws {
        let path = try database(Self.version2)
        let store = try SQLiteAttestationStore(path: path)
        #expect(try await store.transaction { try $0.key(id: "a2V5") }?.counter == 7)
        try await TokenKeyContract.keysRoundTripAndSlotsAreUnique(store)
        await store.close()
        #expect(try SQLiteConnection(path: path).query("SELECT version FROM rampart_schema").first?.integer(0) == 6)
        let reopened = try SQLiteAttestationStore(path: path)  // the migrated file opens as version 6
        await reopened.close()
    }

    @Test("a version 1 database migrates straight to version 6")
    func migrationFrom1() async throws {
        let path = try database(StoreSchemaTests.version1)
        let store = try SQLiteAttestationStore(path: path)
        #expect(try await store.transaction { try $0.tokenSigningKeys() }.isEmpty)
        await store.close()
        #expect(try SQLiteConnection(path: path).query("SELECT version FROM rampart_schema").first?.integer(0) == 6)
    }

    @Test("a version 2 database that already has a rampart_token_keys table is refused")
    func strayTable() throws {
        let path = try database(Self.version2 + "CREATE TABLE rampart_token_keys (id INTEGER);")
        let error = #expect(throws: AttestServiceError.self) { try SQLiteAttestationStore(path: path) }
        #expect(error?.code == .storeFailure)
        #expect(error?.reason.contains("already holds a rampart_token_keys table") == true)
    }

    @Test("a current database whose rampart_token_keys has other columns is refused")
    func foreignTokenTable() async throws {
        let path = temporarySQLitePath()
        await (try SQLiteAttestationStore(path: path)).close()
        _ = try SQLiteConnection(path: path).query("ALTER TABLE rampart_token_keys DROP COLUMN private_key")
        let error = #expect(throws: AttestServiceError.self) { try SQLiteAttestationStore(path: path) }
        #expect(error?.code == .storeFailure)
        #expect(error?.reason.contains("rampart_token_keys has columns created_at, kid, slot") == true)
    }
}

/// Serialized: the tests share one database. The contract's keys are made in 2191 and deleted by kid, so real
/// issuers elsewhere never delete them.
@Suite(
    .serialized,
    .enabled(if: testPostgresURL != nil, "RAMPART_TEST_POSTGRES_URL is unset; run scripts/test.sh to start PostgreSQL"))
struct TokensPostgresStoreTests {
    func store() throws -> PostgresAttestationStore {
        try PostgresAttestationStore(url: testPostgresURL ?? "", poolSize: 4)
    }

    @Test("PostgreSQL: token keys round-trip, slots and kids are unique, old keys are deleted")
    func keys() async throws { try await TokenKeyContract.keysRoundTripAndSlotsAreUnique(store()) }

    @Test("PostgreSQL: 20 concurrent inserts for one slot make exactly one key")
    func concurrent() async throws { try await TokenKeyContract.concurrentInsertsForOneSlotMakeOneKey(store()) }

    @Test("PostgreSQL: two issuers on one database, in the pre-publication window, make exactly one next key")
    func preMadeKey() async throws { try await TokenKeyContract.twoIssuersPreMakeOneNextKey(store(), store()) }

    @Test("PostgreSQL: two issuers on one database sign with one key and verify each other's tokens")
    func sharedIssuers() async throws {
        let configuration = TokenConfiguration(audience: "T.b")
        let one = try AccessTokenIssuer(configuration: configuration, store: store())
        let two = try AccessTokenIssuer(configuration: configuration, store: store())
        let now = Date()
        let keyID = Data(SecureRandom.bytes(count: 32)).base64EncodedString()
        async let a = one.issue(subject: "u", keyID: keyID, environment: "production", now: now)
        async let b = two.issue(subject: "v", keyID: keyID, environment: "production", now: now)
        let (first, second) = try await (a, b)
        #expect(first.claims.signingKeyID == second.claims.signingKeyID)
        #expect(try await two.verify(first.token, now: now).subject == "u")
        #expect(try await one.verify(second.token, now: now).subject == "v")
    }
}
