extension SQLiteConnection {
    /// How ``SQLiteConnection/init(path:options:)`` opens and configures a database file.
    ///
    /// The defaults are what a store that owns its file wants: create it when missing, switch it to WAL, commit with
    /// `synchronous=FULL`, wait ``SQLiteConnection/busyTimeoutMilliseconds`` for a lock and follow symbolic links.
    ///
    /// A caller that must not change a file it has not yet authenticated (the file vault before its credential is
    /// checked) asks for ``OpenMode/readWriteExisting`` and ``JournalMode/unchanged``: opening then creates no file
    /// and changes no byte of an existing one, and any `-wal`/`-shm` file SQLite makes while reading a WAL database
    /// is removed when the connection closes. It can switch to WAL later with ``SQLiteConnection/switchToWAL()``.
    ///
    /// ```swift
    /// let connection = try SQLiteConnection(
    ///     path: path,
    ///     options: .init(mode: .readWriteExisting, journalMode: .unchanged, followsSymbolicLinks: false))
    /// ```
    package struct Options: Sendable, Hashable {
        /// Whether opening may create the file.
        package enum OpenMode: Sendable, Hashable {
            /// Read and write, creating a missing file (`SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE`).
            case readWriteCreate
            /// Read and write an existing file only (`SQLITE_OPEN_READWRITE`): a missing file is
            /// ``SQLiteError/Code/openFailed`` with result code `SQLITE_CANTOPEN`, and nothing is created.
            case readWriteExisting
        }

        /// Which journal mode opening leaves the file in.
        package enum JournalMode: Sendable, Hashable {
            /// Switch to write-ahead logging (`PRAGMA journal_mode=WAL`), which is persistent: it writes the file
            /// header, and creates a new database's first page.
            case wal
            /// Leave the file's journal mode as it is; opening writes nothing.
            case unchanged
        }

        /// When SQLite syncs to disk (`PRAGMA synchronous`); a per-connection setting that writes nothing.
        package enum Synchronous: String, Sendable, Hashable, CaseIterable {
            /// Sync at the critical moments; in WAL mode a commit may be lost on power failure (never corrupted).
            case normal = "NORMAL"
            /// Sync on every commit: a transaction that returned survives a crash or power failure.
            case full = "FULL"
            /// `FULL`, plus a sync of the directory after deleting a rollback journal.
            case extra = "EXTRA"
        }

        /// Whether a missing file is created.
        package var mode: OpenMode
        /// Whether opening switches the file to WAL.
        package var journalMode: JournalMode
        /// The `synchronous` level for this connection.
        package var synchronous: Synchronous
        /// How long a statement waits for a lock held by another connection before failing with
        /// ``SQLiteError/Code/busy``; clamped to 0 … `Int32.max` milliseconds.
        package var busyTimeout: Duration
        /// Whether `path` may be a symbolic link; when false, a link is ``SQLiteError/Code/openFailed`` with result
        /// code `SQLITE_CANTOPEN_SYMLINK` (`SQLITE_OPEN_NOFOLLOW`).
        package var followsSymbolicLinks: Bool

        /// Options with the given values; the defaults are those of ``SQLiteConnection/init(path:options:)``.
        ///
        /// - Parameters:
        ///   - mode: Whether a missing file is created.
        ///   - journalMode: Whether opening switches the file to WAL.
        ///   - synchronous: The `synchronous` level.
        ///   - busyTimeout: How long to wait for another connection's lock.
        ///   - followsSymbolicLinks: Whether `path` may be a symbolic link.
        package init(
            mode: OpenMode = .readWriteCreate,
            journalMode: JournalMode = .wal,
            synchronous: Synchronous = .full,
            busyTimeout: Duration = .milliseconds(SQLiteConnection.busyTimeoutMilliseconds),
            followsSymbolicLinks: Bool = true
        ) {
            self.mode = mode
            self.journalMode = journalMode
            self.synchronous = synchronous
            self.busyTimeout = busyTimeout
            self.followsSymbolicLinks = followsSymbolicLinks
        }

        /// ``busyTimeout`` in whole milliseconds, clamped to what `sqlite3_busy_timeout` takes.
        var busyTimeoutMilliseconds: Int32 {
            let (seconds, attoseconds) = busyTimeout.components
            guard seconds >= 0 else { return 0 }
            guard seconds < Int64(Int32.max / 1000) else { return Int32.max }
            return Int32(max(0, seconds * 1000 + attoseconds / 1_000_000_000_000_000))
        }
    }

    /// How ``SQLiteConnection/transaction(_:_:)`` begins.
    package enum TransactionKind: Sendable, Hashable {
        /// `BEGIN IMMEDIATE`: take the write lock up front, so two writers never both read and then both write.
        case immediate
        /// `BEGIN DEFERRED`: take locks as statements need them; for reads, which then see one snapshot.
        case deferred
    }
}
