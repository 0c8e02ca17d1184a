import Synchronization

/// A thread-safe map that holds at most ``capacity`` entries, keeping the ones in use.
///
/// Two generations: a hit in the older one moves the entry to the newer, and when the newer fills, the older is
/// dropped. An entry in use survives every turn; one unused for a generation goes. Memory stays bounded whatever
/// the keys (a DoS bound), with no per-entry bookkeeping on a hit.
final class BoundedCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// The most entries held.
    let capacity: Int

    private struct Generations: Sendable {
        var current: [Key: Value] = [:]
        var previous: [Key: Value] = [:]
    }

    private let state = Mutex(Generations())

    /// An empty cache of at most `capacity` entries (at least 2).
    init(capacity: Int) { self.capacity = max(2, capacity) }

    /// The value held for `key`, if any.
    func value(for key: Key) -> Value? {
        state.withLock { state -> Value? in
            if let value = state.current[key] { return value }
            guard let value = state.previous.removeValue(forKey: key) else { return nil }
            insert(value, for: key, into: &state)
            return value
        }
    }

    /// Holds `value` for `key`, replacing what was held.
    func insert(_ value: Value, for key: Key) {
        state.withLock { state in
            state.previous[key] = nil
            insert(value, for: key, into: &state)
        }
    }

    /// Drops what is held for `key`.
    func remove(_ key: Key) {
        state.withLock { state in
            state.current[key] = nil
            state.previous[key] = nil
        }
    }

    /// How many entries are held.
    var count: Int { state.withLock { $0.current.count + $0.previous.count } }

    private func insert(_ value: Value, for key: Key, into state: inout Generations) {
        if state.current[key] == nil, state.current.count >= capacity / 2 {
            state.previous = state.current
            state.current = [:]
        }
        state.current[key] = value
    }
}
