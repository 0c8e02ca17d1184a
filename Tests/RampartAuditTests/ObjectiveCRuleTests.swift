import RampartAudit
import Testing

/// The rules that apply to Objective-C: each fires once on its mistake and stays quiet on the near miss.
struct ObjectiveCRuleTests {
    static func findings(_ source: String) -> [AuditFinding] {
        Auditor().findings(inObjectiveCSource: source, file: "Legacy.m")
    }

    static let fixtures: [SourceFixture] = [
        SourceFixture(
            rule: "secret-in-user-defaults", name: "NSUserDefaults setObject:password",
            failing: #"[[NSUserDefaults standardUserDefaults] setObject:password forKey:@"session"];"#,
            nearMiss: #"[[NSUserDefaults standardUserDefaults] setBool:YES forKey:@"hasLaunched"];"#),
        SourceFixture(
            rule: "secret-in-user-defaults", name: "a PIN under its key",
            failing: #"[defaults setObject:@"1234" forKey:@"PIN"];"#,
            nearMiss: #"[defaults setObject:@"dark" forKey:@"theme"];"#),
        SourceFixture(
            rule: "weak-cipher", name: "CCCrypt with DES",
            failing: "CCCrypt(kCCEncrypt, kCCAlgorithmDES, kCCOptionPKCS7Padding, keyPtr, kCCKeySizeDES, NULL, "
                + "bytes, length, buffer, size, &moved);",
            nearMiss: "CCCrypt(kCCEncrypt, kCCAlgorithmAES, kCCOptionPKCS7Padding, keyPtr, kCCKeySizeAES256, iv, "
                + "bytes, length, buffer, size, &moved);"),
        SourceFixture(
            rule: "ecb-mode", name: "CCCrypt with ECB",
            failing: "CCCrypt(kCCEncrypt, kCCAlgorithmAES128, kCCOptionECBMode | kCCOptionPKCS7Padding, keyPtr, "
                + "kCCKeySizeAES128, NULL, bytes, length, buffer, size, &moved);",
            nearMiss: "// not kCCOptionECBMode\nCCCrypt(kCCEncrypt, kCCAlgorithmAES128, kCCOptionPKCS7Padding, keyPtr, "
                + "kCCKeySizeAES128, iv, bytes, length, buffer, size, &moved);"),
        SourceFixture(
            rule: "hardcoded-crypto-key", name: "a literal key copied with getCString: into CCCrypt",
            failing: """
                NSString *key = @"12345678901234567890123456789012";
                char keyPtr[kCCKeySizeAES256 + 1];
                bzero(keyPtr, sizeof(keyPtr));
                [key getCString:keyPtr maxLength:sizeof(keyPtr) encoding:NSUTF8StringEncoding];
                CCCrypt(kCCEncrypt, kCCAlgorithmAES128, kCCOptionPKCS7Padding, keyPtr, kCCKeySizeAES256, iv,
                        [data bytes], [data length], buffer, bufferSize, &numBytesEncrypted);
                """,
            nearMiss: """
                NSData *key = [self keyFromKeychain];
                CCCrypt(kCCEncrypt, kCCAlgorithmAES128, kCCOptionPKCS7Padding, key.bytes, kCCKeySizeAES256, iv,
                        [data bytes], [data length], buffer, bufferSize, &numBytesEncrypted);
                """),
        SourceFixture(
            rule: "fixed-nonce", name: "a C array IV into CCCrypt",
            failing: """
                static const unsigned char iv[] = {0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07};
                CCCrypt(kCCEncrypt, kCCAlgorithmAES128, kCCOptionPKCS7Padding, key.bytes, kCCKeySizeAES256, iv,
                        data.bytes, data.length, buffer, bufferSize, &moved);
                """,
            nearMiss: """
                uint8_t iv[kCCBlockSizeAES128];
                SecRandomCopyBytes(kSecRandomDefault, sizeof(iv), iv);
                CCCrypt(kCCEncrypt, kCCAlgorithmAES128, kCCOptionPKCS7Padding, key.bytes, kCCKeySizeAES256, iv,
                        data.bytes, data.length, buffer, bufferSize, &moved);
                """),
        SourceFixture(
            rule: "hardcoded-crypto-key", name: "RNCryptor's password: part",
            failing:
                #"NSData *sealed = [RNEncryptor encryptData:data withSettings:kRNCryptorAES256Settings password:@"s3cr3t!" error:&error];"#,
            nearMiss:
                #"NSData *sealed = [RNEncryptor encryptData:data withSettings:kRNCryptorAES256Settings password:self.userPassword error:&error];"#
        ),
        SourceFixture(
            rule: "hardcoded-crypto-key", name: "a selector part that names an AES key",
            failing: #"[defaults setAESKey:@"World Cup 2014"];"#,
            nearMiss: """
                NSString *key = @"Country";
                [defaults encryptValue:value withKey:key];
                [defaults removeObjectForAESKey:key];
                """),
        SourceFixture(
            rule: "hardcoded-credential", name: "a #define API key",
            failing: #"#define API_KEY @"demo-key-1234""#,
            nearMiss: #"#define API_KEY_HEADER @"X-Api-Key""#),
        SourceFixture(
            rule: "hardcoded-credential", name: "a password in a local",
            failing: #"NSString *password = @"b@nk2024";"#,
            nearMiss: #"NSString *passwordLabel = @"Password";"#),
        SourceFixture(
            rule: "hardcoded-secret", name: "a high-entropy key constant",
            failing: #"static NSString *const kAPIKey = @"sk_live_4eC39HqLyjWDarjtT1zdp7dc";"#,
            nearMiss: #"static NSString *const kAPIKeyName = @"sk_live_4eC39HqLyjWDarjtT1zdp7dc";"#),
        SourceFixture(
            rule: "secret-logged", name: "NSLog of a password",
            failing: #"NSLog(@"password: %@", pwd);"#,
            nearMiss: """
                #ifdef DEBUG
                NSLog(@"password: %@", pwd);
                #endif
                NSLog(@"password changed");
                """),
        SourceFixture(
            rule: "secret-logged", name: "NSLog of a token property",
            failing: #"NSLog(@"%@", self.accessToken);"#,
            nearMiss: #"NSLog(@"%lu", (unsigned long)self.accessToken.length);"#),
        SourceFixture(
            rule: "keychain-accessible-always", name: "kSecAttrAccessibleAlways",
            failing: "[query setObject:(__bridge id)kSecAttrAccessibleAlways forKey:(__bridge id)kSecAttrAccessible];",
            nearMiss:
                "[query setObject:(__bridge id)kSecAttrAccessibleWhenUnlockedThisDeviceOnly forKey:(__bridge id)kSecAttrAccessible];"
        ),
        SourceFixture(
            rule: "weak-hash", name: "CC_MD5",
            failing: "CC_MD5(data.bytes, (CC_LONG)data.length, digest);",
            nearMiss: "CC_SHA256(data.bytes, (CC_LONG)data.length, digest);"),
        SourceFixture(
            rule: "pbkdf2-rounds", name: "CCKeyDerivationPBKDF with 1000 rounds",
            failing: "CCKeyDerivationPBKDF(kCCPBKDF2, password.UTF8String, password.length, salt.bytes, salt.length, "
                + "kCCPRFHmacAlgSHA256, 1000, derived, 32);",
            nearMiss: "CCKeyDerivationPBKDF(kCCPBKDF2, password.UTF8String, password.length, salt.bytes, salt.length, "
                + "kCCPRFHmacAlgSHA256, 600000, derived, 32);"),
        SourceFixture(
            rule: "cleartext-url", name: "NSURL URLWithString: http://",
            failing: #"NSURL *url = [NSURL URLWithString:@"http://api.example.com/login"];"#,
            nearMiss: """
                NSLog(@"see http://example.com/help");
                NSURL *url = [NSURL URLWithString:@"https://api.example.com/login"];
                """),
        SourceFixture(
            rule: "cleartext-url", name: "a #define base URL",
            failing: #"#define BASE_URL @"http://api.example.com""#,
            nearMiss: #"#define HELP_TEXT @"see http://example.com""#),
        SourceFixture(
            rule: "secret-in-file", name: "writeToFile: of a token",
            failing: "[token writeToFile:path atomically:YES encoding:NSUTF8StringEncoding error:&error];",
            nearMiss:
                "[[token dataUsingEncoding:NSUTF8StringEncoding] writeToFile:path options:NSDataWritingFileProtectionComplete error:&error];"
        ),
        SourceFixture(
            rule: "trust-without-evaluation", name: "NSURLSession's challenge answered without evaluation",
            failing: """
                - (void)URLSession:(NSURLSession *)session didReceiveChallenge:(NSURLAuthenticationChallenge *)challenge
                 completionHandler:(void (^)(NSURLSessionAuthChallengeDisposition, NSURLCredential *))completionHandler {
                    NSURLCredential *credential = [NSURLCredential credentialForTrust:challenge.protectionSpace.serverTrust];
                    completionHandler(NSURLSessionAuthChallengeUseCredential, credential);
                }
                """,
            nearMiss: """
                - (void)URLSession:(NSURLSession *)session didReceiveChallenge:(NSURLAuthenticationChallenge *)challenge
                 completionHandler:(void (^)(NSURLSessionAuthChallengeDisposition, NSURLCredential *))completionHandler {
                    SecTrustRef trust = challenge.protectionSpace.serverTrust;
                    if (SecTrustEvaluateWithError(trust, NULL)) {
                        completionHandler(NSURLSessionAuthChallengeUseCredential, [NSURLCredential credentialForTrust:trust]);
                    } else {
                        completionHandler(NSURLSessionAuthChallengeCancelAuthenticationChallenge, nil);
                    }
                }
                """),
        SourceFixture(
            rule: "trust-without-evaluation", name: "NSURLConnection's challenge with an ignored SecTrustEvaluate",
            failing: """
                - (void)connection:(NSURLConnection *)connection
                    willSendRequestForAuthenticationChallenge:(NSURLAuthenticationChallenge *)challenge {
                    SecTrustResultType result;
                    SecTrustEvaluate(challenge.protectionSpace.serverTrust, &result);
                    [challenge.sender useCredential:[NSURLCredential credentialForTrust:challenge.protectionSpace.serverTrust]
                         forAuthenticationChallenge:challenge];
                }
                """,
            nearMiss: """
                - (void)connection:(NSURLConnection *)connection
                    willSendRequestForAuthenticationChallenge:(NSURLAuthenticationChallenge *)challenge {
                    SecTrustResultType result;
                    SecTrustEvaluate(challenge.protectionSpace.serverTrust, &result);
                    if (result == kSecTrustResultUnspecified || result == kSecTrustResultProceed) {
                        [challenge.sender useCredential:[NSURLCredential credentialForTrust:challenge.protectionSpace.serverTrust]
                             forAuthenticationChallenge:challenge];
                    } else {
                        [challenge.sender cancelAuthenticationChallenge:challenge];
                    }
                }
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

    @Test("findings point into the Objective-C file, at the literal")
    func position() throws {
        let finding = try #require(Self.findings("\n  NSString *password = @\"b@nk2024\";").first)
        #expect(finding.line == 2)
        #expect(finding.column == 24)
        #expect(finding.file == "Legacy.m")
        #expect(!finding.description.contains("b@nk"))
    }
}
