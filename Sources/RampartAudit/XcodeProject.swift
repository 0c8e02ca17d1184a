import Foundation

/// Which build configurations use which entitlements file, read from an Xcode `project.pbxproj`: each
/// `XCBuildConfiguration` object's `name` and its `CODE_SIGN_ENTITLEMENTS` build setting.
///
/// The format is Xcode's old-style (OpenStep) property list; only these two keys are read, by scanning each
/// `isa = XCBuildConfiguration;` object, so an unusual layout reads as "not known" rather than as an error.
struct XcodeProject {
    /// Entitlements file name (its last path component) → the configurations that sign with it.
    var configurations: [String: Set<String>] = [:]

    init() {}

    init(text: String) { add(text) }

    mutating func add(_ text: String) {
        let objects = text.components(separatedBy: "isa = XCBuildConfiguration;").dropFirst()
        for object in objects {
            // The object ends where the next object's `isa` starts; its name follows its buildSettings.
            let body = object.components(separatedBy: "isa = ").first ?? object
            guard let entitlements = Self.value(of: "CODE_SIGN_ENTITLEMENTS", in: body),
                let name = Self.value(of: "name", in: body)
            else { continue }
            let file = entitlements.split(separator: "/").last.map(String.init) ?? entitlements
            configurations[file, default: []].insert(name)
        }
    }

    /// Whether `file` is used by a configuration other than a debug one; nil when no project names it.
    func isUsedInRelease(_ file: String) -> Bool? {
        guard let names = configurations[file] else { return nil }
        return names.contains { !$0.lowercased().contains("debug") }
    }

    /// The value of `KEY = value;` (quotes removed) in `text`, the last occurrence at the start of a line.
    static func value(of key: String, in text: String) -> String? {
        var found: String?
        for line in text.split(separator: "\n") {
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            guard trimmed.hasPrefix(key + " = "), let end = trimmed.lastIndex(of: ";") else { continue }
            var value = trimmed[trimmed.index(trimmed.startIndex, offsetBy: key.count + 3)..<end]
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = value.dropFirst().dropLast() }
            found = String(value)
        }
        return found
    }
}
