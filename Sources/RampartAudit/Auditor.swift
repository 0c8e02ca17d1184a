public import Foundation

/// Audits a project folder: finds its Info.plist files, entitlements, Swift sources and Objective-C/C sources, and
/// runs every ``AuditRule`` over them.
///
/// Folders named `.build`, `Pods`, `Carthage`, `DerivedData`, `.git`, `.swiftpm` and `node_modules` are skipped,
/// symbolic links are not followed, and the number and size of files are bounded. Source files of languages the
/// audit does not read (Kotlin, Java, Dart, JavaScript, TypeScript, C#) are counted in ``AuditReport/notRead``, so
/// that a report never calls a project clean that it has not read.
public struct Auditor: Sendable {
    /// The default most files audited in one run (DoS bound); a larger folder is refused with
    /// ``AuditError/Code/tooManyFiles``.
    public static let defaultMaximumFileCount = 100_000
    /// The default largest file read, in bytes (DoS bound); a larger file is skipped and listed in
    /// ``AuditReport/skipped``. It is the lexer's own limit.
    public static let defaultMaximumFileSize = SwiftLexer.maximumInputSize
    /// The folders never entered.
    public static let skippedFolders: Set<String> = [
        ".build", "Pods", "Carthage", "DerivedData", ".git", ".swiftpm", "node_modules",
    ]
    /// The extensions of Objective-C, C and C++ sources, read with ``ObjectiveCLexer``.
    public static let objectiveCExtensions: Set<String> = ["m", "mm", "h", "c", "cc", "cpp", "cxx", "hpp"]
    /// The extensions of app sources in languages the audit does not read; each such file is listed as not read.
    public static let unreadSourceExtensions: Set<String> = ["kt", "java", "dart", "js", "jsx", "ts", "tsx", "cs"]

    /// The time pinned-domain expiry checks are judged at.
    public let time: Date
    /// The most files audited in one run.
    public let maximumFileCount: Int
    /// The largest file read, in bytes (at most the lexer's limit).
    public let maximumFileSize: Int

    /// Creates an auditor.
    ///
    /// - Parameters:
    ///   - time: When to judge certificate expiry (the pinned-domain checks); now by default.
    ///   - maximumFileCount: The most files audited; more is refused.
    ///   - maximumFileSize: The largest file read, in bytes; larger ones are skipped.
    public init(
        time: Date = Date(), maximumFileCount: Int = defaultMaximumFileCount,
        maximumFileSize: Int = defaultMaximumFileSize
    ) {
        self.time = time
        self.maximumFileCount = maximumFileCount
        self.maximumFileSize = min(maximumFileSize, SwiftLexer.maximumInputSize)
    }

    /// Audits `path`, a folder or a single file.
    ///
    /// - Parameter path: The project folder (or one file).
    /// - Returns: The findings, sorted by file, line and column, with paths relative to `path`.
    /// - Throws: ``AuditError`` with ``AuditError/Code/unreadablePath`` or ``AuditError/Code/tooManyFiles``.
    public func audit(path: String) throws -> AuditReport {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            throw AuditError.make(.unreadablePath, "\(path) does not exist; give the project folder to audit")
        }
        let root = URL(fileURLWithPath: path)
        var files: [(url: URL, relative: String)] = []
        var notRead: [String: Int] = [:]
        if isFolder.boolValue {
            (files, notRead) = try collect(root)
        } else if Self.isAudited(root.lastPathComponent) {
            files = [(root, root.lastPathComponent)]
        } else {
            notRead[Self.kind(of: root.lastPathComponent), default: 0] += 1
        }
        var findings: [AuditFinding] = []
        var skipped: [String] = []
        var audited = 0
        var lines = 0
        var objectiveCLines = 0
        // Xcode projects first: they say which entitlements files release builds sign with.
        var project = XcodeProject()
        for file in files where file.url.lastPathComponent == "project.pbxproj" {
            let size = (try? file.url.resourceValues(forKeys: [.fileSizeKey]))?.fileSize ?? 0
            guard size <= maximumFileSize, let data = try? Data(contentsOf: file.url) else { continue }
            project.add(String(decoding: data, as: UTF8.self))
        }
        for file in files where file.url.lastPathComponent != "project.pbxproj" {
            let values = try? file.url.resourceValues(forKeys: [.fileSizeKey])
            if let size = values?.fileSize, size > maximumFileSize {
                skipped.append("\(file.relative): larger than \(maximumFileSize) bytes")
                continue
            }
            guard let data = try? Data(contentsOf: file.url), data.count <= maximumFileSize else {
                skipped.append("\(file.relative): unreadable")
                continue
            }
            audited += 1
            let name = file.url.lastPathComponent
            if name.hasSuffix(".swift") {
                let bytes = [UInt8](data)
                lines += bytes.reduce(into: 1) { count, byte in if byte == 0x0A { count += 1 } }
                findings += SourceRules.findings(in: bytes, file: file.relative)
            } else if Self.objectiveCExtensions.contains(file.url.pathExtension) {
                let bytes = [UInt8](data)
                objectiveCLines += bytes.reduce(into: 1) { count, byte in if byte == 0x0A { count += 1 } }
                findings += SourceRules.findings(inObjectiveC: bytes, file: file.relative)
            } else if let plistFindings = self.findings(
                inPropertyList: data, file: file.relative, usedInRelease: project.isUsedInRelease(name))
            {
                findings += plistFindings
            } else {
                skipped.append("\(file.relative): not a property list")
            }
        }
        findings.sort { ($0.file, $0.line, $0.column, $0.rule.id) < ($1.file, $1.line, $1.column, $1.rule.id) }
        return AuditReport(
            findings: findings, filesAudited: audited, swiftLines: lines, skipped: skipped,
            objectiveCLines: objectiveCLines, notRead: notRead)
    }

    /// The findings of the source rules in one Swift file.
    ///
    /// - Parameters:
    ///   - source: The file's text.
    ///   - file: The path to report.
    /// - Returns: The findings, in source order.
    public func findings(inSwiftSource source: String, file: String) -> [AuditFinding] {
        SourceRules.findings(in: Array(source.utf8), file: file)
    }

    /// The findings of the source rules in one Objective-C, C or C++ file (`.m`, `.mm`, `.h`, `.c`, …).
    ///
    /// - Parameters:
    ///   - source: The file's text.
    ///   - file: The path to report.
    /// - Returns: The findings, in source order.
    public func findings(inObjectiveCSource source: String, file: String) -> [AuditFinding] {
        SourceRules.findings(inObjectiveC: Array(source.utf8), file: file)
    }

    /// The findings of the ATS rules (an Info.plist) or the entitlement rules (a file ending in `.entitlements`)
    /// in one property list, XML or binary.
    ///
    /// - Parameters:
    ///   - data: The property list's bytes.
    ///   - file: The path to report; its name chooses the rules.
    /// - Returns: The findings, or nil when `data` is not a dictionary property list.
    public func findings(inPropertyList data: Data, file: String) -> [AuditFinding]? {
        findings(inPropertyList: data, file: file, usedInRelease: nil)
    }

    func findings(inPropertyList data: Data, file: String, usedInRelease: Bool?) -> [AuditFinding]? {
        guard let plist = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any]
        else { return nil }
        if file.hasSuffix(".entitlements") {
            return PlistRules.entitlementFindings(plist, data: data, file: file, usedInRelease: usedInRelease)
        }
        return PlistRules.infoPlistFindings(plist, data: data, file: file, at: time)
    }

    /// Whether the auditor reads a file of this name.
    static func isAudited(_ name: String) -> Bool {
        name.hasSuffix(".swift") || name.hasSuffix(".entitlements") || name == "Info.plist"
            || name.hasSuffix("-Info.plist") || name == "project.pbxproj"
            || objectiveCExtensions.contains(extensionOf(name))
    }

    /// The part of a file name after its last dot, or "".
    static func extensionOf(_ name: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return String(name[name.index(after: dot)...])
    }

    /// How a file the audit does not read is listed: `.kt`, or its name when it has no extension.
    static func kind(of name: String) -> String {
        let pathExtension = extensionOf(name)
        return pathExtension.isEmpty ? name : ".\(pathExtension)"
    }

    private func collect(_ root: URL) throws -> (files: [(url: URL, relative: String)], notRead: [String: Int]) {
        let keys: [URLResourceKey] = [.isDirectoryKey, .isSymbolicLinkKey]
        guard
            let enumerator = FileManager.default.enumerator(
                at: root, includingPropertiesForKeys: keys, options: [], errorHandler: { _, _ in true })
        else {
            throw AuditError.make(.unreadablePath, "\(root.path) cannot be read; check its permissions")
        }
        let rootPath = root.standardizedFileURL.path
        var files: [(URL, String)] = []
        var notRead: [String: Int] = [:]
        for case let url as URL in enumerator {
            let values = try? url.resourceValues(forKeys: Set(keys))
            if values?.isSymbolicLink == true { continue }
            if values?.isDirectory == true {
                if Self.skippedFolders.contains(url.lastPathComponent) { enumerator.skipDescendants() }
                continue
            }
            guard Self.isAudited(url.lastPathComponent) else {
                let pathExtension = Self.extensionOf(url.lastPathComponent)
                if Self.unreadSourceExtensions.contains(pathExtension) { notRead[".\(pathExtension)", default: 0] += 1 }
                continue
            }
            guard files.count < maximumFileCount else {
                throw AuditError.make(
                    .tooManyFiles,
                    "\(root.path) holds more than \(maximumFileCount) files to audit; audit a smaller folder")
            }
            var relative = url.standardizedFileURL.path
            if relative.hasPrefix(rootPath + "/") { relative.removeFirst(rootPath.count + 1) }
            files.append((url, relative))
        }
        return (files.sorted { $0.1 < $1.1 }, notRead)
    }
}
