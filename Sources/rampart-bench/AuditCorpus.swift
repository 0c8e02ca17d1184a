import Foundation
import RampartAudit

/// The labelled corpus of `rampart-bench audit` (issue 28): real public iOS projects, each at a fixed commit, with
/// every finding Rampart has made on them and every mistake a reviewer found, labelled by hand. Only the labels live
/// here; the projects are read from their git mirrors (`$RAMPART_AUDIT_CORPUS`, default `/work/.mirror`, one
/// `owner+name/repo` git directory each, as the workplace's fetch tool leaves them) and extracted once into
/// `.build/audit-corpus/`.
///
/// A label is true when the code does what the rule says (a reviewer would ask for a change), false when the
/// finding is wrong. A true label with no finding is a miss; a finding with no label counts as false until labelled.
enum AuditCorpus {
    /// One labelled line.
    struct Label {
        let path: String
        let line: Int
        let rule: String
        let isTrue: Bool
        let why: String
    }

    /// One project: its repository, the commit read, and its labels.
    struct Project {
        let repository: String
        let commit: String
        let labels: [Label]
    }

    static let projects: [Project] = [
        Project(
            repository: "vpeschenkov/SecureDefaults", commit: "20ab65792f5cf54f0c161d9cb4bbecfb3a30259c",
            labels: [
                Label(
                    path: "Sources/SecureDefaults/AES256.swift", line: 110, rule: "pbkdf2-rounds", isTrue: true,
                    why: "CCKeyDerivationPBKDF with HMAC-SHA1 and 10,000 rounds derives the defaults' key"),
                Label(
                    path: "Sources/SecureDefaults/SecureDefaults.swift", line: 40, rule: "hardcoded-secret",
                    isTrue: false, why: "\"SecureDefaults.v1.2.2.AESKey\" is the Keychain item's name, not the key"),
                Label(
                    path: "Sources/SecureDefaults/SecureDefaults.swift", line: 306, rule: "keychain-accessible-always",
                    isTrue: false, why: "a local constant with the old value, declared to find items of old versions"),
                Label(
                    path: "Sources/SecureDefaults/SecureDefaults.swift", line: 311, rule: "keychain-accessible-always",
                    isTrue: false, why: "reads the old item (KeychainHelper.get) to migrate it"),
                Label(
                    path: "Sources/SecureDefaults/SecureDefaults.swift", line: 314, rule: "keychain-accessible-always",
                    isTrue: false, why: "removes the old item after migrating it"),
                Label(
                    path: "Sources/SecureDefaults/SecureDefaults.swift", line: 340, rule: "keychain-accessible-always",
                    isTrue: false, why: "a local constant with the old value, declared to find items of old versions"),
                Label(
                    path: "Sources/SecureDefaults/SecureDefaults.swift", line: 345, rule: "keychain-accessible-always",
                    isTrue: false, why: "reads the old item to migrate it"),
                Label(
                    path: "Sources/SecureDefaults/SecureDefaults.swift", line: 350, rule: "keychain-accessible-always",
                    isTrue: false, why: "removes the old item after migrating it"),
                Label(
                    path: "Example/Tests/Tests.swift", line: 110, rule: "keychain-accessible-always", isTrue: true,
                    why: "stores an item with kSecAttrAccessibleAlways (a test making a legacy item on purpose)"),
                Label(
                    path: "Example/Tests/Tests.swift", line: 139, rule: "keychain-accessible-always", isTrue: true,
                    why: "stores an item with kSecAttrAccessibleAlways (a test making a legacy item on purpose)"),
                Label(
                    path: "Example/Tests/Tests.swift", line: 160, rule: "keychain-accessible-always", isTrue: false,
                    why: "declares the old value to clean up with"),
                Label(
                    path: "Example/Tests/Tests.swift", line: 163, rule: "keychain-accessible-always", isTrue: false,
                    why: "removes an item (KeychainHelper.remove)"),
                Label(
                    path: "Example/Tests/Tests.swift", line: 165, rule: "keychain-accessible-always", isTrue: false,
                    why: "removes an item (KeychainHelper.remove)"),
                Label(
                    path: "Tests/SecureDefaultsTests/SecureDefaultsTests.swift", line: 106,
                    rule: "keychain-accessible-always", isTrue: false, why: "declares the old value"),
                Label(
                    path: "Tests/SecureDefaultsTests/SecureDefaultsTests.swift", line: 112,
                    rule: "keychain-accessible-always", isTrue: true,
                    why: "stores an item with kSecAttrAccessibleAlways (a test making a legacy item on purpose)"),
                Label(
                    path: "Tests/SecureDefaultsTests/SecureDefaultsTests.swift", line: 136,
                    rule: "keychain-accessible-always", isTrue: false, why: "declares the old value"),
                Label(
                    path: "Tests/SecureDefaultsTests/SecureDefaultsTests.swift", line: 142,
                    rule: "keychain-accessible-always", isTrue: true,
                    why: "stores an item with kSecAttrAccessibleAlways (a test making a legacy item on purpose)"),
                Label(
                    path: "Tests/SecureDefaultsTests/SecureDefaultsTests.swift", line: 164,
                    rule: "keychain-accessible-always", isTrue: false, why: "declares the old value"),
                Label(
                    path: "Tests/SecureDefaultsTests/SecureDefaultsTests.swift", line: 165,
                    rule: "keychain-accessible-always", isTrue: false, why: "removes an item"),
                Label(
                    path: "Tests/SecureDefaultsTests/SecureDefaultsTests.swift", line: 167,
                    rule: "keychain-accessible-always", isTrue: false, why: "removes an item"),
            ]),
        Project(
            repository: "NZN/NSUserDefaults-AESEncryptor", commit: "0cc018eec31ac4cce86e4df7bcb21388734c73de",
            labels: [
                Label(
                    path: "Example/Classes/Controllers/NZViewController.m", line: 37, rule: "hardcoded-crypto-key",
                    isTrue: true, why: "setAESKey:@\"World Cup 2014\" sets the AES key of every encrypted default"),
                Label(
                    path: "Example/Classes/Controllers/NZViewController.m", line: 32, rule: "hardcoded-crypto-key",
                    isTrue: false, why: "@\"Country\" is a defaults key name passed to removeObjectForAESKey:"),
                Label(
                    path: "NSUserDefaults-AESEncryptor/NSUserDefaults+AESEncryptor.m", line: 12,
                    rule: "hardcoded-crypto-key", isTrue: true,
                    why: "AESKeyString = @\"aes key not found\" is the AES key used until setAESKey: is called"),
            ]),
        Project(
            repository: "CarsonARK/iOS-Encrypted-Preferences", commit: "711f844231f5202ee8af8b8c3bbf1320a84a0f99",
            labels: [
                Label(
                    path: "EncryptedPreferences.h", line: 48, rule: "hardcoded-credential", isTrue: true,
                    why: "the default AESCrypt password for preference names, in a header"),
                Label(
                    path: "EncryptedPreferences.h", line: 49, rule: "hardcoded-credential", isTrue: true,
                    why: "the default AESCrypt password for values, in a header"),
            ]),
    ]

    /// Counts for one rule.
    struct Score {
        var truePositives = 0
        var falsePositives = 0
        var misses = 0
        var unlabelled: [String] = []
    }

    /// Audits every project found and prints recall and precision per rule, with the misses and unlabelled findings.
    static func run() {
        let root = ProcessInfo.processInfo.environment["RAMPART_AUDIT_CORPUS"] ?? "/work/.mirror"
        let cache = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".build/audit-corpus")
        var scores: [String: Score] = [:]
        var audited = 0
        for project in projects {
            let mirrorName = project.repository.replacingOccurrences(of: "/", with: "+")
            let folder = cache.appendingPathComponent("\(mirrorName)@\(project.commit.prefix(12))")
            if !FileManager.default.fileExists(atPath: folder.path) {
                let gitDirectory = "\(root)/\(mirrorName)/repo"
                guard FileManager.default.fileExists(atPath: gitDirectory),
                    extract(gitDirectory, project.commit, folder)
                else {
                    print(
                        "  corpus: \(project.repository) not found at \(gitDirectory); fetch it, or set RAMPART_AUDIT_CORPUS"
                    )
                    continue
                }
            }
            guard let report = try? Auditor().audit(path: folder.path) else {
                print("  corpus: \(project.repository) could not be audited")
                continue
            }
            audited += 1
            var found: Set<String> = []
            for finding in report.findings {
                let key = "\(finding.file):\(finding.line):\(finding.rule.id)"
                found.insert(key)
                let label = project.labels.first {
                    $0.path == finding.file && $0.line == finding.line && $0.rule == finding.rule.id
                }
                switch label?.isTrue {
                case true?: scores[finding.rule.id, default: Score()].truePositives += 1
                case false?: scores[finding.rule.id, default: Score()].falsePositives += 1
                case nil:
                    scores[finding.rule.id, default: Score()].falsePositives += 1
                    scores[finding.rule.id, default: Score()].unlabelled.append("\(project.repository) \(key)")
                }
            }
            for label in project.labels
            where label.isTrue && !found.contains("\(label.path):\(label.line):\(label.rule)") {
                scores[label.rule, default: Score()].misses += 1
                print("  missed: \(project.repository) \(label.path):\(label.line) \(label.rule): \(label.why)")
            }
        }
        print("  corpus: \(audited) of \(projects.count) projects audited")
        print("  rule                          TP  FP  FN  recall  precision")
        for (rule, score) in scores.sorted(by: { $0.key < $1.key }) {
            let found = score.truePositives + score.misses
            let reported = score.truePositives + score.falsePositives
            let recall = found == 0 ? "-" : String(format: "%5.0f%%", 100 * Double(score.truePositives) / Double(found))
            let precision =
                reported == 0 ? "-" : String(format: "%7.0f%%", 100 * Double(score.truePositives) / Double(reported))
            let name = rule.padding(toLength: 28, withPad: " ", startingAt: 0)
            print(
                "  \(name) \(String(format: "%3d %3d %3d", score.truePositives, score.falsePositives, score.misses))  "
                    + "\(recall)  \(precision)")
            for finding in score.unlabelled { print("    unlabelled: \(finding)") }
        }
    }

    /// `git archive COMMIT | tar -x` from a mirror into `folder`.
    static func extract(_ gitDirectory: String, _ commit: String, _ folder: URL) -> Bool {
        let staging = folder.deletingLastPathComponent().appendingPathComponent(".\(folder.lastPathComponent).partial")
        try? FileManager.default.removeItem(at: staging)
        guard (try? FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)) != nil
        else { return false }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = [
            "-c", "git --git-dir=\"$1\" archive \"$2\" | tar -x -C \"$3\"", "extract", gitDirectory, commit,
            staging.path,
        ]
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return false }
        return (try? FileManager.default.moveItem(at: staging, to: folder)) != nil
    }
}
