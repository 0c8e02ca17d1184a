import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A stage of answering a request whose CPU time the service accounts for, in
/// `rampart_stage_cpu_seconds_total{stage}` at `GET /metrics` (the admin listener).
///
/// What is not in a stage — HTTP parsing and writing, the event loop, routing, challenge sealing, task
/// scheduling, the log writer — is the rest of the process's CPU time: `rampart-bench service` reports it as `http`.
package enum ServiceStage: Int, CaseIterable, Sendable {
    /// Parsing request bodies (``RequestFields``) and encoding JSON answers.
    case json
    /// Parsing App Attest assertions (CBOR and authenticator data).
    case cbor
    /// Verifying assertion signatures (ECDSA P-256, the public key's import included).
    case ecdsa
    /// The store: SQLite reads, and each group commit's batch on its writer (statements, commit, libpq).
    case store

    /// The `stage` label.
    package var name: String {
        switch self {
        case .json: "json"
        case .cbor: "cbor"
        case .ecdsa: "ecdsa"
        case .store: "store"
        }
    }
}

/// Per-stage CPU accounting, process-wide, on only when asked for: with `RAMPART_STAGE_PROFILE=1` in the service's
/// environment (as `rampart-bench service` starts it), or ``isEnabled`` set by a test. Off, a section costs one
/// relaxed atomic load and `/metrics` has no stage lines.
///
/// Stage time is thread CPU time (`CLOCK_THREAD_CPUTIME_ID`), so a thread preempted inside a section is not
/// charged for the time it did not run. Reading that clock is a system call (about 1 µs on a virtual machine), so
/// a non-blocking section is timed one call in ``sampleInterval`` and counted ``sampleInterval`` times: an unbiased
/// estimate of the total at about 0.3 µs a section. A group commit's batch, which waits for `fsync` or a PostgreSQL
/// round trip, is timed every time (once per batch, not per request). The clock's own cost, measured at the first
/// use, is subtracted from each reading.
package enum StageClock {
    /// One section in this many is timed.
    static let sampleInterval: UInt64 = 8

    private static let enabled = Atomic<Bool>(getenv("RAMPART_STAGE_PROFILE").map { String(cString: $0) } == "1")

    /// Whether sections are timed; from `RAMPART_STAGE_PROFILE=1` at start.
    package static var isEnabled: Bool {
        get { enabled.load(ordering: .relaxed) }
        set { enabled.store(newValue, ordering: .relaxed) }
    }

    /// A stage's total and its count of sections.
    private final class Counter: Sendable {
        let nanoseconds = Atomic<UInt64>(0)
        let calls = Atomic<UInt64>(0)
    }

    private static let counters = ServiceStage.allCases.map { _ in Counter() }

    private static func add(_ nanoseconds: UInt64, to stage: ServiceStage) {
        counters[stage.rawValue].nanoseconds.add(nanoseconds, ordering: .relaxed)
    }

    /// Whether the `call`-th section is timed: one in ``sampleInterval``, chosen by Fibonacci hashing of the count,
    /// so that a stage met at a fixed position in every request (every second section, say) is still sampled evenly.
    private static func isSampled(_ call: UInt64) -> Bool {
        (call &* 0x9E37_79B9_7F4A_7C15) >> 61 == 0
    }

    private static func threadCPU() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
    }

    /// The least a reading of an empty section takes: what each reading overstates.
    private static let clockCost: UInt64 = {
        var least = UInt64.max
        for _ in 0..<64 {
            let start = threadCPU()
            let end = threadCPU()
            least = min(least, end &- start)
        }
        return least == .max ? 0 : least
    }()

    private static func elapsed(since start: UInt64) -> UInt64 {
        let spent = threadCPU() &- start
        return spent > clockCost ? spent - clockCost : 0
    }

    /// Runs `body`, which must not block, and adds its CPU time to `stage` (sampled: see ``StageClock``).
    ///
    /// - Parameters:
    ///   - stage: The stage.
    ///   - body: The section.
    /// - Returns: What `body` returned.
    /// - Throws: What `body` threw (its time is counted too).
    package static func measure<T>(_ stage: ServiceStage, _ body: () throws -> T) rethrows -> T {
        guard isEnabled, isSampled(counters[stage.rawValue].calls.add(1, ordering: .relaxed).newValue) else {
            return try body()
        }
        _ = clockCost
        let start = threadCPU()
        defer { add(elapsed(since: start) &* sampleInterval, to: stage) }
        return try body()
    }

    /// Runs `body`, which may block, and adds the calling thread's CPU time in it to `stage` (every call).
    ///
    /// - Parameters:
    ///   - stage: The stage.
    ///   - body: The section.
    /// - Returns: What `body` returned.
    /// - Throws: What `body` threw.
    package static func measureEvery<T>(_ stage: ServiceStage, _ body: () throws -> T) rethrows -> T {
        guard isEnabled else { return try body() }
        _ = clockCost
        let start = threadCPU()
        defer { add(elapsed(since: start), to: stage) }
        return try body()
    }
    /// The seconds accounted to `stage` since the process started.
    package static func seconds(_ stage: ServiceStage) -> Double {
        Double(counters[stage.rawValue].nanoseconds.load(ordering: .relaxed)) / 1e9
    }

    /// The Prometheus lines of the stage counters; none when profiling is off.
    static var prometheusLines: [String] {
        guard isEnabled else { return [] }
        return [
            "# HELP rampart_stage_cpu_seconds_total CPU seconds spent in each stage of answering requests "
                + "(json, cbor, ecdsa, store); the rest of the process's CPU is HTTP, routing and scheduling.",
            "# TYPE rampart_stage_cpu_seconds_total counter",
        ] + ServiceStage.allCases.map { "rampart_stage_cpu_seconds_total{stage=\"\($0.name)\"} \(seconds($0))" }
    }
}
