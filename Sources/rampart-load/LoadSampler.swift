import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// CPU time of processes from `/proc`, and the counters of a server's `/metrics`, sampled at the start and end of
/// the measured window.
enum LoadSampler {
    /// User plus system CPU seconds of process `pid` (fields 14 and 15 of `/proc/PID/stat`, in clock ticks); nil
    /// when it cannot be read.
    static func cpuSeconds(pid: Int32) -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return nil }
        return cpuSeconds(statLine: text)
    }

    /// User plus system CPU seconds from one `/proc/PID/stat` line.
    static func cpuSeconds(statLine text: String) -> Double? {
        // The command name (field 2) is in parentheses and may hold spaces or parentheses: fields after the last ')'.
        guard let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // fields[0] is field 3 (state): utime is field 14, stime field 15.
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// The command name of process `pid` (field 2 of `/proc/PID/stat`).
    static func commandName(pid: Int32) -> String? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let open = text.firstIndex(of: "("), let close = text.lastIndex(of: ")"), open < close
        else { return nil }
        return String(text[text.index(after: open)..<close])
    }

    /// CPU seconds of every process named `name`, by pid.
    static func cpuSeconds(named name: String) -> [Int32: Double] {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [:] }
        var result: [Int32: Double] = [:]
        for entry in entries {
            guard let pid = Int32(entry), commandName(pid: pid) == name, let seconds = cpuSeconds(pid: pid) else {
                continue
            }
            result[pid] = seconds
        }
        return result
    }

    /// This process's own CPU seconds (user plus system).
    static func ownCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// The samples of a Prometheus text exposition, by `name{labels}` as written (comments skipped).
    static func metrics(_ text: String) -> [String: Double] {
        var samples: [String: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else {
                continue
            }
            samples[String(line[..<space])] = value
        }
        return samples
    }

    /// `GET /metrics` of an admin listener, parsed.
    static func metrics(from admin: LoadServerAddress) throws -> [String: Double] {
        let connection = LoadConnection(admin)
        let answer = try connection.send("GET", "/metrics", headers: [], body: [])
        guard answer.status == 200 else {
            throw LoadError("GET /metrics on \(admin) answered \(answer.status); is it the admin listener?")
        }
        return metrics(String(decoding: answer.body, as: UTF8.self))
    }

    /// The per-stage CPU seconds in a `/metrics` sample (`rampart_stage_cpu_seconds_total{stage="…"}`).
    static func stageSeconds(_ samples: [String: Double]) -> [String: Double] {
        let prefix = "rampart_stage_cpu_seconds_total{stage=\""
        var stages: [String: Double] = [:]
        for (name, value) in samples where name.hasPrefix(prefix) && name.hasSuffix("\"}") {
            stages[String(name.dropFirst(prefix.count).dropLast(2))] = value
        }
        return stages
    }

    /// One sample of everything watched.
    struct Sample: Sendable {
        var time: ContinuousClock.Instant
        var serverCPU: Double
        var databaseCPU: [Int32: Double]
        var clientCPU: Double
        var stages: [String: Double]
    }

    /// Samples the servers' and the database's CPU, this process's CPU and the servers' stage counters.
    static func sample(_ options: LoadOptions) throws -> Sample {
        var stages: [String: Double] = [:]
        for admin in options.admins {
            stages.merge(stageSeconds(try metrics(from: admin))) { $0 + $1 }
        }
        let server = options.serverPIDs.compactMap { cpuSeconds(pid: $0) }.reduce(0, +)
        let database = options.databaseProcess.map { cpuSeconds(named: $0) } ?? [:]
        return Sample(
            time: ContinuousClock.now, serverCPU: server, databaseCPU: database, clientCPU: ownCPUSeconds(),
            stages: stages)
    }
}
