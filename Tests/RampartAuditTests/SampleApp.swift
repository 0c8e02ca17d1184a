import Foundation
import RampartAudit

/// A generated iOS project containing every mistake `rampart audit` knows (each once), or its fixed version.
enum SampleApp {
    /// The rule of each mistake the unfixed app contains: every rule once, and weak-hash twice (MD5 and SHA-1).
    static let mistakes: [String] = (AuditRule.all.map(\.id) + ["weak-hash"]).sorted()

    /// Writes the project under `folder`.
    static func write(to folder: URL, fixed: Bool) throws {
        func file(_ path: String, _ text: String) throws {
            let url = folder.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        func plist(_ body: String) -> String {
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
            \(body)
            </dict>
            </plist>
            """
        }
        let pin =
            "<dict><key>SPKI-SHA256-BASE64</key><string>pp4VdWQrgevoXUACSVa4knJiHdYwB2MZKVt8eW+YA2U=</string></dict>"
        let backup =
            "<dict><key>SPKI-SHA256-BASE64</key><string>NmsyPoJh8zpF85Ay1LUDC6ajCBg/LutawWt0TSIXF/8=</string></dict>"
        try file(
            "Points/Info.plist",
            plist(
                """
                <key>CFBundleIdentifier</key><string>com.example.points</string>
                <key>NSAppTransportSecurity</key>
                <dict>
                    <key>NSAllowsArbitraryLoads</key>\(fixed ? "<false/>" : "<true/>")
                    <key>NSExceptionDomains</key>
                    <dict>
                        <key>legacy.example.com</key>
                        <dict>
                            <key>NSExceptionAllowsInsecureHTTPLoads</key>\(fixed ? "<false/>" : "<true/>")
                            <key>NSExceptionMinimumTLSVersion</key><string>\(fixed ? "TLSv1.2" : "TLSv1.0")</string>
                            <key>NSExceptionRequiresForwardSecrecy</key><false/>
                        </dict>
                    </dict>
                    <key>NSPinnedDomains</key>
                    <dict>
                        <key>api.example.com</key>
                        <dict><key>NSPinnedCAIdentities</key><array>\(pin)\(fixed ? backup : "")</array></dict>
                    </dict>
                </dict>
                """))
        try file(
            "PointsWidget/Info.plist",
            plist(
                """
                <key>NSAppTransportSecurity</key>
                <dict>
                    <key>NSAllowsArbitraryLoadsInWebContent</key>\(fixed ? "<false/>" : "<true/>")
                    <key>NSAllowsArbitraryLoadsForMedia</key>\(fixed ? "<false/>" : "<true/>")
                </dict>
                """))
        try file(
            "Points/Points.entitlements",
            plist(
                """
                <key>com.apple.developer.devicecheck.appattest-environment</key>
                <string>\(fixed ? "production" : "development")</string>
                <key>keychain-access-groups</key>
                <array><string>\(fixed ? "$(AppIdentifierPrefix)" : "")com.example.points</string></array>
                """))
        try file(
            "Points/Points-Debug.entitlements",
            plist(
                "<key>com.apple.developer.devicecheck.appattest-environment</key><string>development</string>"))
        try file(
            "Points/Sources/Session.swift",
            """
            import Foundation
            import os

            let logger = Logger(subsystem: "com.example.points", category: "session")

            /// Keeps the session.
            struct Session {
                static let apiKey = \(fixed ? "ProcessInfo.processInfo.environment[\"POINTS_KEY\"] ?? \"\"" : "\"pk_live_9Hq2LxW7vTz4RbN8cKd3MfYs\"")

                func save(token: String) {
                    \(fixed ? "try? keychain.set(token, account: \"session\")" : "UserDefaults.standard.set(token, forKey: \"session\")")
                    UserDefaults.standard.set(true, forKey: "hasSignedIn")
                    \(fixed ? "logger.info(\"saved \\(token, privacy: .private)\")" : "logger.info(\"saved \\(token)\")")
                    #if DEBUG
                    print("token: \\(token)")
                    #endif
                }

                func store(_ secret: Data) {
                    let query: [String: Any] = [
                        kSecAttrAccessible as String: \(fixed ? "kSecAttrAccessibleWhenUnlockedThisDeviceOnly" : "kSecAttrAccessibleAlways"),
                    ]
                    _ = query
                }

                static let demoPassword = \(fixed ? "ProcessInfo.processInfo.environment[\"DEMO_PASSWORD\"] ?? \"\"" : "\"b@nk2024\"")

                func export(token: String, to url: URL) throws {
                    \(fixed ? "try Data(token.utf8).write(to: url, options: .completeFileProtection)" : "try token.write(to: url, atomically: true, encoding: .utf8)")
                }
            }
            """)
        try file(
            "Points/Sources/Crypto.swift",
            """
            import CommonCrypto
            import CryptoKit
            import Foundation

            // Insecure.MD5 and CC_SHA1 were used here once; "kCCOptionECBMode" too.
            enum Crypto {
                static func fingerprint(_ data: Data) -> String {
                    \(fixed ? "SHA256" : "Insecure.MD5").hash(data: data).description
                }

                static func legacyDigest(_ bytes: [UInt8]) -> [UInt8] {
                    var digest = [UInt8](repeating: 0, count: 32)
                    \(fixed ? "CC_SHA256" : "CC_SHA1")(bytes, CC_LONG(bytes.count), &digest)
                    return digest
                }

                static func legacyEncrypt(_ input: [UInt8], key: [UInt8]) {
                    let algorithm = CCAlgorithm(\(fixed ? "kCCAlgorithmAES" : "kCCAlgorithm3DES"))
                    let options = CCOptions(\(fixed ? "kCCOptionPKCS7Padding" : "kCCOptionECBMode"))
                    \(fixed ? "var iv = [UInt8](repeating: 0, count: 16)\n        _ = SecRandomCopyBytes(kSecRandomDefault, iv.count, &iv)" : "let iv: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]")
                    _ = (algorithm, options, iv)
                }

                static func seal(_ a: Data, _ b: Data, key: SymmetricKey) throws -> [AES.GCM.SealedBox] {
                    // A fresh random nonce per message (the reused-nonce case is in SourceRuleTests).
                    let first = try AES.GCM.seal(a, using: key)
                    let second = try AES.GCM.seal(b, using: key)
                    return [first, second]
                }

                static func deriveKey(password: [Int8]) -> [UInt8] {
                    \(fixed ? "var salt = [UInt8](repeating: 0, count: 16)\n        _ = SecRandomCopyBytes(kSecRandomDefault, salt.count, &salt)" : "let salt: [UInt8] = [0x52, 0x61, 0x6d, 0x70, 0x61, 0x72, 0x74, 0x21]")
                    var key = [UInt8](repeating: 0, count: 32)
                    CCKeyDerivationPBKDF(
                        CCPBKDFAlgorithm(kCCPBKDF2), password, password.count, salt, salt.count,
                        CCPseudoRandomAlgorithm(kCCPRFHmacAlgSHA256), \(fixed ? "600_000" : "10_000"), &key, key.count)
                    return key
                }

                static func randomID() -> String {
                    var bytes = [UInt8](repeating: 0, count: 16)
                    _ = SecRandomCopyBytes(kSecRandomDefault, bytes.count, &bytes)
                    var generator = SystemRandomNumberGenerator()
                    return "\\(UUID()) \\(arc4random_uniform(9)) \\(generator.next())"
                }
            }
            """)
        try file(
            "Points/Sources/Network.swift",
            """
            import Foundation

            let baseURL = URL(string: "\(fixed ? "https" : "http")://api.example.com")
            let devURL = URL(string: "http://localhost:8080")

            final class Delegate: NSObject, URLSessionDelegate {
                func urlSession(
                    _ session: URLSession, didReceive challenge: URLAuthenticationChallenge,
                    completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
                ) {
                    guard let trust = challenge.protectionSpace.serverTrust\(fixed ? ", SecTrustEvaluateWithError(trust, nil)" : "") else {
                        return completionHandler(.cancelAuthenticationChallenge, nil)
                    }
                    completionHandler(.useCredential, URLCredential(trust: trust))
                }
            }

            func load(_ request: URLRequest, pinnedSession: URLSession) async throws -> Data {
                do {
                    return try await pinnedSession.data(for: request).0
                } catch {
                    \(fixed ? "throw error" : "return try await URLSession.shared.data(for: request).0")
                }
            }
            """)
        try file(
            "Points/Legacy/LegacyVault.m",
            """
            #import <CommonCrypto/CommonCrypto.h>
            #import "LegacyVault.h"

            @implementation LegacyVault

            + (NSData *)seal:(NSData *)data {
                \(fixed ? "NSData *key = [LegacyKeychain keyNamed:@\"legacy\"];" : "NSString *key = @\"Rampart-Legacy-1\";")
                uint8_t iv[kCCBlockSizeAES128];
                SecRandomCopyBytes(kSecRandomDefault, sizeof(iv), iv);
                NSMutableData *sealed = [NSMutableData dataWithLength:data.length + kCCBlockSizeAES128];
                size_t moved = 0;
                CCCryptorStatus status = CCCrypt(kCCEncrypt, kCCAlgorithmAES, kCCOptionPKCS7Padding,
                                                 \(fixed ? "key.bytes" : "[key UTF8String]"), kCCKeySizeAES128, iv, data.bytes, data.length,
                                                 sealed.mutableBytes, sealed.length, &moved);
                #ifdef DEBUG
                NSLog(@"sealed with key %@", key);
                #endif
                return status == kCCSuccess ? sealed : nil;
            }

            @end
            """)
        // Third-party and build folders are skipped: their mistakes are not the project's.
        try file("Pods/Vendor/Vendor.swift", "let digest = Insecure.MD5.hash(data: data)")
        try file(".build/checkouts/Dep/Dep.swift", "let digest = Insecure.SHA1.hash(data: data)")
        try file(
            "DerivedData/Info.plist",
            plist("<key>NSAppTransportSecurity</key><dict><key>NSAllowsArbitraryLoads</key><true/></dict>"))
    }
}
