import Foundation
import RampartCrypto
import RampartSeal

#if canImport(Glibc)
import Glibc
#endif

/// `rampart-bench seal`: streaming encryption of a large file against the AES-GCM floor, `cp` and `age`.
///
/// The file is `RAMPART_BENCH_SEAL_MB` MiB (1024 by default) in `RAMPART_BENCH_DIR` (the temporary directory by
/// default). Each tool runs five times, each after deleting its output and a `sync`, and the fastest wall time is
/// reported; peak memory is the child's peak RSS as `/usr/bin/time` reports it (a child spawned directly from this
/// process would inherit its peak RSS count). The `rampart` rows run the real command line: with a keyset in a vault
/// opened by a key file (the envelope path, comparable to age's recipient path) and with a passphrase (Argon2id,
/// whose 19 MiB are part of its peak); the library rows seal in-process with a 32-byte key, so they show the
/// streaming cost alone.
enum SealBenchmarks {
    static func run(_ options: BenchOptions) {
        let environment = ProcessInfo.processInfo.environment
        let megabytes = environment["RAMPART_BENCH_SEAL_MB"].flatMap(Int.init) ?? 1024
        let base =
            environment["RAMPART_BENCH_DIR"].map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.temporaryDirectory
        let directory = base.appendingPathComponent("rampart-bench-seal-\(getpid())")
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            try measureAll(megabytes: megabytes, directory: directory)
        } catch {
            print("  seal benchmark failed: \(error)")
        }
    }

    private static func measureAll(megabytes: Int, directory: URL) throws {
        let bytes = Double(megabytes) * 1_048_576
        let input = directory.appendingPathComponent("input.bin")
        try writeInput(input, megabytes: megabytes)
        let path = { (name: String) in directory.appendingPathComponent(name).path }
        print("  input: \(megabytes) MiB in \(directory.path)")

        let floor = aesGCMFloor(megabytes: min(megabytes, 256))
        print("  \(label("AES-256-GCM floor (64 KiB, memory)")) \(format(floor)) MB/s")

        let key = SealKey.key(SymmetricKey(randomByteCount: 32), id: "bench/v1")
        let librarySeal = best(removing: path("lib.sealed")) {
            time { _ = try? SealedFile.seal(input, to: URL(fileURLWithPath: path("lib.sealed")), key: key) }
        }
        let libraryOpen = best(removing: path("lib.out")) {
            time {
                _ = try? SealedFile.open(
                    URL(fileURLWithPath: path("lib.sealed")), to: URL(fileURLWithPath: path("lib.out")), key: key)
            }
        }
        try? FileManager.default.removeItem(atPath: path("lib.out"))
        print(
            "  \(label("library seal (key, file→file)")) \(format(bytes / librarySeal / 1e6)) MB/s  \(seconds(librarySeal))"
        )
        print(
            "  \(label("library open (key, file→file)")) \(format(bytes / libraryOpen / 1e6)) MB/s  \(seconds(libraryOpen))"
        )

        guard let cp = which("cp") else {
            print("  cp not found; skipping the peer comparison")
            return
        }
        let copy = bestRun([cp, input.path, path("copy.bin")], removing: path("copy.bin"))
        try? FileManager.default.removeItem(atPath: path("copy.bin"))
        print(
            "  \(label("cp")) \(format(bytes / copy.seconds / 1e6)) MB/s  \(seconds(copy.seconds))  \(peakText(copy.maxRSSKiB)) peak"
        )
        print("  \(label("library seal / cp (time)")) \(String(format: "%12.2f×", librarySeal / copy.seconds))")
        // cp copies in the kernel (copy_file_range); dd moves the bytes through user space with read(2) and
        // write(2) in 64 KiB blocks, as any tool that transforms the data must: the floor for an encrypting copy.
        if let dd = which("dd") {
            let plain = bestRun(
                [dd, "if=\(input.path)", "of=\(path("dd.bin"))", "bs=64K", "status=none"], removing: path("dd.bin"))
            try? FileManager.default.removeItem(atPath: path("dd.bin"))
            print(
                "  \(label("dd bs=64K (read/write, no crypto)")) \(format(bytes / plain.seconds / 1e6)) MB/s  "
                    + "\(seconds(plain.seconds))  \(peakText(plain.maxRSSKiB)) peak")
            print("  \(label("library seal / dd (time)")) \(String(format: "%12.2f×", librarySeal / plain.seconds))")
        }

        let rampart = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("rampart").path
        var rampartSeal: Measurement?
        if FileManager.default.isExecutableFile(atPath: rampart) {
            try Data("bench passphrase\n".utf8).write(to: URL(fileURLWithPath: path("pass.txt")))
            try Data(SecureRandom.bytes(count: 32)).write(to: URL(fileURLWithPath: path("vault.key")))
            // The envelope path, like age's recipient path: the data key is wrapped by a keyset key kept in a vault
            // opened with a key file, so no password hashing runs.
            let vault = ["--vault", path("keys.vault"), "--vault-key-file", path("vault.key"), "--key", "bench"]
            let seal = bestRun([rampart, "seal", input.path, path("cli.sealed")] + vault, removing: path("cli.sealed"))
            let open = bestRun(
                [rampart, "open", path("cli.sealed"), path("cli.out")] + vault, removing: path("cli.out"))
            let passphrase = bestRun(
                [rampart, "seal", input.path, path("pass.sealed"), "--passphrase-file", path("pass.txt")],
                removing: path("pass.sealed"))
            try? FileManager.default.removeItem(atPath: path("cli.out"))
            try? FileManager.default.removeItem(atPath: path("pass.sealed"))
            let help = bestRun([rampart, "--help"], removing: nil)
            rampartSeal = seal
            print(
                "  \(label("rampart seal (vault key, stream)")) \(format(bytes / seal.seconds / 1e6)) MB/s  "
                    + "\(seconds(seal.seconds))  \(peakText(seal.maxRSSKiB)) peak")
            print(
                "  \(label("rampart open (vault key)")) \(format(bytes / open.seconds / 1e6)) MB/s  "
                    + "\(seconds(open.seconds))  \(peakText(open.maxRSSKiB)) peak")
            print(
                "  \(label("rampart seal (passphrase: Argon2id)")) \(format(bytes / passphrase.seconds / 1e6)) MB/s  "
                    + "\(seconds(passphrase.seconds))  \(peakText(passphrase.maxRSSKiB)) peak (19.9 MB Argon2id)")
            print(
                "  \(label("rampart --help (baseline memory)")) \(String(repeating: " ", count: 27))"
                    + "\(peakText(help.maxRSSKiB)) peak")
            print(
                "  \(label("rampart seal / cp (time)")) \(String(format: "%12.2f×", seal.seconds / copy.seconds))"
                    + "  target ≤ 1.5×")
            print(
                "  \(label("rampart seal peak memory")) \(String(format: "%10.1f MB", Double(seal.maxRSSKiB) * 1.024 / 1000))"
                    + "   target ≤ 32 MB (passphrase: "
                    + "\(String(format: "%.1f MB", Double(passphrase.maxRSSKiB) * 1.024 / 1000)))")
        } else {
            print("  \(rampart) not built; skipping the command-line rows")
        }

        guard let age = which("age"), let keygen = which("age-keygen") else {
            print("  age not found (apt install age); skipping the age comparison")
            return
        }
        _ = runChild([keygen, "-o", path("age.key")])
        let recipient = (try? String(contentsOfFile: path("age.key"), encoding: .utf8))?
            .split(separator: "\n").first { $0.hasPrefix("# public key: ") }
            .map { String($0.dropFirst("# public key: ".count)) }
        guard let recipient else {
            print("  age-keygen did not produce a key; skipping the age comparison")
            return
        }
        let ageSeal = bestRun(
            [age, "-e", "-r", recipient, "-o", path("age.out"), input.path], removing: path("age.out"))
        print(
            "  \(label("age -e (X25519, ChaCha20-Poly1305)")) \(format(bytes / ageSeal.seconds / 1e6)) MB/s  \(seconds(ageSeal.seconds))  \(peakText(ageSeal.maxRSSKiB)) peak"
        )
        print(
            "  \(label("age / library seal (time)")) \(String(format: "%12.2f×", ageSeal.seconds / librarySeal))  target ≥ 3×"
        )
        if let rampartSeal {
            print(
                "  \(label("age / rampart seal (time)")) \(String(format: "%12.2f×", ageSeal.seconds / rampartSeal.seconds))  target ≥ 3×"
            )
        }
    }

    /// Writes `megabytes` MiB of random bytes (one random MiB repeated; the content does not change cipher speed).
    private static func writeInput(_ url: URL, megabytes: Int) throws {
        let block = SecureRandom.bytes(count: 1 << 20)
        guard FileManager.default.createFile(atPath: url.path, contents: nil),
            let handle = FileHandle(forWritingAtPath: url.path)
        else { throw SealError.ioFailure("cannot create \(url.path)") }
        defer { try? handle.close() }
        for _ in 0..<megabytes { try handle.write(contentsOf: block) }
    }

    /// AES-256-GCM over 64 KiB buffers in memory, keyed once: what the segments cost without any I/O.
    private static func aesGCMFloor(megabytes: Int) -> Double {
        guard
            let context = try? AEADContext(
                algorithm: .aes256GCM, key: SymmetricKey(randomByteCount: 32), encrypting: true)
        else { return 0 }
        var buffer = [UInt8](repeating: 7, count: 1 << 16)
        var tag = [UInt8](repeating: 0, count: 16)
        let nonce = [UInt8](repeating: 1, count: 12)
        let elapsed = time {
            for _ in 0..<(megabytes * 16) {
                buffer.withUnsafeMutableBytes { data in
                    tag.withUnsafeMutableBytes { tagBytes in
                        nonce.withUnsafeBytes { nonceBytes in
                            try? context.seal(
                                UnsafeRawBufferPointer(data), into: data, nonce: nonceBytes,
                                associatedData: UnsafeRawBufferPointer(start: nil, count: 0), tag: tagBytes)
                        }
                    }
                }
            }
        }
        return Double(megabytes) * 1_048_576 / elapsed / 1e6
    }

    struct Measurement {
        var seconds: Double
        var maxRSSKiB: Int
    }

    /// How often each row runs; the fastest run is reported (on a shared machine, the one least disturbed).
    static let runs = 5

    /// Runs a command ``runs`` times, each after deleting its output and a `sync`, and returns the fastest wall time
    /// and the largest peak RSS.
    private static func bestRun(_ argv: [String], removing output: String?) -> Measurement {
        var measurements: [Measurement] = []
        for _ in 0..<runs {
            if let output { try? FileManager.default.removeItem(atPath: output) }
            sync()
            measurements.append(runChild(argv))
        }
        let fastest = measurements.map(\.seconds).min() ?? .nan
        return Measurement(seconds: fastest, maxRSSKiB: measurements.map(\.maxRSSKiB).max() ?? 0)
    }

    /// Spawns `argv` under `/usr/bin/time` (whose own fork gives the child a fresh peak-RSS count) with standard
    /// output and error discarded, and returns the wall time and the child's peak RSS.
    private static func runChild(_ argv: [String]) -> Measurement {
        let report = FileManager.default.temporaryDirectory.appendingPathComponent("rampart-bench-time-\(getpid())")
        defer { try? FileManager.default.removeItem(at: report) }
        let timed = FileManager.default.isExecutableFile(atPath: "/usr/bin/time")
        let command = timed ? ["/usr/bin/time", "-f", "%M", "-o", report.path] + argv : argv
        let clock = ContinuousClock()
        let start = clock.now
        var pid: pid_t = 0
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let arguments = command.map { strdup($0) } + [nil]
        defer { arguments.forEach { free($0) } }
        guard posix_spawn(&pid, command[0], &actions, nil, arguments, environ) == 0 else {
            return Measurement(seconds: .nan, maxRSSKiB: 0)
        }
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        let elapsed = clock.now - start
        let text = (try? String(contentsOf: report, encoding: .utf8)) ?? ""
        let peak = text.split(separator: "\n").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }.last ?? 0
        return Measurement(seconds: seconds(of: elapsed), maxRSSKiB: peak)
    }

    private static func which(_ tool: String) -> String? {
        for directory in ["/usr/bin", "/bin", "/usr/local/bin"]
        where FileManager.default.isExecutableFile(atPath: "\(directory)/\(tool)") {
            return "\(directory)/\(tool)"
        }
        return nil
    }

    /// Runs `body` ``runs`` times, each after deleting `output` and a `sync`, and returns the fastest time.
    private static func best(removing output: String, _ body: () -> Double) -> Double {
        var times: [Double] = []
        for _ in 0..<runs {
            try? FileManager.default.removeItem(atPath: output)
            sync()
            times.append(body())
        }
        return times.min() ?? .nan
    }

    private static func time(_ body: () -> Void) -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        body()
        return seconds(of: clock.now - start)
    }

    private static func seconds(of duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    private static func label(_ text: String) -> String { text.padding(toLength: 36, withPad: " ", startingAt: 0) }

    private static func format(_ rate: Double) -> String { String(format: "%10.0f", rate) }

    private static func seconds(_ value: Double) -> String { String(format: "%6.2f s", value) }

    /// A peak RSS in KiB as decimal megabytes (the unit the targets use).
    private static func peakText(_ kibibytes: Int) -> String {
        String(format: "%5.1f MB", Double(kibibytes) * 1.024 / 1000)
    }
}
