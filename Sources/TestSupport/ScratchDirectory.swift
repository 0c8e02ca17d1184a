public import Foundation

#if canImport(Glibc)
internal import Glibc
#endif

/// One directory per test process for the files tests leave behind (databases, PEM roots, configurations, the test
/// PKI), removed with everything in it when the process exits normally.
public enum ScratchDirectory {
    /// `$TMPDIR/rampart-tests-<pid>`, created on first use.
    public static let url: URL = {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("rampart-tests-\(ProcessInfo.processInfo.processIdentifier)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(at: ScratchDirectory.url) }
        return url
    }()

    /// A path in the scratch directory that no other caller gets: `name` with a UUID before its extension.
    ///
    /// - Parameter name: For example `store.db`.
    /// - Returns: The path (nothing is created).
    public static func uniquePath(_ name: String) -> String {
        let extensionStart = name.lastIndex(of: ".") ?? name.endIndex
        let unique = "\(name[..<extensionStart])-\(UUID().uuidString)\(name[extensionStart...])"
        return url.appendingPathComponent(unique).path
    }
}
