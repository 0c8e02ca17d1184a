import Foundation
import RampartAppAttest
import RampartLoadReport
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// One worker's tally.
struct LoadTally {
    var latencies: [Double] = []
    var allowed = 0
    var refusedByCode: [String: Int] = [:]
    var errors = 0
    var firstError: String?
    var challengeRequests = 0
    var connectionsOpened = 0

    mutating func merge(_ other: LoadTally) {
        latencies += other.latencies
        allowed += other.allowed
        refusedByCode.merge(other.refusedByCode, uniquingKeysWith: +)
        errors += other.errors
        firstError = firstError ?? other.firstError
        challengeRequests += other.challengeRequests
        connectionsOpened += other.connectionsOpened
    }

    mutating func record(_ outcome: LoadApp.Outcome, seconds: Double) {
        latencies.append(seconds)
        if outcome.status == 200 {
            allowed += 1
        } else {
            refusedByCode[outcome.code ?? "status-\(outcome.status)", default: 0] += 1
        }
        if outcome.fetchedChallenge { challengeRequests += 1 }
    }
}

/// Registration, the timed run and the report.
enum LoadRun {
    /// The value at quantile `q` (0...1) of sorted `values` (nearest rank), 0 for none.
    static func percentile(_ sorted: [Double], _ q: Double) -> Double {
        guard !sorted.isEmpty else { return 0 }
        let rank = Int((Double(sorted.count) * q).rounded(.up)) - 1
        return sorted[min(sorted.count - 1, max(0, rank))]
    }

    /// Blocks the calling thread until `instant`.
    static func sleep(until instant: ContinuousClock.Instant) {
        let left = instant - ContinuousClock.now
        guard left > .zero else { return }
        Thread.sleep(
            forTimeInterval: Double(left.components.seconds) + Double(left.components.attoseconds) / 1e18)
    }

    /// Runs `body(index)` for `count` indices on `count` threads and joins them all.
    ///
    /// POSIX threads, joined rather than signalled: a thread still running its thread-local destructors (OpenSSL
    /// keeps per-thread state) while `exit` runs OpenSSL's cleanup corrupts the heap.
    static func onThreads<T: Sendable>(_ count: Int, _ body: @escaping @Sendable (Int) -> T) -> [T] {
        let results = Mutex<[Int: T]>([:])
        var threads: [pthread_t] = []
        for index in 0..<count {
            let job = LoadThreadJob {
                let value = body(index)
                results.withLock { $0[index] = value }
            }
            var thread = pthread_t()
            let created = pthread_create(
                &thread, nil,
                { context in
                    guard let context else { return nil }
                    Unmanaged<LoadThreadJob>.fromOpaque(context).takeRetainedValue().run()
                    return nil
                }, Unmanaged.passRetained(job).toOpaque())
            if created == 0 {
                threads.append(thread)
            } else {
                // No thread: run it here rather than lose the worker.
                job.run()
                Unmanaged.passUnretained(job).release()
            }
        }
        for thread in threads { pthread_join(thread, nil) }
        return results.withLock { results in (0..<count).compactMap { results[$0] } }
    }

    /// Registers `options.keyCount` keys, spread over the servers.
    static func registerKeys(_ app: LoadApp) throws -> [LoadKey] {
        let options = app.options
        let run = String(UInt64.random(in: 0...UInt64.max), radix: 36)
        let keys = (0..<options.keyCount).map {
            LoadKey(subject: "load-\(run)-\($0)", teamID: options.teamID, bundleID: options.bundleID)
        }
        let threads = min(8, keys.count)
        let failures = onThreads(threads) { thread -> String? in
            var connections: [LoadServerAddress: LoadConnection] = [:]
            for index in stride(from: thread, to: keys.count, by: threads) {
                let server = options.servers[index % options.concurrency % options.servers.count]
                let connection = connections[server] ?? LoadConnection(server)
                connections[server] = connection
                do {
                    try app.register(keys[index], on: connection)
                } catch {
                    return "registering key \(index) on \(server) failed: \(error)"
                }
            }
            return nil
        }
        if let failure = failures.compactMap({ $0 }).first { throw LoadError(failure) }
        return keys
    }

    /// Registers the keys, runs the workers for the warm-up and the measured window, and reports.
    static func run(_ options: LoadOptions) throws -> LoadReport {
        guard let folder = options.simulator else { throw LoadError("--simulator DIR is required") }
        let simulator: AppAttestSimulator
        do {
            simulator = try AppAttestSimulator(keptIn: URL(fileURLWithPath: folder))
        } catch {
            throw LoadError("cannot load or create the simulator CA in \(folder): \(error)")
        }
        let app = LoadApp(options: options, simulator: simulator)
        let keys = try registerKeys(app)
        let clock = ContinuousClock()
        let start = clock.now + .milliseconds(Int(options.warmup * 1000))
        let end = start + .milliseconds(Int(options.seconds * 1000))
        let samples = Mutex<(LoadSampler.Sample?, LoadSampler.Sample?, String?)>((nil, nil, nil))
        // Thread 0 samples the servers at the window's start and end; threads 1... each run an event loop over
        // their share of the workers (worker w on loop w % loops).
        let loops = options.loopCount
        let outcomes = onThreads(loops + 1) { thread -> Result<LoadTally, LoadError>? in
            guard thread > 0 else {
                sleep(until: start)
                do {
                    let first = try LoadSampler.sample(options)
                    samples.withLock { $0.0 = first }
                    sleep(until: end)
                    let last = try LoadSampler.sample(options)
                    samples.withLock { $0.1 = last }
                } catch {
                    samples.withLock { $0.2 = "\(error)" }
                }
                return nil
            }
            do {
                let loop = try LoadEventLoop(app: app, start: start, end: end)
                for worker in stride(from: thread - 1, to: options.concurrency, by: loops) {
                    loop.addWorker(
                        server: options.servers[worker % options.servers.count],
                        keys: stride(from: worker, to: keys.count, by: options.concurrency).map { keys[$0] })
                }
                try loop.run()
                return .success(loop.tally)
            } catch let error as LoadError {
                return .failure(error)
            } catch {
                return .failure(LoadError("\(error)"))
            }
        }
        var tallies: [LoadTally] = []
        for outcome in outcomes.compactMap({ $0 }) {
            switch outcome {
            case .success(let tally): tallies.append(tally)
            case .failure(let error): throw LoadError("an event loop failed: \(error)")
            }
        }
        var total = LoadTally()
        for tally in tallies { total.merge(tally) }
        let (first, last, samplingFailure) = samples.withLock { $0 }
        if let samplingFailure { throw LoadError("sampling the servers failed: \(samplingFailure)") }
        return report(options, keys: keys.count, total: total, first: first, last: last, window: end - start)
    }

    static func report(
        _ options: LoadOptions, keys: Int, total: LoadTally, first: LoadSampler.Sample?, last: LoadSampler.Sample?,
        window: Duration
    ) -> LoadReport {
        let seconds = Double(window.components.seconds) + Double(window.components.attoseconds) / 1e18
        let sorted = total.latencies.sorted()
        let requests = sorted.count
        let refused = requests - total.allowed
        func perRequest(_ value: Double) -> Double {
            requests == 0 ? 0 : (value * 1e6 / Double(requests) * 10).rounded() / 10
        }
        var serverCPU: Double?
        var stageCPU: [String: Double]?
        var databaseCPU: Double?
        var clientCPU = 0.0
        if let first, let last {
            clientCPU = perRequest(last.clientCPU - first.clientCPU)
            if !options.serverPIDs.isEmpty { serverCPU = perRequest(last.serverCPU - first.serverCPU) }
            if !options.admins.isEmpty {
                stageCPU = last.stages.reduce(into: [:]) { result, entry in
                    result[entry.key] = perRequest(entry.value - (first.stages[entry.key] ?? 0))
                }
            }
            if options.databaseProcess != nil {
                databaseCPU = perRequest(
                    last.databaseCPU.reduce(0) { $0 + $1.value - (first.databaseCPU[$1.key] ?? 0) })
            }
        }
        func milliseconds(_ value: Double) -> Double { (value * 1e5).rounded() / 100 }
        return LoadReport(
            flow: options.flow.rawValue, gateway: options.gateway.rawValue, servers: options.servers.count,
            concurrency: options.concurrency, keys: keys, seconds: seconds, protectedRequests: requests,
            allowed: total.allowed, refused: refused, refusedByCode: total.refusedByCode, errors: total.errors,
            firstError: total.firstError, challengeRequests: total.challengeRequests,
            requestsPerSecond: (Double(total.allowed) / seconds).rounded(),
            latencyMs: LoadReport.Latency(
                p50: milliseconds(percentile(sorted, 0.5)), p90: milliseconds(percentile(sorted, 0.9)),
                p99: milliseconds(percentile(sorted, 0.99)), max: milliseconds(sorted.last ?? 0)),
            connectionsOpened: total.connectionsOpened, serverCPUMicrosecondsPerRequest: serverCPU,
            stageCPUMicrosecondsPerRequest: stageCPU, databaseCPUMicrosecondsPerRequest: databaseCPU,
            clientCPUMicrosecondsPerRequest: clientCPU)
    }
}

/// The body of one thread of ``LoadRun/onThreads(_:_:)``, handed to `pthread_create` as its context.
private final class LoadThreadJob: Sendable {
    let run: @Sendable () -> Void

    init(_ run: @escaping @Sendable () -> Void) { self.run = run }
}
