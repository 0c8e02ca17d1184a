import Foundation
import RampartSQLite
import Testing

@testable import RampartAttestService

struct SQLStoreTransactionTests {
    static let unexpectedRows: [[SQLRow]] = [
        [], [SQLRow([.integer(2), .integer(0)])], [SQLRow([.integer(0), .integer(1)])],
        [SQLRow([.integer(1), .integer(1)]), SQLRow([.integer(1), .integer(1)])], [SQLRow([.null, .null])],
        [SQLRow([.integer(1)])],
    ]

    @Test(
        "a spend-and-advance answer other than one row of two counts (advanced ≤ spent ≤ 1) is storeFailure",
        arguments: unexpectedRows)
    func unexpectedSpendAndAdvanceRow(_ rows: [SQLRow]) {
        let transaction = SQLStoreTransaction(execute: { _ in rows }, modifiesInCommonTableExpressions: true)
        let error = #expect(throws: AttestServiceError.self) {
            try transaction.spendChallengeAndAdvanceCounter(
                nonce: [1], expiresAt: StoreContract.future, of: StoreContract.key(), to: 1, usedAt: Date())
        }
        #expect(error?.code == .storeFailure)
        #expect(error?.description.contains("returned an unexpected row") == true)
    }
}
