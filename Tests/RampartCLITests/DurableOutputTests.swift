import Foundation
import TestSupport
import Testing

/// Issue 32 item 6: `rampart seal` and `open` flush their output to disk before renaming it into place, and flush the
/// directory after, so that a power loss leaves the old file or the whole new one. Checked on the system calls the
/// built binary makes, traced with strace.
@Suite(
    .enabled(
        if: DocExampleTests.rampartDirectory != nil && FileManager.default.isExecutableFile(atPath: "/usr/bin/strace"),
        "needs the built rampart and /usr/bin/strace"))
struct DurableOutputTests {
    @Test("seal and open: fsync of the output, then the rename over the destination, then fsync of its directory")
    func flushedAroundTheRename() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rampart-durable-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = { (name: String) in directory.appendingPathComponent(name).path }
        try Data("pw\n".utf8).write(to: directory.appendingPathComponent("pw.txt"))
        try Data(repeating: 0x5A, count: 100_000).write(to: directory.appendingPathComponent("plain.bin"))
        let rampart = try #require(DocExampleTests.rampartDirectory).appendingPathComponent("rampart").path
        let runs = [
            ("seal", ["seal", path("plain.bin"), path("out.sealed"), "--kdf", "pbkdf2"], "out.sealed"),
            ("open", ["open", path("out.sealed"), path("out.bin")], "out.bin"),
        ]
        for (name, arguments, output) in runs {
            let log = path("\(name).trace")
            let traced = try SpawnedProcess.run(
                "/usr/bin/strace",
                ["-f", "-o", log, "-e", "trace=fsync,fdatasync,rename,renameat,renameat2", rampart]
                    + arguments + ["--passphrase-file", path("pw.txt")])
            try #require(traced.termination == .exited(0), "\(name): \(traced.errorText)")
            let calls = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
                .filter { !$0.contains("resumed>") && !$0.contains("+++") }
            let rename = try #require(
                calls.firstIndex { $0.contains("rename") && $0.contains("\"\(path(output))\"") },
                "\(name): no rename onto \(output)")
            #expect(
                calls[..<rename].contains { $0.contains("fsync(") },
                "\(name): the output was not flushed before the rename")
            #expect(
                calls[(rename + 1)...].contains { $0.contains("fsync(") },
                "\(name): the directory was not flushed after it")
        }
    }
}
