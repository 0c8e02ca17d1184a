import Foundation

/// A value guarded by a lock, for the modules apps use: Synchronization's `Mutex` and `Atomic` need iOS 18 and
/// macOS 15, and the app-side modules support iOS 15 and macOS 12, so they take this instead (the same code on Linux,
/// so the tests run what apps run).
///
/// Its API is `Mutex`'s: every access goes through ``withLock(_:)``, which holds the lock for the whole closure.
package final class Locked<Value: Sendable>: @unchecked Sendable {
    // @unchecked: `value` is only read or written inside `withLock`, while `lock` is held.
    private let lock = NSLock()
    private var value: Value

    /// Wraps `value`.
    ///
    /// - Parameter value: The initial value.
    package init(_ value: Value) { self.value = value }

    /// Runs `body` with exclusive access to the value.
    ///
    /// - Parameter body: Reads or changes the value; it must not call back into this lock.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws.
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
