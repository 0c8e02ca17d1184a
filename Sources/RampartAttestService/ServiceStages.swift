import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A stage of answering a request whose CPU time the service accounts for, in
/// `rampart_stage_cpu_seconds_total{stage}` at `GET /metrics` (the admin listener).
///
/// What is not in a stage — HTTP parsing and writing, the connection gate, routing, challenge sealing, task
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

/// Per-stage CPU accounting, process-wide and always on.
///
/// The overhead is meant to be a small fraction of a request: sections that do no I/O (JSON, CBOR, ECDSA, a SQLite
/// read from the page cache) are timed with `CLOCK_MONOTONIC` (about 0.2 µs a reading here), which equals their CPU
/// time unless the thread is preempted inside; a group commit's batch, which waits for `fsync` or a PostgreSQL
/// round trip, is timed with `CLOCK_THREAD_CPUTIME_ID` (a system call, a few µs) once per batch, not per request.
package enum StageClock {
    private static let json = Atomic<UInt64>(0)
    private static let cbor = Atomic<UInt64>(0)
    private static let ecdsa = Atomic<UInt64>(0)
    private static let store = Atomic<UInt64>(0)

    private static func add(_ nanoseconds: UInt64, to stage: ServiceStage) {
        switch stage {
        case .json: json.add(nanoseconds, ordering: .relaxed)
        case .cbor: cbor.add(nanoseconds, ordering: .relaxed)
        case .ecdsa: ecdsa.add(nanoseconds, ordering: .relaxed)
        case .store: store.add(nanoseconds, ordering: .relaxed)
        }
    }

    private static func now(_ clock: clockid_t) -> UInt64 {
        var time = timespec()
        clock_gettime(clock, &time)
        return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
    }

    private static func elapsed(since start: UInt64, _ clock: clockid_t) -> UInt64 {
        let end = now(clock)
        return end > start ? end - start : 0
    }

    /// Runs `body`, which must not block, and adds its time to `stage`.
    ///
    /// - Parameters:
    ///   - stage: The stage.
    ///   - body: The section.
    /// - Returns: What `body` returned.
    /// - Throws: What `body` threw (its time is counted too).
    package static func measure<T>(_ stage: ServiceStage, _ body: () throws -> T) rethrows -> T {
        let start = now(CLOCK_MONOTONIC)
        defer { add(elapsed(since: start, CLOCK_MONOTONIC), to: stage) }
        return try body()
    }

    /// Runs `body`, which may block, and adds the calling thread's CPU time in it to `stage`.
    ///
    /// - Parameters:
    ///   - stage: The stage.
    ///   - body: The section.
    /// - Returns: What `body` returned.
    /// - Throws: What `body` threw.
    package static func measureThreadCPU<T>(_ stage: ServiceStage, _ body: () throws -> T) rethrows -> T {
        let start = now(CLOCK_THREAD_CPUTIME_ID)
        defer { add(elapsed(since: start, CLOCK_THREAD_CPUTIME_ID), to: stage) }
        return try body()
    }

    /// The seconds accounted to `stage` since the process started.
    package static func seconds(_ stage: ServiceStage) -> Double {
        let nanoseconds: UInt64
        switch stage {
        case .json: nanoseconds = json.load(ordering: .relaxed)
        case .cbor: nanoseconds = cbor.load(ordering: .relaxed)
        case .ecdsa: nanoseconds = ecdsa.load(ordering: .relaxed)
        case .store: nanoseconds = store.load(ordering: .relaxed)
        }
        return Double(nanoseconds) / 1e9
    }

    /// The Prometheus lines of the stage counters.
    static var prometheusLines: [String] {
        [
            "# HELP rampart_stage_cpu_seconds_total CPU seconds spent in each stage of answering requests "
                + "(json, cbor, ecdsa, store); the rest of the process's CPU is HTTP, routing and scheduling.",
            "# TYPE rampart_stage_cpu_seconds_total counter",
        ] + ServiceStage.allCases.map { "rampart_stage_cpu_seconds_total{stage=\"\($0.name)\"} \(seconds($0))" }
    }
}
