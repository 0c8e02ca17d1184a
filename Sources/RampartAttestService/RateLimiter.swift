import Foundation
import Synchronization

/// Token buckets by key (a client address, a subject): each holds up to `perMinute` tokens and refills at
/// `perMinute / 60` per second, so a client may burst a minute's allowance and then continue at the steady rate.
///
/// Keys are byte strings, so two spellings of one subject (NFC and NFD) are two buckets, as they are two subjects.
/// The table is bounded: past ``maximumEntryCount`` keys, buckets that have refilled completely (they carry no
/// information) are dropped first, then the longest-unused ones. State is per process; several instances behind one
/// database each apply the limit to what they see.
final class RateLimiter: Sendable {
    /// How many keys are tracked at most (a memory bound: each entry is about 100 bytes).
    static let maximumEntryCount = 100_000

    private struct Bucket {
        var tokens: Double
        var updated: Date
    }

    private let perMinute: Int
    private let buckets = Mutex<[[UInt8]: Bucket]>([:])

    /// Creates a limiter allowing `perMinute` events per key per minute; 0 means unlimited.
    init(perMinute: Int) { self.perMinute = perMinute }

    private var capacity: Double { Double(perMinute) }
    private var refillPerSecond: Double { Double(perMinute) / 60 }

    /// Seconds until `key` has a token, or nil when it has one now (nothing is taken).
    func retryAfter(_ key: [UInt8], now: Date) -> Int? {
        guard perMinute > 0 else { return nil }
        return buckets.withLock { buckets in
            guard let bucket = buckets[key] else { return nil }
            let tokens = refilled(bucket, now: now)
            return tokens >= 1 ? nil : Int(((1 - tokens) / refillPerSecond).rounded(.up))
        }
    }

    /// Takes a token from `key`'s bucket: nil when there was one, else the seconds until there is.
    @discardableResult
    func take(_ key: [UInt8], now: Date) -> Int? {
        guard perMinute > 0 else { return nil }
        return buckets.withLock { buckets in
            var bucket = buckets[key] ?? Bucket(tokens: capacity, updated: now)
            bucket.tokens = refilled(bucket, now: now)
            bucket.updated = now
            guard bucket.tokens >= 1 else {
                buckets[key] = bucket
                return Int(((1 - bucket.tokens) / refillPerSecond).rounded(.up))
            }
            bucket.tokens -= 1
            if buckets[key] == nil && buckets.count >= Self.maximumEntryCount { evict(&buckets, now: now) }
            buckets[key] = bucket
            return nil
        }
    }

    private func refilled(_ bucket: Bucket, now: Date) -> Double {
        let elapsed = max(now.timeIntervalSince(bucket.updated), 0)
        return min(capacity, bucket.tokens + elapsed * refillPerSecond)
    }

    private func evict(_ buckets: inout [[UInt8]: Bucket], now: Date) {
        buckets = buckets.filter { refilled($0.value, now: now) < capacity }
        guard buckets.count >= Self.maximumEntryCount else { return }
        let byAge = buckets.sorted { $0.value.updated < $1.value.updated }
        for (key, _) in byAge.prefix(buckets.count - Self.maximumEntryCount / 2) { buckets[key] = nil }
    }
}
