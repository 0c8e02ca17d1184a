import Foundation
import TestSupport
import Testing

/// `rampart pinset`'s property list outputs and `--merge-into`, run as the built binary: the debug build next to the
/// tests, or the release build (`scripts/build-release.sh`, Swift runtime linked statically) when
/// `RAMPART_BINARY_DIR` names its directory, where Foundation's property list writer refuses arrays.
@Suite(.enabled(if: DocExampleTests.rampartDirectory != nil, "the rampart binary was not built"))
struct PinsetBinaryTests {
    /// A pin that is no key of the test PKI (a spare key's, for TrustKit's required backup).
    static let spare = "C5+lpZ7tcVwmwQIMcRtPbsQtWLABXhQzejna0wHFr8M="

    let pki: TestPKI
    let directory: String

    init() throws {
        pki = try TestPKI.shared.get()
        directory = ScratchDirectory.uniquePath("pinset-binary")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    func rampart(_ arguments: [String]) throws -> SpawnedProcess.Completed {
        let binary = try #require(DocExampleTests.rampartDirectory).appendingPathComponent("rampart").path
        return try SpawnedProcess.run(binary, arguments, directory: directory)
    }

    func pinset(_ extra: [String]) throws -> SpawnedProcess.Completed {
        try rampart(
            [
                "pinset", pki.path("good-chain.pem"), "--host", "good.rampart.test", "--ca", pki.path("root.pem"),
                "--at",
                atTime,
            ] + extra)
    }

    func file(_ name: String) -> String { "\(directory)/\(name)" }

    @Test("--format plist and --format trustkit exit 0 with a property list that check reads and accepts")
    func propertyListFormats() throws {
        for format in ["plist", "trustkit"] {
            let written = try pinset(
                ["--format", format] + (format == "trustkit" ? ["--backup-pin", Self.spare] : []))
            try #require(written.termination == .exited(0), "\(format): \(written.errorText)")
            #expect(written.text.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE plist"))
            #expect(
                written.text.contains(format == "plist" ? "<key>NSPinnedCAIdentities</key>" : "<key>TSKConfiguration"))
            try Data(written.stdout).write(to: URL(fileURLWithPath: file("pins.\(format)")))
            let checked = try rampart([
                "check", "--config", file("pins.\(format)"), pki.path("good-chain.pem"), "--host", "good.rampart.test",
                "--ca", pki.path("root.pem"), "--at", atTime,
            ])
            #expect(checked.termination == .exited(0), "\(format): \(checked.text)\(checked.errorText)")
            #expect(checked.text.hasPrefix("allowed: good.rampart.test [pinned]"), "\(format): \(checked.text)")
            // The same input gives the same bytes.
            #expect(
                try pinset(["--format", format] + (format == "trustkit" ? ["--backup-pin", Self.spare] : [])).stdout
                    == written.stdout)
        }
    }

    static let infoPlist = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        \t<key>CFBundleIdentifier</key>
        \t<string>com.example.app</string>
        \t<key>NSAppTransportSecurity</key>
        \t<dict>
        \t\t<key>NSAllowsLocalNetworking</key>
        \t\t<true/>
        \t\t<key>NSPinnedDomains</key>
        \t\t<dict>
        \t\t\t<key>good.rampart.test</key>
        \t\t\t<dict>
        \t\t\t\t<key>NSPinnedLeafIdentities</key>
        \t\t\t\t<array>
        \t\t\t\t\t<dict>
        \t\t\t\t\t\t<key>SPKI-SHA256-BASE64</key>
        \t\t\t\t\t\t<string>\(spare)</string>
        \t\t\t\t\t</dict>
        \t\t\t\t</array>
        \t\t\t</dict>
        \t\t\t<key>other.example</key>
        \t\t\t<dict>
        \t\t\t\t<key>NSPinnedCAIdentities</key>
        \t\t\t\t<array>
        \t\t\t\t\t<dict>
        \t\t\t\t\t\t<key>SPKI-SHA256-BASE64</key>
        \t\t\t\t\t\t<string>\(spare)</string>
        \t\t\t\t\t</dict>
        \t\t\t\t</array>
        \t\t\t</dict>
        \t\t</dict>
        \t</dict>
        </dict>
        </plist>

        """

    @Test("--merge-into writes the file in place: the host's entry replaced, other domains and keys kept, a .bak")
    func mergeInPlace() throws {
        let path = file("Info.plist")
        try Data(Self.infoPlist.utf8).write(to: URL(fileURLWithPath: path))
        #expect(chmod(path, 0o640) == 0)
        let merged = try pinset(["--format", "plist", "--merge-into", path])
        try #require(merged.termination == .exited(0), "\(merged.errorText)")
        #expect(
            merged.text
                == "merged the pins of good.rampart.test into \(path) (NSPinnedDomains); the previous file is "
                + "\(path).bak\n")
        #expect(try String(contentsOfFile: path + ".bak", encoding: .utf8) == Self.infoPlist)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.contains("<key>CFBundleIdentifier</key>\n\t<string>com.example.app</string>"))
        #expect(text.contains("<key>NSAllowsLocalNetworking</key>\n\t\t<true/>"))
        #expect(text.contains("<key>other.example</key>"))
        #expect(text.contains("<key>NSPinnedCAIdentities</key>"))
        #expect(!text.contains("NSPinnedLeafIdentities"), "the old entry of good.rampart.test is replaced")
        #expect(FileManager.default.fileExists(atPath: path))
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? Int) == 0o640)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory).filter {
            $0.contains("rampart-")
        }
        #expect(leftovers.isEmpty)
        // The merged file pins the chain for check, and keeps the other domain's pins.
        let checked = try rampart([
            "check", "--config", path, pki.path("good-chain.pem"), "--host", "good.rampart.test", "--ca",
            pki.path("root.pem"), "--at", atTime,
        ])
        #expect(checked.termination == .exited(0), "\(checked.text)")
        let lint = try rampart(["lint", path, "--json"])
        #expect(lint.text.contains("other.example"))
        // A second merge of the same host gives the same file; the backup is now the first merge's output.
        let again = try pinset(["--format", "plist", "--merge-into", path])
        #expect(again.termination == .exited(0))
        #expect(try String(contentsOfFile: path, encoding: .utf8) == text)
        #expect(try String(contentsOfFile: path + ".bak", encoding: .utf8) == text)
    }

    @Test(
        "--merge-into flushes the backup and the merged file before renaming each into place, and the directory after",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/strace"), "needs /usr/bin/strace"))
    func mergeIsDurable() throws {
        let path = file("Traced.plist")
        try Data(Self.infoPlist.utf8).write(to: URL(fileURLWithPath: path))
        let binary = try #require(DocExampleTests.rampartDirectory).appendingPathComponent("rampart").path
        let traced = try SpawnedProcess.run(
            "/usr/bin/strace",
            [
                "-f", "-o", file("merge.trace"), "-e", "trace=fsync,fdatasync,rename,renameat,renameat2", binary,
                "pinset", pki.path("good-chain.pem"), "--host", "good.rampart.test", "--ca", pki.path("root.pem"),
                "--at", atTime, "--format", "plist", "--merge-into", path,
            ])
        try #require(traced.termination == .exited(0), "\(traced.errorText)")
        let calls = try String(contentsOfFile: file("merge.trace"), encoding: .utf8).split(separator: "\n")
            .filter { !$0.contains("resumed>") && !$0.contains("+++") }
        for destination in [path + ".bak", path] {
            let rename = try #require(
                calls.firstIndex { $0.contains("rename") && $0.contains("\"\(destination)\"") },
                "no rename onto \(destination)")
            #expect(rename > 0 && calls[rename - 1].contains("fsync("), "\(destination) was not flushed before")
            #expect(
                calls.count > rename + 1 && calls[rename + 1].contains("fsync("),
                "the directory was not flushed after \(destination)")
        }
    }

    @Test("--merge-into leaves the file untouched and writes no backup when it cannot merge (exit 2)")
    func mergeRefusals() throws {
        let notPlist = file("broken.plist")
        try Data("<plist version=\"1.0\"><dict><key>a</key></plist>".utf8).write(to: URL(fileURLWithPath: notPlist))
        let refused = try pinset(["--format", "plist", "--merge-into", notPlist])
        #expect(refused.termination == .exited(2))
        #expect(refused.errorText.contains("not a well-formed property list"), "\(refused.errorText)")
        #expect(
            try String(contentsOfFile: notPlist, encoding: .utf8) == "<plist version=\"1.0\"><dict><key>a</key></plist>"
        )
        #expect(!FileManager.default.fileExists(atPath: notPlist + ".bak"))
        let missing = try pinset(["--format", "plist", "--merge-into", file("absent.plist")])
        #expect(missing.termination == .exited(2))
        #expect(missing.errorText.contains("cannot read \(file("absent.plist")) to merge into"))
        let wrongFormat = try pinset(["--format", "json", "--merge-into", notPlist])
        #expect(wrongFormat.termination == .exited(2))
        #expect(wrongFormat.errorText.contains("--merge-into works with --format plist only"))
    }
}
