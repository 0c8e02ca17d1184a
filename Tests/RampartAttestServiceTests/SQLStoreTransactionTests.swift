import Foundation
import RampartSQLite
import Synchronization
import Testing

@testable import RampartAttestService

struct SQLStoreTransactionTests {
    @Test(
        "where the database counts changed rows, a spend and a counter advance run without RETURNING and follow the count"
    )
    func countedChanges() throws {
        for count in [0, 1] {
            let texts = Mutex<[String]>([])
            var transaction = SQLStoreTransaction(execute: { _ in
                Issue.record("a counted statement went through execute")
                return []
            })
            transaction.changes = { query in
                texts.withLock { $0.append(query.text { _ in "?" }) }
                return count
            }
            let spent = try transaction.spendChallenge(nonce: [1], expiresAt: StoreContract.future)
            let advanced = try transaction.advanceCounter(keyID: StoreContract.key().keyID, to: 2, usedAt: Date())
            #expect(spent == (count == 1))
            #expect(advanced == (count == 1))
            #expect(texts.withLock { $0 }.count == 2)
            #expect(texts.withLock { $0 }.allSatisfy { !$0.contains("RETURNING") })
        }
    }

    @Test("without a count, the same statements say whether they changed a row through RETURNING 1")
    func returnedRows() throws {
        for rows in [[], [SQLRow([.integer(1)])]] {
            let texts = Mutex<[String]>([])
            let transaction = SQLStoreTransaction(execute: { query in
                texts.withLock { $0.append(query.text { _ in "?" }) }
                return rows
            })
            #expect(try transaction.spendChallenge(nonce: [1], expiresAt: StoreContract.future) == !rows.isEmpty)
            #expect(
                try transaction.advanceCounter(keyID: StoreContract.key().keyID, to: 2, usedAt: Date()) == !rows.isEmpty
            )
            #expect(texts.withLock { $0 }.allSatisfy { $0.hasSuffix(" RETURNING 1") })
        }
    }
}
