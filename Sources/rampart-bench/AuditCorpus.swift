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

        /// A true mistake at `path:line`, whether or not Rampart reports it.
        static func mistake(_ path: String, _ line: Int, _ rule: String, _ why: String) -> Label {
            Label(path: path, line: line, rule: rule, isTrue: true, why: why)
        }

        /// A finding Rampart reports (or reported) that is not a mistake.
        static func wrong(_ path: String, _ line: Int, _ rule: String, _ why: String) -> Label {
            Label(path: path, line: line, rule: rule, isTrue: false, why: why)
        }
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
        Project(
            repository: "BrotherZemurro3/ImageFeed", commit: "88d3ab8a58eb72737e8a11e15794dd17fc7fd157",
            labels: [
                .mistake("Constants/AuthConfiguration.swift", 5, "hardcoded-secret", "Unsplash access key in the app"),
                .mistake("Constants/AuthConfiguration.swift", 6, "hardcoded-secret", "Unsplash OAuth client secret"),
                .mistake("0Auth2Files/OAuth2Service.swift", 103, "secret-logged", "prints the access token it got"),
                .mistake(
                    "0Auth2Files/OAuth2Service.swift", 120, "secret-logged",
                    "prints the token request, whose URL carries client_secret (built in another function)"),
                .mistake("ImageFeed/Services/ProfileService.swift", 63, "secret-logged", "prints the bearer token"),
                .mistake("ViewControllers/AuthViewController.swift", 66, "secret-logged", "prints the token"),
            ]),
        Project(
            repository: "moezakura/SecureMatrixAutoLogin", commit: "f63564713ecae0d71f8ecdf6f8b3b345bfc3ec6c",
            labels: [
                .mistake("SecureMatrixAutoLogin/Info.plist", 27, "ats-arbitrary-loads", "ATS off for every domain"),
                .mistake(
                    "SecureMatrixAutoLogin/Libs/UserData.swift", 13, "secret-in-user-defaults",
                    "the login password in UserDefaults"),
                .mistake(
                    "SecureMatrixAutoLogin/BrowserViewController.swift", 32, "cleartext-url",
                    "loads the login page, where it fills in the password, over http (loadWebView(_ urlString:))"),
                .mistake(
                    "SecureMatrixAutoLogin/SettingsViewController.swift", 39, "secret-logged",
                    "debugPrint(UserData.getPassword()) logs the password"),
            ]),
        Project(
            repository: "sevkicetiner/SwiftCryptorCommon", commit: "b7a3c341fa09bd299cab1b3030424c8f427dae11",
            labels: [
                .mistake("cryptoTest/ViewController.swift", 17, "hardcoded-crypto-key", "AES(key: \"password…\")"),
                .mistake("cryptoTest/ViewController.swift", 17, "fixed-nonce", "AES(iv: \"drowssap…\")"),
            ]),
        Project(
            repository: "ruhsane/Local-Persistence-in-iOS", commit: "ba932eeece49ef493e8ce9521920c84faf924d33",
            labels: [
                .mistake(
                    "tokenWithUserDefaults/tokenWithUserDefaults/Defaults.swift", 30, "secret-in-user-defaults",
                    "saveToken writes the token to UserDefaults"),
                .mistake(
                    "tokenWithUserDefaults/tokenWithUserDefaults/ViewController.swift", 17, "secret-logged",
                    "print(Defaults.getToken()) logs the token"),
                .mistake(
                    "tokenWithUserDefaults/tokenWithUserDefaults/ViewController.swift", 19, "secret-logged",
                    "print(Defaults.getToken()) logs the token"),
            ]),
        Project(
            repository: "Legasquare90/idealista", commit: "a0e470fa572e8f51a8120fd9cc1935e948ba68ca",
            labels: [
                .mistake(
                    "Idealista/Idealista/Source/Cross/Helpers/URLSession/SecureURLSessionDelegate.swift", 8,
                    "trust-without-evaluation", "answers every server-trust challenge with .useCredential"),
                .mistake(
                    "Idealista/Idealista/Supporting Files/Info.plist", 7, "ats-arbitrary-loads",
                    "ATS off for every domain"),
            ]),
        Project(
            repository: "telliott99/Swift-write-ups", commit: "2f5a2dee5391ba77a69c0913cb954df5983dcbda",
            labels: [
                .mistake("encryption/CC demo.playground/Contents.swift", 11, "weak-hash", "MD5 in a crypto write-up"),
                .mistake("encryption/cc.hash.swift", 13, "weak-hash", "MD5 in a crypto write-up"),
                .mistake("encryption/cc.hash.swift", 34, "weak-hash", "MD5 in a crypto write-up"),
                .mistake("encryption/cc.encrypt1.swift", 5, "hardcoded-crypto-key", "a literal AES key to CCCrypt"),
                .mistake("encryption/cc.encrypt1.swift", 17, "ecb-mode", "kCCOptionECBMode"),
                .mistake("encryption/cc.key.swift", 12, "hardcoded-crypto-key", "a literal PBKDF2 password"),
                .wrong("encryption/cc.key.swift", 19, "constant-salt", "the salt is filled by SecRandomCopyBytes"),
                .mistake(
                    "encryption/ccrypto.encrypt1.playground/Contents.swift", 5, "hardcoded-crypto-key",
                    "a literal AES key to CCCrypt"),
                .mistake("encryption/ccrypto.encrypt1.playground/Contents.swift", 15, "ecb-mode", "kCCOptionECBMode"),
                .mistake(
                    "encryption/ccrypto.encrypt2.playground/Contents.swift", 5, "hardcoded-crypto-key",
                    "a literal AES key to CCCrypt"),
                .mistake(
                    "encryption/ccrypto.encrypt3.playground/Contents.swift", 5, "hardcoded-crypto-key",
                    "a literal AES key to CCCryptorCreate"),
                .mistake(
                    "encryption/ccrypto.key.playground/Contents.swift", 9, "hardcoded-crypto-key",
                    "a literal PBKDF2 password"),
                .wrong(
                    "encryption/ccrypto.key.playground/Contents.swift", 16, "constant-salt",
                    "the salt is filled by SecRandomCopyBytes"),
            ]),
        Project(
            repository: "freedomcandy/RoyMVVM", commit: "578823039316b91070b1b27f95d6aa92b25169a6",
            labels: [
                .mistake("Category/NSString+DES.m", 15, "fixed-nonce", "static Byte iv[] = {1,2,…,8} to CCCrypt"),
                .mistake("Category/NSString+DES.m", 32, "weak-cipher", "kCCAlgorithmDES"),
                .mistake("Networks/HTTPHelper.m", 22, "cleartext-url", "the HTTP client's base URL"),
                .mistake(
                    "Define/WebConfigure.h", 12, "cleartext-url",
                    "#define IPAddress @\"http://…\", the API address every request URL starts with"),
                .wrong(
                    "Tools/UIImage-PDFColoredImage/UIImage-PDF/NSData+MD5.m", 22, "weak-hash",
                    "an MD5 helper that names cached images"),
                .wrong(
                    "Tools/UIImage-PDFColoredImage/UIImage-PDF/NSString+MD5.m", 16, "weak-hash",
                    "an MD5 helper that names cached images"),
                .wrong("Tools/Util/Util.m", 262, "weak-hash", "an md5: helper that names cache files"),
            ]),
        Project(
            repository: "geomobile-haptimap/Joined-API-iOS", commit: "35fdc031b9737a0897370f7cc2f77a4ddb53e259",
            labels: [
                .wrong(
                    "Joined-API-iOS/External/AFNetworking/AFURLConnectionOperation.m", 383,
                    "trust-without-evaluation",
                    "under #ifdef _AFNETWORKING_ALLOW_INVALID_SSL_CERTIFICATES_, which the project never defines"),
                .mistake(
                    "Joined-API-iOS/JoinedServerAPI/Config/JOConfig.h", 20, "hardcoded-credential",
                    "the Joined API key"),
                .mistake(
                    "Joined-API-iOS/JoinedServerAPI/General/JOJSONRequestOperation.m", 20, "trust-without-evaluation",
                    "useCredential: for every server trust, unevaluated"),
                .wrong(
                    "Joined-API-iOS/JoinedServerAPI/General/JONSString+easyHash.m", 18, "weak-hash",
                    "the generic -sha1 helper; the mistake is where it hashes passwords (JOClient.m)"),
                .wrong(
                    "Joined-API-iOS/JoinedServerAPI/General/JONSString+easyHash.m", 35, "weak-hash",
                    "a generic -md5 helper nothing calls"),
                .mistake(
                    "Joined-API-iOS/JoinedServerAPI/JOClient.m", 36, "weak-hash",
                    "[[password stringByAppendingString:username] sha1]: a password hashed with SHA-1"),
                .mistake(
                    "Joined-API-iOS/JoinedServerAPI/JOClient.m", 102, "weak-hash",
                    "[[password stringByAppendingString:username] sha1]: a password hashed with SHA-1"),
            ]),
        Project(
            repository: "einsteinx2/iSubMusicStreamer", commit: "31471ba04f4be03cb1f647e323633ddffb15efd0",
            labels: [
                .wrong(
                    "Classes/Extensions/Foundation/NSString/NSString+MD5.m", 20, "weak-hash",
                    "an md5 helper that names database files"),
                .mistake(
                    "Classes/Models/Loaders/SelfSignedCertURLSessionDelegate.swift", 19, "trust-without-evaluation",
                    "accepts any certificate (for self-signed servers)"),
                .mistake(
                    "Classes/Models/Singletons/SavedSettings.m", 26, "cleartext-url",
                    "the default server, which gets the password, over http"),
                .mistake(
                    "Classes/Models/Singletons/SavedSettings.m", 28, "hardcoded-credential",
                    "the demo server's password"),
                .mistake(
                    "Classes/Models/Singletons/SavedSettings.m", 280, "secret-in-user-defaults",
                    "the server password in NSUserDefaults"),
                .mistake(
                    "Classes/Models/Stream Handlers/ISMSNSURLSessionStreamHandler.m", 162, "trust-without-evaluation",
                    "NSURLSessionAuthChallengeUseCredential for any server trust"),
                .mistake(
                    "Classes/View Controllers/Settings/ServerEditViewController.swift", 276, "secret-in-user-defaults",
                    "server.password in UserDefaults"),
                .mistake(
                    "Classes/View Controllers/Settings/ServerEditViewController.swift", 309, "secret-in-user-defaults",
                    "server.password in UserDefaults"),
                .mistake(
                    "Classes/View Controllers/Settings/ServerListViewController.m", 187, "secret-in-user-defaults",
                    "serverToEdit.password in NSUserDefaults"),
                .mistake("Other/iSub-Info.plist", 48, "ats-arbitrary-loads", "ATS off for every domain"),
            ]),
        Project(
            repository: "hero1796/VuHung-ios3-assignment", commit: "e49a970a7dc692a6dce513cd860d0b7f707ed5fa",
            labels: [
                .wrong(
                    "Assignment11 (Slot15)/11_2/SDImageCache.m", 183, "weak-hash",
                    "MD5 names cache files (cachedFileNameForKey:)"),
                .wrong(
                    "Assignment11 (Slot15)/11_2/SDWebImageDownloaderOperation.m", 450, "trust-without-evaluation",
                    "runs only with the SDWebImageDownloaderAllowInvalidSSLCertificates option, which nothing sets"),
                .mistake(
                    "Assignment11 (Slot15)/11_2/Slot15/APIClient.m", 17, "cleartext-url", "the API client's base URL"),
                .mistake("Assignment11 (Slot15)/11_2/Slot15/Info.plist", 25, "ats-arbitrary-loads", "ATS off"),
                .mistake(
                    "Assignment9/9_2/9_2/ViewController.m", 30, "secret-logged",
                    "NSLog of [defaults objectForKey:@\"password\"]"),
                .mistake(
                    "Assignment9/9_2/9_2/ViewController.m", 35, "secret-in-user-defaults",
                    "the password field's text in NSUserDefaults"),
                .mistake("Lab7/Lab7/Info.plist", 29, "ats-arbitrary-loads", "ATS off"),
                .mistake("Lab7/Lab7/ViewController3.m", 21, "cleartext-url", "requestWithURL: of an http URL"),
            ]),
        Project(
            repository: "soheltanvir0699/Makkahbag-ios", commit: "46c159516e252cddf4f49263a277c59c6690f927",
            labels: [
                .mistake("MakkahBag/ApiClient.swift", 37, "trust-without-evaluation", ".useCredential, unevaluated"),
                .mistake("MakkahBag/AppDelegate.swift", 29, "hardcoded-secret", "the Twitter consumer secret"),
                .mistake(
                    "MakkahBag/Constant.swift", 74, "secret-in-user-defaults", "the access token in UserDefaults"),
                .wrong("MakkahBag/Constant.swift", 120, "hardcoded-credential", "the message \"Invalid Password\""),
                .wrong(
                    "MakkahBag/Constant.swift", 129, "hardcoded-credential", "the message \"New password is missing\""),
                .mistake(
                    "MakkahBag/Controller/CheckOut/ReviewAndPayController.swift", 355, "hardcoded-secret",
                    "the PayTabs merchant secret key"),
                .mistake(
                    "MakkahBag/Controller/CheckOut/ReviewAndPayController.swift", 380, "secret-logged",
                    "prints the tokenized customer password"),
                .mistake(
                    "MakkahBag/Controller/CheckOut/ReviewAndPayController.swift", 381, "secret-logged",
                    "prints the payment token"),
                .mistake(
                    "MakkahBag/Controller/CheckOut/ReviewAndPayController.swift", 549, "secret-logged",
                    "prints the Apple Pay payment token"),
                .mistake(
                    "MakkahBag/Controller/Home/HomeController.swift", 351, "trust-without-evaluation",
                    ".useCredential, unevaluated"),
                .mistake(
                    "MakkahBag/Controller/MyAccount/SignIn/LinkdinModel.swift", 14, "hardcoded-secret",
                    "the LinkedIn client secret"),
                .mistake(
                    "MakkahBag/Controller/MyAccount/SignIn/SignInController.swift", 130, "secret-logged",
                    "prints the Twitter authTokenSecret"),
                .mistake(
                    "MakkahBag/Controller/MyAccount/SignIn/SignInController.swift", 185, "secret-logged",
                    "prints the access token"),
                .mistake(
                    "MakkahBag/Controller/MyAccount/SignIn/SignInController.swift", 283, "secret-logged",
                    "prints the access token"),
                .mistake(
                    "MakkahBag/Controller/MyAccount/SignIn/SignInController.swift", 372, "secret-logged",
                    "prints the access token"),
                .mistake(
                    "MakkahBag/Controller/MyAccount/SignIn/SignInController.swift", 493, "secret-logged",
                    "prints the access token"),
                .mistake(
                    "MakkahBag/Controller/MyAccount/SignIn/SignInController.swift", 513, "secret-logged",
                    "prints the LinkedIn access token"),
                .mistake(
                    "MakkahBag/Controller/MyAccount/SignUpController.swift", 301, "trust-without-evaluation",
                    ".useCredential, unevaluated"),
                .mistake(
                    "MakkahBag/Controller/MyAccount/SignUpController.swift", 371, "secret-logged",
                    "prints the access token"),
                .mistake(
                    "MakkahBag/Info.plist", 72, "ats-arbitrary-loads-web-content", "web views may load plain HTTP"),
                .mistake(
                    "MakkahBag/Info.plist", 89, "ats-insecure-http-exception",
                    "ttt.makkahbag.com and subdomains over plain HTTP"),
                .mistake(
                    "MakkahBag/URLSessionDelegate.swift", 21, "trust-without-evaluation", ".useCredential, unevaluated"),
            ]),
    ]

    /// Counts for one rule.
    struct Score {
        var truePositives = 0
        var falsePositives = 0
        var misses = 0
        var unlabelled: [String] = []
    }

    /// Audits every project found and prints recall and precision per rule, with the misses and unlabelled findings,
    /// and how long the audits took.
    static func run() {
        let root = ProcessInfo.processInfo.environment["RAMPART_AUDIT_CORPUS"] ?? "/work/.mirror"
        let cache = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".build/audit-corpus")
        var scores: [String: Score] = [:]
        var audited = 0
        var files = 0
        var lines = 0
        var seconds = 0.0
        for project in projects {
            let mirrorName = project.repository.replacingOccurrences(of: "/", with: "+")
            let folder = cache.appendingPathComponent("\(mirrorName)@\(project.commit.prefix(12))")
            if !FileManager.default.fileExists(atPath: folder.path) {
                // A fetched snapshot is a bare repository (`repo`) or a clone with a work tree (`repo/.git`).
                let candidates = ["\(root)/\(mirrorName)/repo/.git", "\(root)/\(mirrorName)/repo"]
                guard
                    let gitDirectory = candidates.first(where: { FileManager.default.fileExists(atPath: "\($0)/HEAD") })
                else {
                    print(
                        "  corpus: skipped \(project.repository): no git mirror at \(candidates[1]); fetch it, or set RAMPART_AUDIT_CORPUS"
                    )
                    continue
                }
                guard extract(gitDirectory, project.commit, folder) else {
                    print(
                        "  corpus: skipped \(project.repository): commit \(project.commit.prefix(12)) could not be read from \(gitDirectory)"
                    )
                    continue
                }
            }
            let start = DispatchTime.now().uptimeNanoseconds
            guard let report = try? Auditor().audit(path: folder.path) else {
                print("  corpus: \(project.repository) could not be audited")
                continue
            }
            seconds += Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            audited += 1
            files += report.filesAudited
            lines += report.swiftLines + report.objectiveCLines
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
        let mistakes = projects.reduce(0) { $0 + $1.labels.count(where: { $0.isTrue }) }
        print("  corpus: \(audited) of \(projects.count) projects audited (\(mistakes) true mistakes labelled in all)")
        print(
            String(
                format: "  corpus audit: %d files, %d source lines in %.2f s (%.0f files/s, %.3f s per project)", files,
                lines, seconds, Double(files) / max(seconds, 1e-9), seconds / Double(max(audited, 1))))
        print("  rule                             TP  FP  FN  recall  precision")
        var total = Score()
        for (rule, score) in scores.sorted(by: { $0.key < $1.key }) {
            printRow(rule, score)
            total.truePositives += score.truePositives
            total.falsePositives += score.falsePositives
            total.misses += score.misses
            for finding in score.unlabelled { print("    unlabelled: \(finding)") }
        }
        printRow("all rules", total)
    }

    static func printRow(_ rule: String, _ score: Score) {
        let found = score.truePositives + score.misses
        let reported = score.truePositives + score.falsePositives
        let recall =
            found == 0 ? "     -" : String(format: "%5.0f%%", 100 * Double(score.truePositives) / Double(found))
        let precision =
            reported == 0
            ? "        -" : String(format: "%8.0f%%", 100 * Double(score.truePositives) / Double(reported))
        let name = rule.padding(toLength: 31, withPad: " ", startingAt: 0)
        print(
            "  \(name) \(String(format: "%3d %3d %3d", score.truePositives, score.falsePositives, score.misses))  "
                + "\(recall)  \(precision)")
    }

    /// The kinds of file `rampart audit` reads (and Xcode projects, for their entitlements setting).
    static let extractedExtensions: Set<String> = [
        "swift", "m", "mm", "h", "c", "cpp", "plist", "entitlements", "pbxproj",
    ]

    /// Writes the files of `commit` that `rampart audit` reads into `folder`, from the git directory `gitDirectory`
    /// (`git ls-tree`, then one `git cat-file --batch` for their contents). A snapshot lacks large blobs, so a blob
    /// that is absent is left out rather than failing the project.
    static func extract(_ gitDirectory: String, _ commit: String, _ folder: URL) -> Bool {
        guard let listing = git(gitDirectory, ["ls-tree", "-r", "-z", "--full-tree", commit]) else { return false }
        var wanted: [(path: String, object: String)] = []
        for entry in listing.split(separator: 0) {
            guard let tab = entry.firstIndex(of: 9) else { continue }
            let fields = entry[..<tab].split(separator: 32).map { String(decoding: $0, as: UTF8.self) }
            let path = String(decoding: entry[(tab + 1)...], as: UTF8.self)
            let components = path.split(separator: "/").map(String.init)
            guard fields.count == 3, fields[1] == "blob",
                extractedExtensions.contains((path as NSString).pathExtension.lowercased()),
                !components.contains(where: { Auditor.skippedFolders.contains($0) })
            else { continue }
            wanted.append((path, fields[2]))
        }
        let request = wanted.map { "\($0.object)\n" }.joined()
        guard let contents = git(gitDirectory, ["cat-file", "--batch"], input: Array(request.utf8)) else {
            return false
        }
        let staging = folder.deletingLastPathComponent().appendingPathComponent(".\(folder.lastPathComponent).partial")
        try? FileManager.default.removeItem(at: staging)
        var offset = 0
        for file in wanted {
            // Each answer is "<object> blob <size>\n<bytes>\n", or "<object> missing\n".
            guard let newline = contents[offset...].firstIndex(of: 10) else { return false }
            let header = String(decoding: contents[offset..<newline], as: UTF8.self).split(separator: " ")
            offset = newline + 1
            guard header.count == 3, let size = Int(header[2]), offset + size <= contents.count else { continue }
            let target = staging.appendingPathComponent(file.path)
            do {
                try FileManager.default.createDirectory(
                    at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(contents[offset..<(offset + size)]).write(to: target)
            } catch {
                return false
            }
            offset += size + 1
        }
        try? FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)
        return (try? FileManager.default.moveItem(at: staging, to: folder)) != nil
    }

    /// Runs `git --git-dir=DIR ARGS`, feeding `input`, and returns its output, or nil if it failed.
    static func git(_ gitDirectory: String, _ arguments: [String], input: [UInt8] = []) -> [UInt8]? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["git", "--git-dir=\(gitDirectory)"] + arguments
        let requestFile = FileManager.default.temporaryDirectory.appendingPathComponent("rampart-corpus-\(UUID())")
        defer { try? FileManager.default.removeItem(at: requestFile) }
        guard (try? Data(input).write(to: requestFile)) != nil,
            let reader = try? FileHandle(forReadingFrom: requestFile)
        else { return nil }
        let output = Pipe()
        process.standardInput = reader
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return process.terminationStatus == 0 ? [UInt8](data) : nil
    }
}
