import RampartAudit
import Testing

/// The rule changes the labelled corpus of real projects asked for (`rampart-bench audit`), each as code shaped like
/// what the corpus holds: the mistake is reported once, and the near miss stays clean.
struct CorpusRuleTests {
    static let swiftFixtures: [SourceFixture] = [
        SourceFixture(
            rule: "hardcoded-credential", name: "a password constant, not a message about one",
            failing: #"static let adminPassword = "Adm1n2020""#,
            nearMiss: """
                static let str_invalid_password = "Invalid Password"
                static let str_new_password_missing = "New password is missing"
                """),
        SourceFixture(
            rule: "hardcoded-crypto-key", name: "a literal password through utf8.map to CCKeyDerivationPBKDF",
            failing: """
                let pw = "my secret"
                let pwBytes = pw.utf8.map { Int8($0) }
                let pwPointer = UnsafePointer<Int8>(pwBytes)
                CCKeyDerivationPBKDF(alg, pwPointer, pwBytes.count, saltPointer, saltLen, hmac, rounds, &key, n)
                """,
            nearMiss: """
                let pwBytes = typed.utf8.map { Int8($0) }
                let pwPointer = UnsafePointer<Int8>(pwBytes)
                CCKeyDerivationPBKDF(alg, pwPointer, pwBytes.count, saltPointer, saltLen, hmac, rounds, &key, n)
                """),
        SourceFixture(
            rule: "constant-salt", name: "a literal salt through a pointer, not one filled by SecRandomCopyBytes",
            failing: """
                let salt: [UInt8] = [1, 2, 3, 4, 5, 6]
                let saltPointer = UnsafePointer<UInt8>(salt)
                CCKeyDerivationPBKDF(alg, password, passwordLength, saltPointer, salt.count, hmac, 600_000, &key, n)
                """,
            nearMiss: """
                var salt = [UInt8](repeating: 0, count: 16)
                SecRandomCopyBytes(kSecRandomDefault, 16, &salt)
                let saltPointer = UnsafePointer<UInt8>(salt)
                CCKeyDerivationPBKDF(alg, password, passwordLength, saltPointer, salt.count, hmac, 600_000, &key, n)
                """),
        SourceFixture(
            rule: "secret-logged", name: "the result of a secret's getter",
            failing: "debugPrint(UserData.getPassword())",
            nearMiss: "debugPrint(UserData.getPasswordPolicy())"),
        SourceFixture(
            rule: "secret-logged", name: "a value read by a secret's key",
            failing: #"print(UserDefaults.standard.string(forKey: "authToken") ?? "")"#,
            nearMiss: #"print(UserDefaults.standard.string(forKey: "authToken") != nil)"#),
        SourceFixture(
            rule: "cleartext-url", name: "an http literal given to a parameter named for a URL",
            failing: """
                func loadWebView(_ urlString: String) {
                    webView.load(URLRequest(url: URL(string: urlString)!))
                }
                loadWebView("http://kw.example.jp/top/")
                """,
            nearMiss: """
                func showMessage(_ text: String) {
                    label.text = text
                }
                showMessage("http://kw.example.jp/top/ is not reachable")
                """),
        SourceFixture(
            rule: "weak-hash", name: "a weak-hash helper applied to a password",
            failing: "let stored = password.md5",
            nearMiss: """
                extension String {
                    var md5: String { Insecure.MD5.hash(data: Data(utf8)).map { String(format: "%02x", $0) }.joined() }
                }
                let cacheName = url.absoluteString.md5
                """),
        SourceFixture(
            rule: "trust-without-evaluation", name: "an opt-in to invalid certificates turned on",
            failing: "manager.securityPolicy.allowInvalidCertificates = true",
            nearMiss: """
                func urlSession(_ session: URLSession, didReceive challenge: URLAuthenticationChallenge,
                                completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
                    if !allowInvalidCertificates {
                        return completionHandler(.performDefaultHandling, nil)
                    }
                    completionHandler(.useCredential, URLCredential(trust: challenge.protectionSpace.serverTrust!))
                }
                """),
    ]

    static let objectiveCFixtures: [SourceFixture] = [
        SourceFixture(
            rule: "weak-hash", name: "a password hashed with a -sha1 helper",
            failing: #"NSString *passwordHash = [[password stringByAppendingString:username] sha1];"#,
            nearMiss: """
                - (NSString *)sha1 {
                    unsigned char result[CC_SHA1_DIGEST_LENGTH];
                    CC_SHA1(cStr, strlen(cStr), result);
                    return [self hexString:result];
                }
                NSString *cacheKey = [[url absoluteString] sha1];
                """),
        SourceFixture(
            rule: "weak-hash", name: "MD5 of a password, not MD5 naming cache files",
            failing: """
                - (NSString *)storedPasswordHash:(NSString *)password {
                    CC_MD5(password.UTF8String, (CC_LONG)password.length, digest);
                    return [self hex:digest];
                }
                """,
            nearMiss: """
                - (NSString *)cachedFileNameForKey:(NSString *)key {
                    CC_MD5(key.UTF8String, (CC_LONG)strlen(key.UTF8String), digest);
                    return [self hex:digest];
                }
                """),
        SourceFixture(
            rule: "secret-logged", name: "a password read back from NSUserDefaults",
            failing: #"NSLog(@"%@", [self.userDefaults objectForKey:@"password"]);"#,
            nearMiss: #"NSLog(@"%@", [self.userDefaults objectForKey:@"username"]);"#),
        SourceFixture(
            rule: "cleartext-url", name: "an http API address in a #define",
            failing: #"#define IPAddress  @"http://api-test.example.com""#,
            nearMiss: #"#define kErrorText  @"see http://example.com for help""#),
        SourceFixture(
            rule: "trust-without-evaluation", name: "the opt-in macro defined, not merely tested",
            failing: "#define _AFNETWORKING_ALLOW_INVALID_SSL_CERTIFICATES_ 1",
            nearMiss: """
                - (void)connection:(NSURLConnection *)connection
                    didReceiveAuthenticationChallenge:(NSURLAuthenticationChallenge *)challenge {
                #ifdef _AFNETWORKING_ALLOW_INVALID_SSL_CERTIFICATES_
                    [challenge.sender useCredential:[NSURLCredential credentialForTrust:challenge.protectionSpace.serverTrust]
                         forAuthenticationChallenge:challenge];
                    return;
                #endif
                    [challenge.sender performDefaultHandlingForAuthenticationChallenge:challenge];
                }
                """),
        SourceFixture(
            rule: "trust-without-evaluation", name: "an invalid-certificate option tested before answering",
            failing: """
                - (void)connection:(NSURLConnection *)connection
                    willSendRequestForAuthenticationChallenge:(NSURLAuthenticationChallenge *)challenge {
                    NSURLCredential *credential = [NSURLCredential credentialForTrust:challenge.protectionSpace.serverTrust];
                    [[challenge sender] useCredential:credential forAuthenticationChallenge:challenge];
                }
                """,
            nearMiss: """
                - (void)connection:(NSURLConnection *)connection
                    willSendRequestForAuthenticationChallenge:(NSURLAuthenticationChallenge *)challenge {
                    if (!(self.options & SDWebImageDownloaderAllowInvalidSSLCertificates)) {
                        [challenge.sender performDefaultHandlingForAuthenticationChallenge:challenge];
                    } else {
                        NSURLCredential *credential = [NSURLCredential credentialForTrust:challenge.protectionSpace.serverTrust];
                        [[challenge sender] useCredential:credential forAuthenticationChallenge:challenge];
                    }
                }
                """),
    ]

    @Test("the Swift mistake is reported once, with its rule", arguments: swiftFixtures)
    func swiftFailing(fixture: SourceFixture) {
        let findings = Auditor().findings(inSwiftSource: fixture.failing, file: "App.swift")
        #expect(findings.map(\.rule.id) == [fixture.rule], "\(findings)")
    }

    @Test("the Swift near miss is clean", arguments: swiftFixtures)
    func swiftNearMiss(fixture: SourceFixture) {
        let findings = Auditor().findings(inSwiftSource: fixture.nearMiss, file: "App.swift")
        #expect(findings.isEmpty, "\(findings)")
    }

    @Test("the Objective-C mistake is reported once, with its rule", arguments: objectiveCFixtures)
    func objectiveCFailing(fixture: SourceFixture) {
        let findings = Auditor().findings(inObjectiveCSource: fixture.failing, file: "Legacy.m")
        #expect(findings.map(\.rule.id) == [fixture.rule], "\(findings)")
    }

    @Test("the Objective-C near miss is clean", arguments: objectiveCFixtures)
    func objectiveCNearMiss(fixture: SourceFixture) {
        let findings = Auditor().findings(inObjectiveCSource: fixture.nearMiss, file: "Legacy.m")
        #expect(findings.isEmpty, "\(findings)")
    }
}
