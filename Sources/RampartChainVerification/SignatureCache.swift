import RampartCrypto
import RampartX509
internal import Synchronization

/// Remembers which (issuer, subject) certificate pairs already had their signature verified, so that evaluations of
/// chains sharing an intermediate and root skip the repeated public-key operations.
///
/// The key is the *whole* DER of both certificates, compared byte for byte: a hit means the very same signed bytes
/// were verified with the very same issuer key, so skipping the check cannot change the verdict. Only successful
/// verifications are remembered. Entries are evicted oldest first beyond ``capacity``.
final class SignatureCache: Sendable {
    struct Key: Hashable, Sendable {
        let issuer: [UInt8]
        let subject: [UInt8]
    }

    struct Storage {
        var entries: Set<Key> = []
        var order: [Key] = []
        var head = 0
        var hits = 0
        var misses = 0
    }

    let capacity: Int
    private let storage = Mutex(Storage())

    init(capacity: Int) {
        self.capacity = max(capacity, 1)
    }

    /// Whether the pair was verified before (counts a hit or a miss).
    func contains(issuer: [UInt8], subject: [UInt8]) -> Bool {
        let key = Key(issuer: issuer, subject: subject)
        return storage.withLock { storage in
            let found = storage.entries.contains(key)
            if found { storage.hits += 1 } else { storage.misses += 1 }
            return found
        }
    }

    /// Records a verified pair.
    func insert(issuer: [UInt8], subject: [UInt8]) {
        let key = Key(issuer: issuer, subject: subject)
        storage.withLock { storage in
            guard storage.entries.insert(key).inserted else { return }
            storage.order.append(key)
            if storage.entries.count > capacity, storage.head < storage.order.count {
                storage.entries.remove(storage.order[storage.head])
                storage.head += 1
                if storage.head > capacity {
                    storage.order.removeFirst(storage.head)
                    storage.head = 0
                }
            }
        }
    }

    /// Hits and misses so far.
    var statistics: (hits: Int, misses: Int) {
        storage.withLock { ($0.hits, $0.misses) }
    }

    /// Forgets everything.
    func removeAll() {
        storage.withLock { $0 = Storage() }
    }
}
