import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `SpawnedProcess`, the tests' only way to start a child process.
struct SpawnedProcessTests {
    /// The names `ls` finds in the child's `/proc/self/fd`.
    static func childDescriptors() throws -> [Int] {
        let listing = try SpawnedProcess.run("/bin/ls", ["-1", "/proc/self/fd"])
        #expect(listing.termination == .exited(0), "\(listing.errorText)")
        return listing.text.split(separator: "\n").compactMap { Int($0) }
    }

    @Test("with 2,000 descriptors open in the test process, children start (50 in a row) and inherit none of them")
    func manyOpenDescriptors() throws {
        // Foundation.Process copied 256 bytes per /proc/self/fd entry and could run off glibc's 32 KiB directory
        // buffer once about 1,350 descriptors were open; these descriptors are not close-on-exec, so only the
        // spawn's closing of every other descriptor keeps them out of the child.
        var limit = rlimit()
        getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        try #require(limit.rlim_max >= 2_200, "the descriptor limit (\(limit.rlim_max)) is below what the test needs")
        if limit.rlim_cur < 2_200 {
            limit.rlim_cur = 2_200
            setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        }
        let held = (0..<2_000).map { _ in open("/dev/null", O_RDONLY) }
        defer { for descriptor in held { close(descriptor) } }
        try #require(held.allSatisfy { $0 >= 0 })
        for _ in 0..<50 {
            let descriptors = try Self.childDescriptors()
            // 0, 1 and 2, and the one ls opened to read the directory.
            #expect(descriptors.count == 4 && descriptors.allSatisfy { $0 < 4 }, "the child saw \(descriptors)")
        }
    }

    @Test("an exit status and a signal are told apart, with the shell's status for each")
    func terminations() throws {
        let exited = try SpawnedProcess.run("/bin/sh", ["-c", "exit 7"])
        #expect(exited.termination == .exited(7))
        #expect(exited.termination.status == 7)
        let killed = try SpawnedProcess.run("/bin/sh", ["-c", "kill -TERM $$"])
        #expect(killed.termination == .signalled(SIGTERM))
        #expect(killed.termination.status == 128 + SIGTERM)
    }

    @Test("the child starts with an empty signal mask and no standard signal ignored, whatever the test process had")
    func signalsReset() throws {
        var blocked = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, SIGTERM)
        sigaddset(&blocked, SIGHUP)
        var previous = sigset_t()
        pthread_sigmask(SIG_BLOCK, &blocked, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        // SIGTTOU: ignoring it changes nothing for the tests running beside this one (they write to no terminal).
        let previousHandler = signal(SIGTTOU, SIG_IGN)
        defer { signal(SIGTTOU, previousHandler) }

        let status = try SpawnedProcess.run("/bin/grep", ["-E", "^Sig(Blk|Ign):", "/proc/self/status"])
        #expect(status.termination == .exited(0))
        let fields = Dictionary(
            uniqueKeysWithValues: status.text.split(separator: "\n").compactMap { line -> (String, UInt64)? in
                let parts = line.split(separator: "\t")
                return parts.count == 2 ? (String(parts[0]), UInt64(parts[1], radix: 16) ?? .max) : nil
            })
        #expect(fields["SigBlk:"] == 0)
        // Signals 1-31. glibc's spawn leaves its own two real-time signals (32 and 33, for thread cancellation and
        // setxid) ignored in the child; its C library sets them up again when it needs them.
        #expect(fields["SigIgn:"].map { $0 & 0x7fff_ffff } == 0, "\(status.text)")
    }

    @Test("the child gets exactly the environment and working directory given")
    func environmentAndDirectory() throws {
        let directory = ScratchDirectory.uniquePath("spawn-directory")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let result = try SpawnedProcess.run(
            "/bin/sh", ["-c", "pwd; /usr/bin/env"], environment: ["ONLY": "this one"], directory: directory)
        let lines = result.text.split(separator: "\n").map(String.init)
        #expect(
            lines.first.map { URL(fileURLWithPath: $0).resolvingSymlinksInPath().path }
                == URL(fileURLWithPath: directory).resolvingSymlinksInPath().path)
        // The shell adds PWD (and may add SHLVL and _); nothing of the test process's own environment arrives.
        let names = Set(lines.dropFirst().compactMap { $0.split(separator: "=").first.map(String.init) })
        #expect(names.subtracting(["PWD", "SHLVL", "_", "OLDPWD"]) == ["ONLY"], "\(names)")
        #expect(lines.contains("ONLY=this one"))
    }

    @Test("run moves 4 MiB in and out while the child also writes to standard error (no deadlock on a full pipe)")
    func largeStreams() throws {
        let input = (0..<(4 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let result = try SpawnedProcess.run(
            "/bin/sh", ["-c", "head -c 100000 /dev/zero >&2; cat; echo done >&2"], input: input)
        #expect(result.termination == .exited(0))
        #expect(result.stdout == input)
        #expect(result.stderr.count == 100_005)
        #expect(result.stderr.suffix(5) == Array("done\n".utf8))
    }

    @Test("a running child: isRunning, stop with SIGTERM, then every later wait gives the same ending")
    func stopAndReap() async throws {
        let child = try SpawnedProcess("/bin/sleep", arguments: ["30"])
        #expect(child.isRunning)
        #expect(await child.stop(signal: SIGTERM, within: 5) == .signalled(SIGTERM))
        #expect(!child.isRunning)
        child.signal(SIGKILL)  // reaped: no signal is sent to whatever has the pid now
        #expect(child.wait() == .signalled(SIGTERM))
        #expect(await child.exited() == .signalled(SIGTERM))
    }

    @Test("a child that ignores SIGTERM is killed once the grace period ends")
    func stopEscalates() async throws {
        let child = try SpawnedProcess(
            "/bin/sh", arguments: ["-c", "trap '' TERM; echo ready; while :; do sleep 0.05; done"],
            standardOutput: .pipe)
        let ready = try #require(child.standardOutput).availableData
        #expect(ready == Data("ready\n".utf8))
        #expect(await child.stop(signal: SIGTERM, within: 0.3) == .signalled(SIGKILL))
    }

    @Test("signalGroup reaches what the child started in its own group, after the child itself has ended")
    func processGroup() throws {
        let marker = ScratchDirectory.uniquePath("spawn-group")
        let child = try SpawnedProcess(
            "/bin/sh", arguments: ["-c", "sleep 30 & echo $! > '\(marker)'"], newProcessGroup: true)
        #expect(child.wait() == .exited(0))
        let orphan = try #require(
            pid_t(
                try String(contentsOfFile: marker, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(Self.isAlive(orphan), "the background sleep should still run")
        child.signalGroup(SIGKILL)
        let deadline = Date().addingTimeInterval(10)
        while Self.isAlive(orphan), Date() < deadline { usleep(10_000) }
        #expect(!Self.isAlive(orphan))
    }

    /// Whether `pid` runs: it exists and is not a zombie (an orphan waits, dead, for whoever adopted it to reap it).
    static func isAlive(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let end = stat.lastIndex(of: ")")
        else { return false }
        return stat[stat.index(after: end)...].trimmingCharacters(in: .whitespaces).first != "Z"
    }

    @Test("a missing executable is a SpawnError naming it")
    func missingExecutable() throws {
        let error = #expect(throws: SpawnError.self) {
            _ = try SpawnedProcess("/nonexistent/rampart-tool", arguments: [])
        }
        #expect(error?.description == "could not start /nonexistent/rampart-tool: No such file or directory")
    }

    @Test("no test and no test support starts a Foundation.Process (whose run() can crash the whole test process)")
    func noFoundationProcess() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let pattern = "Process" + "()"
        var offenders: [String] = []
        for folder in ["Tests", "Sources/TestSupport"] {
            let base = root.appendingPathComponent(folder)
            let files = FileManager.default.enumerator(atPath: base.path)?.compactMap { $0 as? String } ?? []
            try #require(!files.isEmpty, "no files under \(base.path)")
            for file in files where file.hasSuffix(".swift") && base.appendingPathComponent(file).path != #filePath {
                let text = try String(contentsOf: base.appendingPathComponent(file), encoding: .utf8)
                // The constructor as a whole word, not a name that ends in it (this file, which names it, is left out).
                let constructed = text.ranges(of: pattern).contains { range in
                    range.lowerBound == text.startIndex
                        || !(text[text.index(before: range.lowerBound)].isLetter
                            || text[text.index(before: range.lowerBound)].isNumber
                            || text[text.index(before: range.lowerBound)] == "_")
                }
                if constructed { offenders.append("\(folder)/\(file)") }
            }
        }
        #expect(offenders.isEmpty, "use SpawnedProcess instead in \(offenders)")
    }
}
