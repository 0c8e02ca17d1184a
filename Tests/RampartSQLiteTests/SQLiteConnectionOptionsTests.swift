import Foundation
import TestSupport
import Testing

@testable import RampartSQLite

/// SQLite result codes the tests check in ``SQLiteError/resultCode`` (sqlite3.h).
enum ResultCode {
    /// `SQLITE_CANTOPEN`.
    static let cannotOpen: Int32 = 14
    /// `SQLITE_CANTOPEN_SYMLINK` (`SQLITE_CANTOPEN | (6 << 8)`).
    static let cannotOpenSymlink: Int32 = 1550
    /// `SQLITE_NOTADB`.
    static let notADatabase: Int32 = 26
}

/// The `-wal`, `-shm` and `-journal` files next to `path` that exist.
func sidecars(of path: String) -> [String] {
    ["-wal", "-shm", "-journal"].filter { FileManager.default.fileExists(atPath: path + $0) }
}

func bytes(of path: String) -> [UInt8] {
    FileManager.default.contents(atPath: path).map { [UInt8]($0) } ?? []
}

/// Options that never write on open: the file vault's, before it has checked a credential.
let existingUnchanged = SQLiteConnection.Options(mode: .readWriteExisting, journalMode: .unchanged)

struct SQLiteConnectionOptionsTests {
    @Test("readWriteExisting: a missing file is openFailed with SQLITE_CANTOPEN, and nothing is created")
    func missingFile() {
        let path = ScratchDirectory.uniquePath("missing.db")
        let error = #expect(throws: SQLiteError.self) {
            try SQLiteConnection(path: path, options: existingUnchanged)
        }
        #expect(error?.code == .openFailed)
        #expect(error?.resultCode == ResultCode.cannotOpen)
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(sidecars(of: path).isEmpty)
    }

    @Test("the default options create a missing file and switch it to WAL")
    func defaultsCreateWAL() throws {
        let path = ScratchDirectory.uniquePath("created.db")
        let connection = try SQLiteConnection(path: path)
        #expect(FileManager.default.fileExists(atPath: path))
        #expect(try connection.query("PRAGMA journal_mode").first?.text(0) == "wal")
        #expect(try connection.query("PRAGMA synchronous").first?.integer(0) == 2)
        #expect(try connection.query("PRAGMA foreign_keys").first?.integer(0) == 1)
    }

    @Test("journalMode unchanged: a rollback-journal file stays so, and writing leaves no -wal or -shm file")
    func unchangedJournal() throws {
        let path = ScratchDirectory.uniquePath("rollback.db")
        do {
            let connection = try SQLiteConnection(path: path, options: .init(journalMode: .unchanged))
            try connection.execute(unsafeScript: "CREATE TABLE t (a INTEGER)")
            _ = try connection.transaction { try connection.run("INSERT INTO t VALUES (\(1))") }
            #expect(try connection.query("PRAGMA journal_mode").first?.text(0) == "delete")
            #expect(sidecars(of: path).isEmpty)
        }
        let reopened = try SQLiteConnection(path: path, options: existingUnchanged)
        #expect(try reopened.query("SELECT a FROM t").first?.integer(0) == 1)
        #expect(try reopened.query("PRAGMA journal_mode").first?.text(0) == "delete")
    }

    @Test("readWriteExisting and unchanged: reading a WAL file changes no byte and leaves no -wal or -shm file")
    func readLeavesNothing() throws {
        let path = ScratchDirectory.uniquePath("wal.db")
        do {
            let connection = try SQLiteConnection(path: path)
            try connection.execute(unsafeScript: "CREATE TABLE t (a INTEGER)")
            try connection.run("INSERT INTO t VALUES (\(7))")
        }
        let before = bytes(of: path)
        #expect(sidecars(of: path).isEmpty)
        do {
            let connection = try SQLiteConnection(path: path, options: existingUnchanged)
            #expect(try connection.transaction(.deferred) { try connection.query("SELECT a FROM t") }.count == 1)
        }
        #expect(bytes(of: path) == before)
        #expect(sidecars(of: path).isEmpty)
    }

    @Test("a file that is not a database is openFailed with SQLITE_NOTADB and is not modified")
    func notADatabase() throws {
        let path = ScratchDirectory.uniquePath("junk.db")
        let junk = (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try Data(junk).write(to: URL(fileURLWithPath: path))
        for options in [existingUnchanged, SQLiteConnection.Options()] {
            let error = #expect(throws: SQLiteError.self) { try SQLiteConnection(path: path, options: options) }
            #expect(error?.code == .openFailed)
            #expect(error?.resultCode == ResultCode.notADatabase)
            #expect(error?.isNotADatabase == true)
            #expect(bytes(of: path) == junk)
            #expect(sidecars(of: path).isEmpty)
        }
    }

    @Test("followsSymbolicLinks false: a link is openFailed with SQLITE_CANTOPEN_SYMLINK; true opens its target")
    func symbolicLinks() throws {
        let target = ScratchDirectory.uniquePath("target.db")
        let link = ScratchDirectory.uniquePath("link.db")
        try SQLiteConnection(path: target).execute(unsafeScript: "CREATE TABLE t (a INTEGER)")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        let before = bytes(of: target)
        let error = #expect(throws: SQLiteError.self) {
            try SQLiteConnection(
                path: link,
                options: .init(mode: .readWriteExisting, journalMode: .unchanged, followsSymbolicLinks: false))
        }
        #expect(error?.code == .openFailed)
        #expect(error?.resultCode == ResultCode.cannotOpenSymlink)
        #expect(bytes(of: target) == before)
        let followed = try SQLiteConnection(path: link, options: existingUnchanged)
        #expect(try followed.query("SELECT count(*) FROM t").first?.integer(0) == 0)
    }

    @Test("synchronous sets the connection's level", arguments: SQLiteConnection.Options.Synchronous.allCases)
    func synchronous(level: SQLiteConnection.Options.Synchronous) throws {
        let connection = try SQLiteConnection(path: ":memory:", options: .init(synchronous: level))
        let expected: Int64 =
            switch level {
            case .normal: 1
            case .full: 2
            case .extra: 3
            }
        #expect(try connection.query("PRAGMA synchronous").first?.integer(0) == expected)
    }

    @Test("the busy timeout is whole milliseconds, clamped to 0 … Int32.max")
    func busyTimeoutClamp() {
        let cases: [(Duration, Int32)] = [
            (.milliseconds(1500), 1500), (.zero, 0), (.seconds(-3), 0), (.milliseconds(-1), 0),
            (.seconds(30), 30000), (.seconds(Int64.max), Int32.max), (.seconds(2_147_483), Int32.max),
        ]
        for (duration, milliseconds) in cases {
            #expect(SQLiteConnection.Options(busyTimeout: duration).busyTimeoutMilliseconds == milliseconds)
        }
    }

    @Test("a writer that cannot get the lock within its busy timeout is busy")
    func busy() throws {
        let path = ScratchDirectory.uniquePath("busy.db")
        let holder = try SQLiteConnection(path: path)
        try holder.execute(unsafeScript: "CREATE TABLE t (a INTEGER)")
        let waiter = try SQLiteConnection(path: path, options: .init(mode: .readWriteExisting, busyTimeout: .zero))
        try holder.execute(unsafeScript: "BEGIN IMMEDIATE")
        let error = #expect(throws: SQLiteError.self) {
            try waiter.transaction { try waiter.run("INSERT INTO t VALUES (\(1))") }
        }
        #expect(error?.code == .busy)
        // A deferred transaction only reads, so it runs beside the writer (WAL).
        #expect(try waiter.transaction(.deferred) { try waiter.query("SELECT a FROM t") }.isEmpty)
        try holder.execute(unsafeScript: "COMMIT")
        #expect(try waiter.transaction { try waiter.run("INSERT INTO t VALUES (\(1))") } == 1)
    }

    @Test("switchToWAL converts a rollback-journal file; against a held lock it is busy and changes nothing")
    func switchToWAL() throws {
        let path = ScratchDirectory.uniquePath("switch.db")
        let holder = try SQLiteConnection(path: path, options: .init(journalMode: .unchanged))
        try holder.execute(unsafeScript: "CREATE TABLE t (a INTEGER)")
        let switcher = try SQLiteConnection(path: path, options: .init(journalMode: .unchanged, busyTimeout: .zero))
        try holder.run("INSERT INTO t VALUES (\(1))")
        try holder.execute(unsafeScript: "BEGIN EXCLUSIVE")
        let error = #expect(throws: SQLiteError.self) { try switcher.switchToWAL() }
        #expect(error?.code == .busy)
        try holder.execute(unsafeScript: "COMMIT")
        #expect(try holder.query("PRAGMA journal_mode").first?.text(0) == "delete")
        try switcher.switchToWAL()
        let fresh = try SQLiteConnection(path: path, options: existingUnchanged)
        #expect(try fresh.query("PRAGMA journal_mode").first?.text(0) == "wal")
    }

    @Test("switchToWAL waits, within its busy timeout, for a connection holding the file to let go")
    func switchToWALWaits() throws {
        let path = ScratchDirectory.uniquePath("wait.db")
        let holder = try SQLiteConnection(path: path, options: .init(journalMode: .unchanged))
        try holder.execute(unsafeScript: "CREATE TABLE t (a INTEGER)")
        let switcher = try SQLiteConnection(
            path: path, options: .init(journalMode: .unchanged, busyTimeout: .seconds(20)))
        try holder.execute(unsafeScript: "BEGIN EXCLUSIVE")
        let released = DispatchSemaphore(value: 0)
        nonisolated(unsafe) let held = holder
        Thread.detachNewThread {
            usleep(200_000)
            try? held.execute(unsafeScript: "COMMIT")
            released.signal()
        }
        try switcher.switchToWAL()
        released.wait()
        let fresh = try SQLiteConnection(path: path, options: existingUnchanged)
        #expect(try fresh.query("PRAGMA journal_mode").first?.text(0) == "wal")
    }

    @Test("UNIQUE and PRIMARY KEY failures are unique violations; NOT NULL and CHECK are constraint failures only")
    func uniqueViolations() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        try connection.execute(
            unsafeScript:
                "CREATE TABLE t (id INTEGER PRIMARY KEY, u TEXT UNIQUE, n TEXT NOT NULL, c INTEGER CHECK (c > 0))"
        )
        try connection.run("INSERT INTO t VALUES (\(1), \("a"), \("n"), \(1))")
        let refused: [(SQLQuery, Bool)] = [
            ("INSERT INTO t VALUES (\(1), \("b"), \("n"), \(1))", true),
            ("INSERT INTO t VALUES (\(2), \("a"), \("n"), \(1))", true),
            ("INSERT INTO t VALUES (\(2), \("b"), \(String?.none), \(1))", false),
            ("INSERT INTO t VALUES (\(2), \("b"), \("n"), \(0))", false),
        ]
        for (query, isUnique) in refused {
            let error = #expect(throws: SQLiteError.self) { try connection.run(query) }
            #expect(error?.code == .constraint)
            #expect(error?.isUniqueViolation == isUnique)
        }
    }

    @Test("optionals bind NULL, booleans bind 1 or 0, and raw fragments are text without bindings")
    func interpolations() throws {
        let columns: StaticString = "a, b"
        let missing: String? = nil
        let flag = true
        let query: SQLQuery = "SELECT \(raw: columns) FROM t WHERE a = \(missing) AND b = \(flag) AND c = \(Int?(4))"
        #expect(query.text { _ in "?" } == "SELECT a, b FROM t WHERE a = ? AND b = ? AND c = ?")
        #expect(query.bindings == [.null, .integer(1), .integer(4)])
        let connection = try SQLiteConnection(path: ":memory:")
        let row = try connection.query("SELECT \([UInt8]?.none), \(false), \(Int64?.none), \([UInt8]?([1]))").first
        #expect(row?.values == [.null, .integer(0), .null, .blob([1])])
    }

    @Test("a query interpolated into another keeps its text in place and its bindings in order")
    func nestedQuery() throws {
        let condition: SQLQuery = "b = \(Int64(2)) AND c = \("x")"
        let query: SQLQuery = "SELECT a FROM t WHERE a = \(Int64(1)) AND \(condition) AND d = \([UInt8]([3]))"
        #expect(query.text { "$\($0)" } == "SELECT a FROM t WHERE a = $1 AND b = $2 AND c = $3 AND d = $4")
        #expect(query.bindings == [.integer(1), .integer(2), .text("x"), .blob([3])])
        let bare: SQLQuery = "SELECT \(SQLQuery("1 + 1"))"
        #expect(bare.text { _ in "?" } == "SELECT 1 + 1")
        #expect(bare.bindings.isEmpty)
        // Bound by position: the nested values land on their own placeholders.
        let connection = try SQLiteConnection(path: ":memory:")
        let nested: SQLQuery = "\(Int64(2)) = 2 AND \("x") = 'x'"
        #expect(
            try connection.query("SELECT \(Int64(1)) WHERE \(nested) AND \(Int64(3)) = 3").first?.values == [
                .integer(1)
            ])
    }
}
