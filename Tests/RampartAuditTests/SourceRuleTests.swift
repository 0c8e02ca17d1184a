import RampartAudit
import Testing

/// One source rule's fixture: code that must trigger the rule exactly once, and a near miss that must not.
struct SourceFixture: CustomTestStringConvertible, Sendable {
    let rule: String
    let name: String
    let failing: String
    let nearMiss: String

    var testDescription: String { "\(rule): \(name)" }
}

/// Every source rule fires on its mistake, once, and stays quiet on the near miss.
struct SourceRuleTests {
    static func findings(_ source: String) -> [AuditFinding] {
        Auditor().findings(inSwiftSource: source, file: "App.swift")
    }

    static let fixtures: [SourceFixture] = [
        SourceFixture(
            rule: "weak-hash", name: "Insecure.MD5",
            failing: "let digest = Insecure.MD5.hash(data: data)",
            nearMiss: """
                // Insecure.MD5 is broken, so:
                let label = "Insecure.MD5"
                let digest = SHA256.hash(data: data)
                """),
        SourceFixture(
            rule: "weak-hash", name: "Insecure.SHA1",
            failing: "let digest = Insecure.SHA1.hash(data: data)",
            nearMiss: "let digest = SHA512.hash(data: data) /* Insecure.SHA1.hash(data: data) */"),
        SourceFixture(
            rule: "weak-hash", name: "CC_MD5",
            failing: "CC_MD5(bytes, CC_LONG(count), &digest)",
            nearMiss: "CC_SHA256(bytes, CC_LONG(count), &digest)"),
        SourceFixture(
            rule: "weak-hash", name: "CC_SHA1",
            failing: "CC_SHA1(bytes, CC_LONG(count), &digest)",
            nearMiss: "let length = CC_SHA256_DIGEST_LENGTH"),
        SourceFixture(
            rule: "weak-cipher", name: "3DES",
            failing:
                "CCCrypt(op, CCAlgorithm(kCCAlgorithm3DES), options, key, keyLength, iv, input, count, out, size, &moved)",
            nearMiss:
                "CCCrypt(op, CCAlgorithm(kCCAlgorithmAES), options, key, keyLength, iv, input, count, out, size, &moved)"
        ),
        SourceFixture(
            rule: "weak-cipher", name: "DES",
            failing: "let algorithm = CCAlgorithm(kCCAlgorithmDES)",
            nearMiss: "let name = \"kCCAlgorithmDES\""),
        SourceFixture(
            rule: "ecb-mode", name: "kCCOptionECBMode",
            failing: "let options = CCOptions(kCCOptionECBMode | kCCOptionPKCS7Padding)",
            nearMiss: "let options = CCOptions(kCCOptionPKCS7Padding) // not kCCOptionECBMode"),
        SourceFixture(
            rule: "keychain-accessible-always", name: "kSecAttrAccessibleAlways",
            failing: "query[kSecAttrAccessible] = kSecAttrAccessibleAlwaysThisDeviceOnly",
            nearMiss: "query[kSecAttrAccessible] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly"),
        SourceFixture(
            rule: "cleartext-url", name: "http:// host",
            failing: #"let url = URL(string: "http://api.example.com/v1")"#,
            nearMiss: """
                let local = URL(string: "http://localhost:8080/v1")
                let loopback = URL(string: "http://127.0.0.1:8080")
                let secure = URL(string: "https://api.example.com/v1")
                // was http://api.example.com/v1
                """),
        SourceFixture(
            rule: "cleartext-url", name: "http:// with an interpolated host",
            failing: #"let url = URL(string: "http://\(host)/v1")"#,
            nearMiss: #"let url = URL(string: "https://\(host)/v1?next=http")"#),
        SourceFixture(
            rule: "hardcoded-secret", name: "let apiKey",
            failing: #"let apiKey = "sk_live_4eC39HqLyjWDarjtT1zdp7dc""#,
            nearMiss: """
                // let apiKey = "sk_live_4eC39HqLyjWDarjtT1zdp7dc"
                let apiKeyHeader = "X-Api-Key-Header-Name"
                let apiKey = ProcessInfo.processInfo.environment["API_KEY"]
                let password = "YOUR_PASSWORD_HERE_1234"
                let sample = "let token = \\"sk_live_4eC39HqLyjWDarjtT1zdp7dc\\""
                """),
        SourceFixture(
            rule: "hardcoded-secret", name: "a secret-named argument",
            failing: #"let client = Client(clientSecret: "9f8A7b6C5d4E3f2A1b0C9d8E")"#,
            nearMiss: #"let client = Client(clientName: "9f8A7b6C5d4E3f2A1b0C9d8E")"#),
        SourceFixture(
            rule: "secret-in-user-defaults", name: "a parameter named token",
            failing: """
                func save(token: String) {
                    UserDefaults.standard.set(token, forKey: "session")
                }
                """,
            nearMiss: """
                func save(flag: Bool) {
                    UserDefaults.standard.set(flag, forKey: "hasSeenOnboarding")
                    UserDefaults.standard.set(tokenExpiry, forKey: "expiry")
                }
                """),
        SourceFixture(
            rule: "secret-in-user-defaults", name: "a value that came from a password",
            failing: """
                let value = credentials.password
                defaults.set(value, forKey: "v")
                """,
            nearMiss: """
                let value = credentials.userName
                defaults.set(value, forKey: "v")
                """),
        SourceFixture(
            rule: "secret-in-user-defaults", name: "a parameter whose label is token",
            failing: """
                func save(token value: String) {
                    defaults.set(value, forKey: "v")
                }
                """,
            nearMiss: """
                func save(name value: String) {
                    defaults.set(value, forKey: "v")
                }
                """),
        SourceFixture(
            rule: "secret-in-user-defaults", name: "an app-group suite",
            failing: #"UserDefaults(suiteName: "group.com.example")?.set(session.accessToken, forKey: "a")"#,
            nearMiss: #"UserDefaults(suiteName: "group.com.example")?.set(session.displayName, forKey: "a")"#),
        SourceFixture(
            rule: "secret-in-user-defaults", name: "a key named like a secret",
            failing: #"UserDefaults.standard.set(response.value, forKey: "authToken")"#,
            nearMiss: #"UserDefaults.standard.set(response.value, forKey: "theme")"#),
        SourceFixture(
            rule: "secret-logged", name: "print of a token",
            failing: #"print("signed in with \(token)")"#,
            nearMiss: """
                #if DEBUG
                print("signed in with \\(token)")
                #endif
                print("token has \\(token.count) characters")
                print("token refreshed")
                """),
        SourceFixture(
            rule: "secret-logged", name: "Logger without privacy",
            failing: #"logger.info("password \(user.password)")"#,
            nearMiss: #"logger.info("password \(user.password, privacy: .private)")"#),
        SourceFixture(
            rule: "secret-logged", name: "a Logger extension and Logger()",
            failing: #"Logger.network.error("refresh failed for \(refreshToken)")"#,
            nearMiss: #"Logger().error("refresh failed after \(attempts) attempts")"#),
        SourceFixture(
            rule: "secret-logged", name: "NSLog",
            failing: #"NSLog("%@", accessToken)"#,
            nearMiss: #"os_log("%{private}@", accessToken)"#),
        SourceFixture(
            rule: "pbkdf2-rounds", name: "CommonCrypto",
            failing: """
                CCKeyDerivationPBKDF(CCPBKDFAlgorithm(kCCPBKDF2), password, passwordLength, salt, saltLength,
                                     CCPseudoRandomAlgorithm(kCCPRFHmacAlgSHA256), 10000, &key, keyLength)
                """,
            nearMiss: """
                CCKeyDerivationPBKDF(CCPBKDFAlgorithm(kCCPBKDF2), password, passwordLength, salt, saltLength,
                                     CCPseudoRandomAlgorithm(kCCPRFHmacAlgSHA256), 600_000, &key, keyLength)
                """),
        SourceFixture(
            rule: "pbkdf2-rounds", name: "CryptoSwift",
            failing: "let key = try PKCS5.PBKDF2(password: p, salt: s, iterations: 4096, keyLength: 32).calculate()",
            nearMiss: """
                let rounds = 650_000
                let key = try PKCS5.PBKDF2(password: p, salt: s, iterations: rounds, keyLength: 32).calculate()
                """),
        SourceFixture(
            rule: "fixed-nonce", name: "a nonce from literal bytes",
            failing:
                "let box = try AES.GCM.seal(data, using: key, nonce: AES.GCM.Nonce(data: Data(repeating: 0, count: 12)))",
            nearMiss: "let box = try AES.GCM.seal(data, using: key)"),
        SourceFixture(
            rule: "fixed-nonce", name: "a fixed CBC IV",
            failing: "let iv: [UInt8] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]",
            nearMiss: """
                var iv = [UInt8](repeating: 0, count: 16)
                _ = SecRandomCopyBytes(kSecRandomDefault, iv.count, &iv)
                """),
        SourceFixture(
            rule: "fixed-nonce", name: "a reused nonce",
            failing: """
                let nonce = AES.GCM.Nonce()
                let first = try AES.GCM.seal(a, using: key, nonce: nonce)
                let second = try AES.GCM.seal(b, using: key, nonce: nonce)
                """,
            nearMiss: """
                let first = try AES.GCM.seal(a, using: key, nonce: AES.GCM.Nonce())
                let second = try AES.GCM.seal(b, using: key, nonce: AES.GCM.Nonce())
                """),
        SourceFixture(
            rule: "trust-without-evaluation", name: "useCredential without evaluation",
            failing: """
                func urlSession(_ session: URLSession, didReceive challenge: URLAuthenticationChallenge,
                                completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
                    guard let trust = challenge.protectionSpace.serverTrust else {
                        return completionHandler(.performDefaultHandling, nil)
                    }
                    completionHandler(.useCredential, URLCredential(trust: trust))
                }
                """,
            nearMiss: """
                func urlSession(_ session: URLSession, didReceive challenge: URLAuthenticationChallenge,
                                completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
                    guard let trust = challenge.protectionSpace.serverTrust, SecTrustEvaluateWithError(trust, nil) else {
                        return completionHandler(.cancelAuthenticationChallenge, nil)
                    }
                    completionHandler(.useCredential, URLCredential(trust: trust))
                }
                """),
        SourceFixture(
            rule: "pinning-fallback", name: "retry on URLSession.shared",
            failing: """
                func load(_ request: URLRequest) async throws -> Data {
                    do {
                        return try await pinnedSession.data(for: request).0
                    } catch {
                        return try await URLSession.shared.data(for: request).0
                    }
                }
                """,
            nearMiss: """
                func load(_ request: URLRequest) async throws -> Data {
                    do {
                        return try await pinnedSession.data(for: request).0
                    } catch {
                        reporter.report(error)
                        throw error
                    }
                }
                """),
        SourceFixture(
            rule: "pinning-fallback", name: "default handling when the pins do not match",
            failing: """
                func handle(_ challenge: URLAuthenticationChallenge, trust: SecTrust) -> URLSession.AuthChallengeDisposition {
                    if SecTrustEvaluateWithError(trust, nil), pinsMatch(trust) {
                        return .useCredential
                    } else {
                        return .performDefaultHandling
                    }
                }
                """,
            nearMiss: """
                func handle(_ challenge: URLAuthenticationChallenge, trust: SecTrust) -> URLSession.AuthChallengeDisposition {
                    if SecTrustEvaluateWithError(trust, nil), pinsMatch(trust) {
                        return .useCredential
                    } else {
                        return .cancelAuthenticationChallenge
                    }
                }
                """),
        // Issue 28: names, labels and flows within a file.
        SourceFixture(
            rule: "keychain-accessible-always", name: "stored, not migrated away from",
            failing: "KeychainHelper.set(data, forKey: key, accessible: kSecAttrAccessibleAlways)",
            nearMiss: """
                let kSecAttrAccessibleAlways = "dk"
                if KeychainHelper.get(forKey: key, accessible: kSecAttrAccessibleAlways) != nil {
                    KeychainHelper.remove(forKey: key, accessible: kSecAttrAccessibleAlways)
                }
                SecItemDelete([kSecAttrAccessible: kSecAttrAccessibleAlwaysThisDeviceOnly] as CFDictionary)
                """),
        SourceFixture(
            rule: "hardcoded-credential", name: "a low-entropy password in a local",
            failing: #"let password = "b@nk2024!""#,
            nearMiss: """
                let password = ProcessInfo.processInfo.environment["BANK_PASSWORD"] ?? ""
                static let password = "password"
                let passwordPrompt = "Enter your password"
                let accessToken = "access_token"
                """),
        SourceFixture(
            rule: "hardcoded-credential", name: "a property named like an encryption key",
            failing: #"var encryptionKey = "my secret key""#,
            nearMiss: #"var encryptionKeyLength = "32""#),
        SourceFixture(
            rule: "hardcoded-credential", name: "an API key given to a secret-named label",
            failing: #"Flurry.startSession(apiKey: "FLURRY1234")"#,
            nearMiss: #"Flurry.startSession(apiKey: Secrets.flurryKey)"#),
        SourceFixture(
            rule: "hardcoded-credential", name: "a literal that reaches a password: label through a local",
            failing: """
                let pass = "hunter22"
                client.login(user: name, password: pass)
                """,
            nearMiss: """
                let pass = try keychain.password(for: name)
                client.login(user: name, password: pass)
                """),
        SourceFixture(
            rule: "hardcoded-crypto-key", name: "a literal key through .data(using:) to keyData:",
            failing: """
                let key = "0123456789abcdef"
                let cipher = aes(keyData: key.data(using: .utf8)!)
                """,
            nearMiss: """
                let key = try keychain.data(for: "aes")
                let cipher = aes(keyData: key)
                """),
        SourceFixture(
            rule: "hardcoded-crypto-key", name: "a literal key through a local into CCCrypt",
            failing: """
                let key = "0123456789abcdef"
                let status = CCCrypt(CCOperation(kCCEncrypt), CCAlgorithm(kCCAlgorithmAES), CCOptions(kCCOptionPKCS7Padding),
                                     key, kCCKeySizeAES128, iv, input, input.count, &output, output.count, &moved)
                """,
            nearMiss: """
                let key = try keychain.data(for: "aes")
                let status = CCCrypt(CCOperation(kCCEncrypt), CCAlgorithm(kCCAlgorithmAES), CCOptions(kCCOptionPKCS7Padding),
                                     key, kCCKeySizeAES128, iv, input, input.count, &output, output.count, &moved)
                """),
        SourceFixture(
            rule: "hardcoded-crypto-key", name: "RNCryptor's password",
            failing:
                #"let sealed = RNEncryptor.encryptData(data, with: kRNCryptorAES256Settings, password: "@dal1234", error: &error)"#,
            nearMiss:
                #"let sealed = RNEncryptor.encryptData(data, with: kRNCryptorAES256Settings, password: userPassword, error: &error)"#
        ),
        SourceFixture(
            rule: "hardcoded-crypto-key", name: "a CryptoKit key from literal bytes",
            failing: #"let key = SymmetricKey(data: Data("0123456789abcdef0123456789abcdef".utf8))"#,
            nearMiss: "let key = SymmetricKey(size: .bits256)"),
        SourceFixture(
            rule: "hardcoded-crypto-key", name: "CryptoSwift's AES key",
            failing:
                #"let aes = try AES(key: "passwordpassword".bytes, blockMode: CBC(iv: AES.randomIV(AES.blockSize)), padding: .pkcs7)"#,
            nearMiss:
                "let aes = try AES(key: keyBytes, blockMode: CBC(iv: AES.randomIV(AES.blockSize)), padding: .pkcs7)"),
        SourceFixture(
            rule: "fixed-nonce", name: "an IV as a default parameter value flowing into CCCrypt",
            failing: """
                func encrypt(_ data: Data, key: Data, ivData: Data = "abcdefghijklmnop".data(using: .utf8)!) -> Data {
                    var out = Data(count: data.count + kCCBlockSizeAES128)
                    var moved = 0
                    _ = ivData.withUnsafeBytes { ivBytes in
                        CCCrypt(CCOperation(kCCEncrypt), CCAlgorithm(kCCAlgorithmAES), CCOptions(kCCOptionPKCS7Padding),
                                key.bytes, key.count, ivBytes.baseAddress, data.bytes, data.count, out.mutableBytes, out.count, &moved)
                    }
                    return out
                }
                """,
            nearMiss: """
                func encrypt(_ data: Data, key: Data) -> Data {
                    var out = Data(count: data.count + kCCBlockSizeAES128)
                    var moved = 0
                    var ivData = Data(count: kCCBlockSizeAES128)
                    _ = ivData.withUnsafeMutableBytes { SecRandomCopyBytes(kSecRandomDefault, kCCBlockSizeAES128, $0.baseAddress!) }
                    _ = ivData.withUnsafeBytes { ivBytes in
                        CCCrypt(CCOperation(kCCEncrypt), CCAlgorithm(kCCAlgorithmAES), CCOptions(kCCOptionPKCS7Padding),
                                key.bytes, key.count, ivBytes.baseAddress, data.bytes, data.count, out.mutableBytes, out.count, &moved)
                    }
                    return out
                }
                """),
        SourceFixture(
            rule: "constant-salt", name: "a salt from a byte array literal into CCKeyDerivationPBKDF",
            failing: """
                let salt: [UInt8] = [0x73, 0x61, 0x6c, 0x74, 0x73, 0x61, 0x6c, 0x74]
                CCKeyDerivationPBKDF(CCPBKDFAlgorithm(kCCPBKDF2), password, password.count, salt, salt.count,
                                     CCPseudoRandomAlgorithm(kCCPRFHmacAlgSHA256), 600_000, &derived, derived.count)
                """,
            nearMiss: """
                var salt = [UInt8](repeating: 0, count: 16)
                _ = SecRandomCopyBytes(kSecRandomDefault, salt.count, &salt)
                CCKeyDerivationPBKDF(CCPBKDFAlgorithm(kCCPBKDF2), password, password.count, salt, salt.count,
                                     CCPseudoRandomAlgorithm(kCCPRFHmacAlgSHA256), 600_000, &derived, derived.count)
                """),
        SourceFixture(
            rule: "constant-salt", name: "CryptoSwift's PBKDF2 salt",
            failing:
                #"let key = try PKCS5.PBKDF2(password: p, salt: Array("NaCl".utf8), iterations: 600_000, keyLength: 32).calculate()"#,
            nearMiss:
                "let key = try PKCS5.PBKDF2(password: p, salt: saltBytes, iterations: 600_000, keyLength: 32).calculate()"
        ),
        SourceFixture(
            rule: "ecb-mode", name: "CCCryptorCreateWithMode's ECB",
            failing:
                "CCCryptorCreateWithMode(op, CCMode(kCCModeECB), alg, padding, nil, key, keyLength, nil, 0, 0, 0, &ref)",
            nearMiss:
                "CCCryptorCreateWithMode(op, CCMode(kCCModeCTR), alg, padding, iv, key, keyLength, nil, 0, 0, 0, &ref)"),
        SourceFixture(
            rule: "weak-cipher", name: "Blowfish",
            failing: "let algorithm = CCAlgorithm(kCCAlgorithmBlowfish)",
            nearMiss: "let algorithm = CCAlgorithm(kCCAlgorithmAES128)"),
        SourceFixture(
            rule: "secret-in-user-defaults", name: "a PIN stored in defaults",
            failing: #"UserDefaults.standard.set("5312", forKey: "PIN")"#,
            nearMiss: """
                UserDefaults.standard.set(true, forKey: "pinningEnabled")
                UserDefaults.standard.set(pinCount, forKey: "pins")
                """),
        SourceFixture(
            rule: "secret-in-user-defaults", name: "@AppStorage of a passcode",
            failing: #"@AppStorage("userPasscode") var code = String()"#,
            nearMiss: #"@AppStorage("pinnedTab") var tab = 0"#),
        SourceFixture(
            rule: "secret-in-file", name: "a token written to a file",
            failing: """
                func export(token: String, to url: URL) throws {
                    try token.write(to: url, atomically: true, encoding: .utf8)
                }
                """,
            nearMiss: """
                func export(token: String, to url: URL) throws {
                    try token.data(using: .utf8)?.write(to: url, options: .completeFileProtection)
                    SecItemAdd([kSecClass: kSecClassGenericPassword, kSecValueData: Data(token.utf8)] as CFDictionary, nil)
                }
                """),
        SourceFixture(
            rule: "secret-in-file", name: "a plist holding a password",
            failing: """
                let info = NSMutableDictionary()
                info["password"] = password
                info.write(toFile: path, atomically: true)
                """,
            nearMiss: """
                let info = NSMutableDictionary()
                info["theme"] = theme
                info.write(toFile: path, atomically: true)
                """),
        SourceFixture(
            rule: "secret-logged", name: "log text that names the value a key",
            failing: #"print("encryption key is \(value)")"#,
            nearMiss: """
                print("encryption key rotated at \\(date)")
                print("password has \\(password.count) characters")
                #if DEBUG
                print("encryption key is \\(value)")
                #endif
                """),
        SourceFixture(
            rule: "secret-logged", name: "a format that names its argument a password",
            failing: #"NSLog("password: %@", value)"#,
            nearMiss: #"NSLog("password changed for %@", user)"#),
        SourceFixture(
            rule: "trust-without-evaluation", name: "an evaluation whose result is ignored",
            failing: """
                func urlSession(_ session: URLSession, didReceive challenge: URLAuthenticationChallenge,
                                completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
                    guard let trust = challenge.protectionSpace.serverTrust else {
                        return completionHandler(.performDefaultHandling, nil)
                    }
                    SecTrustEvaluateWithError(trust, nil)
                    completionHandler(.useCredential, URLCredential(trust: trust))
                }
                """,
            nearMiss: """
                func urlSession(_ session: URLSession, didReceive challenge: URLAuthenticationChallenge,
                                completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
                    guard let trust = challenge.protectionSpace.serverTrust else {
                        return completionHandler(.performDefaultHandling, nil)
                    }
                    if SecTrustEvaluateWithError(trust, nil) {
                        completionHandler(.useCredential, URLCredential(trust: trust))
                    } else {
                        completionHandler(.cancelAuthenticationChallenge, nil)
                    }
                }
                """),
        SourceFixture(
            rule: "cleartext-url", name: "a URL-named constant",
            failing: #"static let baseURL = "http://api.example.com""#,
            nearMiss: """
                throw AppError("use https, not http://api.example.com")
                print("see http://example.com/docs")
                let message = "http://api.example.com is down"
                """),
        SourceFixture(
            rule: "cleartext-url", name: "a constant that becomes a URL",
            failing: """
                let legacy = "http://api.example.com"
                let url = URL(string: legacy + "/v1")
                """,
            nearMiss: """
                let legacy = "http://api.example.com"
                log.notice("moved from \\(legacy)")
                """),
    ]

    @Test("the failing fixture is reported once, with its rule", arguments: fixtures)
    func failing(fixture: SourceFixture) {
        let findings = Self.findings(fixture.failing)
        #expect(findings.map(\.rule.id) == [fixture.rule], "\(findings)")
    }

    @Test("the near miss is clean", arguments: fixtures)
    func nearMiss(fixture: SourceFixture) {
        let findings = Self.findings(fixture.nearMiss)
        #expect(findings.isEmpty, "\(findings)")
    }

    @Test("secure randomness is never reported")
    func secureRandomness() {
        let source = """
            var bytes = [UInt8](repeating: 0, count: 32)
            let status = SecRandomCopyBytes(kSecRandomDefault, bytes.count, &bytes)
            var generator = SystemRandomNumberGenerator()
            let roll = Int.random(in: 1...6, using: &generator)
            let value = arc4random_uniform(100) + arc4random()
            arc4random_buf(&bytes, bytes.count)
            let id = UUID().uuidString
            """
        #expect(Self.findings(source).isEmpty)
    }

    @Test("findings carry the line and column of what was found")
    func positions() throws {
        let finding = try #require(Self.findings("\n  let d = Insecure.MD5.hash(data: x)").first)
        #expect(finding.line == 2)
        #expect(finding.column == 11)
        #expect(finding.file == "App.swift")
        #expect(finding.message.contains("Insecure.MD5"))
    }

    @Test("a hard-coded secret's fingerprint names the variable, never the value")
    func secretFingerprint() throws {
        let finding = try #require(Self.findings(#"let apiKey = "sk_live_4eC39HqLyjWDarjtT1zdp7dc""#).first)
        #expect(!finding.description.contains("sk_live"))
        let moved = try #require(Self.findings("\n\n" + #"let apiKey = "sk_live_4eC39HqLyjWDarjtT1zdp7dc""#).first)
        #expect(finding.fingerprint == moved.fingerprint)
    }

    @Test("every rule has data: an id, a message, a fix and a reference")
    func ruleData() {
        #expect(Set(AuditRule.all.map(\.id)).count == AuditRule.all.count)
        for rule in AuditRule.all {
            #expect(!rule.message.isEmpty && !rule.fix.isEmpty)
            #expect(rule.reference.contains("MASTG-TEST-") || rule.reference.contains("https://developer.apple.com/"))
            #expect(AuditRule.named(rule.id) == rule)
        }
    }
}

/// Near misses taken from real code (this repository's own sources): none of them may be reported.
struct SourcePrecisionTests {
    @Test(
        "real-code near misses are clean",
        arguments: [
            // A counter nonce that is mutated later, and a nonce-size constant.
            "private var nonce = [UInt8](repeating: 0, count: 12)\nstatic let nonceByteCount = 12",
            // An OID named nonce.
            "static let nonce: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 8, 2]",
            // The same nonce name in two functions, and a box that records its nonce.
            """
            func a() throws { _ = try AES.GCM.seal(m, using: k, nonce: nonce) }
            func b() throws { _ = try AES.GCM.seal(m, using: k, nonce: nonce) }
            func c() { _ = SealedBox(nonce: nonce, ciphertext: c, tag: t); _ = SealedBox(nonce: nonce, ciphertext: c, tag: t) }
            """,
            // Apple's constant names are not secrets.
            #"public let kSecClassGenericPassword: CFString = "kSecClassGenericPassword""#,
            // A value computed from a secret is not the secret.
            "let openSeconds = measure { try vault.open(passphrase: passphrase) }\nprint(openSeconds)",
            // A delegate that hands the trust to its pinning check.
            """
            func evaluate(_ challenge: URLAuthenticationChallenge) -> AuthChallengeDisposition {
                guard let trust = challenge.protectionSpace.serverTrust else { return .performDefaultHandling }
                let decision = decide(host: challenge.protectionSpace.host, trust: trust)
                return decision.isAllowed ? .useCredential : .cancelAuthenticationChallenge
            }
            """,
            // OWASP's figure for PBKDF2-HMAC-SHA512 is 210,000.
            "let key = try PBKDF2.deriveKey(password: p, salt: s, digest: .sha512, rounds: 210_000, count: 32)",
            // A Keychain item's name that contains the constant's own name is not the key.
            #"static let AESKey = "SecureDefaults.v1.2.2.AESKey""#,
            // Prose that mentions http:// is not a URL.
            #"let message = "an http:// URL sends its traffic in clear text""#,
        ])
    func realNearMisses(source: String) {
        let findings = Auditor().findings(inSwiftSource: source, file: "App.swift")
        #expect(findings.isEmpty, "\(findings)")
    }
}

/// Which names read like a secret, seen through the logging rule.
struct SecretNameTests {
    static func logs(_ name: String) -> Bool {
        !Auditor().findings(inSwiftSource: "print(\(name))", file: "A.swift").isEmpty
    }

    @Test(
        "names that hold a secret",
        arguments: [
            "password", "authToken", "apiKey", "refreshToken", "newPassword", "client_secret", "privateKey",
            "sessionToken", "jwt", "`password`", "accessKey",
        ])
    func secret(name: String) { #expect(Self.logs(name)) }

    @Test(
        "names about a secret, not holding one",
        arguments: [
            "tokenCount", "passwordField", "isTokenValid", "tokenKey", "tokenExpiry", "passwordPolicy", "hasPassword",
            "apiKeyHeader", "pinnedDomains", "username", "tokenizer", "secretaryName",
        ])
    func notSecret(name: String) { #expect(!Self.logs(name)) }
}
