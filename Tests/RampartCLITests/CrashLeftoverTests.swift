import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Issue 32 item 6: `kill -9` while `rampart open` (or `seal`) writes its output leaves no temporary file behind: the
/// output is an unnamed file until every segment verified.
@Suite(
    .enabled(if: DocExampleTests.rampartDirectory != nil, "the rampart binary was not built: swift build --build-tests")
)
struct CrashLeftoverTests {
    @Test(
        "kill -9 halfway through open or seal from a pipe leaves nothing in the output's directory",
        arguments: ["open", "seal"])
    func killHalfway(command: String) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rampart-crash-\(UUID())")
        let output = directory.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let passphrase = directory.appendingPathComponent("pass.txt")
        try Data("correct horse battery staple\n".utf8).write(to: passphrase)
        let plain = directory.appendingPathComponent("plain.bin")
        try Data((0..<(4 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(to: plain)
        let sealedFile = directory.appendingPathComponent("plain.sealed")
        let sealed = await runRampart([
            "seal", plain.path, sealedFile.path, "--passphrase-file", passphrase.path, "--kdf", "pbkdf2",
        ])
        try #require(sealed.status == 0, "\(sealed.stderr)")
        let input = try Data(contentsOf: command == "open" ? sealedFile : plain)

        let rampart = try #require(DocExampleTests.rampartDirectory).appendingPathComponent("rampart").path
        let child = try SpawnedProcess(
            rampart,
            arguments: [
                command, "-", output.appendingPathComponent("result").path, "--passphrase-file", passphrase.path,
            ]
                + (command == "seal" ? ["--kdf", "pbkdf2"] : []),
            standardInput: .pipe, standardOutput: .null, standardError: .null)
        let pipe = try #require(child.standardInput)
        // Half the input, then a pause long enough for the child to write what it verified of it.
        try pipe.write(contentsOf: input.prefix(input.count / 2))
        try await Task.sleep(for: .milliseconds(1500))
        #expect(child.isRunning, "the child ended before it was killed")
        child.signal(SIGKILL)
        #expect(child.wait() == .signalled(SIGKILL))
        try? pipe.close()
        let left = try FileManager.default.contentsOfDirectory(atPath: output.path)
        #expect(left.isEmpty, "kill -9 during \(command) left \(left)")
    }
}
