/// One thing `rampart audit` looks for, as data: its id, how bad it is, what it means, how to fix it, and where
/// it is documented (the OWASP MASTG test and MASVS control, or Apple's documentation page).
public struct AuditRule: Hashable, Sendable {
    /// How bad a finding is; `--fail-on` compares against it.
    public enum Severity: String, Hashable, Sendable, CaseIterable, Comparable, CustomStringConvertible {
        /// Worth fixing; rarely exploitable alone.
        case low
        /// A weakness an attacker with some access can use.
        case medium
        /// Leaks data or removes a protection outright.
        case high

        /// `low`, `medium` or `high`.
        public var description: String { rawValue }

        private var rank: Int {
            switch self {
            case .low: 0
            case .medium: 1
            case .high: 2
            }
        }

        /// Orders `low < medium < high`.
        ///
        /// - Parameters:
        ///   - lhs: One severity.
        ///   - rhs: Another.
        /// - Returns: Whether `lhs` is less severe.
        public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rank < rhs.rank }
    }

    /// The rule's stable id, e.g. `weak-hash`.
    public let id: String
    /// How bad a finding is.
    public let severity: Severity
    /// What the finding means, in one sentence.
    public let message: String
    /// What to do instead.
    public let fix: String
    /// The MASTG test and MASVS control, or Apple's documentation URL.
    public let reference: String
}

extension AuditRule {
    private static let mastgNetwork = "MASTG-TEST-0065 (MASVS-NETWORK-1)"
    private static let mastgCrypto = "MASTG-TEST-0061 (MASVS-CRYPTO-1)"

    /// `NSAllowsArbitraryLoads` is true (and not overridden by a key that makes iOS 10+ ignore it).
    public static let atsArbitraryLoads = AuditRule(
        id: "ats-arbitrary-loads", severity: .high,
        message: "NSAllowsArbitraryLoads switches App Transport Security off for every domain not listed in exceptions",
        fix: "remove NSAllowsArbitraryLoads; serve HTTPS, or add a narrow NSExceptionDomains entry for the one host",
        reference:
            "\(mastgNetwork); https://developer.apple.com/documentation/bundleresources/information-property-list/nsapptransportsecurity/nsallowsarbitraryloads"
    )
    /// `NSAllowsArbitraryLoadsInWebContent` is true.
    public static let atsArbitraryLoadsInWebContent = AuditRule(
        id: "ats-arbitrary-loads-web-content", severity: .medium,
        message: "NSAllowsArbitraryLoadsInWebContent lets web views load any page over plain HTTP",
        fix: "remove the key and load web content over HTTPS",
        reference:
            "\(mastgNetwork); https://developer.apple.com/documentation/bundleresources/information-property-list/nsapptransportsecurity/nsallowsarbitraryloadsinwebcontent"
    )
    /// `NSAllowsArbitraryLoadsForMedia` is true.
    public static let atsArbitraryLoadsForMedia = AuditRule(
        id: "ats-arbitrary-loads-media", severity: .medium,
        message: "NSAllowsArbitraryLoadsForMedia lets AVFoundation load media over plain HTTP",
        fix: "remove the key and serve media over HTTPS (FairPlay-protected streams included)",
        reference:
            "\(mastgNetwork); https://developer.apple.com/documentation/bundleresources/information-property-list/nsapptransportsecurity/nsallowsarbitraryloadsformedia"
    )
    /// An exception domain allows insecure HTTP loads.
    public static let atsInsecureHTTPException = AuditRule(
        id: "ats-insecure-http-exception", severity: .medium,
        message: "an NSExceptionDomains entry allows plain-HTTP loads",
        fix: "remove NSExceptionAllowsInsecureHTTPLoads once the host serves HTTPS",
        reference:
            "\(mastgNetwork); https://developer.apple.com/documentation/bundleresources/information-property-list/nsapptransportsecurity/nsexceptiondomains"
    )
    /// An exception domain lowers the minimum TLS version below 1.2.
    public static let atsMinimumTLS = AuditRule(
        id: "ats-minimum-tls", severity: .medium,
        message: "an NSExceptionDomains entry accepts a TLS version older than 1.2",
        fix: "remove NSExceptionMinimumTLSVersion (ATS's default is TLSv1.2) or set TLSv1.2 or TLSv1.3",
        reference:
            "MASTG-TEST-0066 (MASVS-NETWORK-1); https://developer.apple.com/documentation/bundleresources/information-property-list/nsapptransportsecurity/nsexceptiondomains"
    )
    /// `rampart lint` found a problem in `NSPinnedDomains`.
    public static let atsPinnedDomains = AuditRule(
        id: "ats-pinned-domains", severity: .medium,
        message: "NSPinnedDomains has a pinning mistake that can lock users out",
        fix: "fix the pin configuration as the detail says (run 'rampart lint Info.plist' for the full report)",
        reference:
            "MASTG-TEST-0068 (MASVS-NETWORK-2); https://developer.apple.com/documentation/bundleresources/information-property-list/nsapptransportsecurity/nspinneddomains"
    )
    /// App Attest's environment entitlement is `development` in a release entitlements file.
    public static let appAttestDevelopment = AuditRule(
        id: "app-attest-development", severity: .high,
        message: "the App Attest environment is development: release builds get attestations the server must refuse",
        fix: "set com.apple.developer.devicecheck.appattest-environment to production in the release entitlements",
        reference:
            "https://developer.apple.com/documentation/bundleresources/entitlements/com.apple.developer.devicecheck.appattest-environment"
    )
    /// A keychain access group lacks the team prefix.
    public static let keychainGroupPrefix = AuditRule(
        id: "keychain-group-prefix", severity: .medium,
        message: "a keychain access group does not start with the team prefix, so it is not the app's own group",
        fix: "write the group as $(AppIdentifierPrefix)com.example.group (or TEAMID10CH.com.example.group)",
        reference: "https://developer.apple.com/documentation/bundleresources/entitlements/keychain-access-groups"
    )
    /// A secret is written to `UserDefaults`.
    public static let secretInUserDefaults = AuditRule(
        id: "secret-in-user-defaults", severity: .high,
        message: "a token or password is written to UserDefaults, an unencrypted plist in the app's container",
        fix: "store it in the Keychain (kSecClassGenericPassword, kSecAttrAccessibleWhenUnlockedThisDeviceOnly)",
        reference: "MASTG-TEST-0052 (MASVS-STORAGE-1)"
    )
    /// A high-entropy literal assigned to a secret-like name.
    public static let hardcodedSecret = AuditRule(
        id: "hardcoded-secret", severity: .high,
        message: "a high-entropy secret is hard-coded; anyone with the app binary can read it",
        fix: "keep the secret on the server, or fetch a per-user credential at run time and keep it in the Keychain",
        reference: "MASTG-TEST-0062 (MASVS-CRYPTO-2)"
    )
    /// A credential (a password, PIN, API key, token or client secret) hard-coded whatever its entropy: by the name
    /// it is bound to or the argument label it is passed to.
    public static let hardcodedCredential = AuditRule(
        id: "hardcoded-credential", severity: .high,
        message: "a password, PIN, API key or token is hard-coded; anyone with the app binary can read it",
        fix: "keep the credential on the server, or get a per-user one at run time and keep it in the Keychain",
        reference: "MASTG-TEST-0062 (MASVS-CRYPTO-2)"
    )
    /// A literal that reaches a key or password parameter of CommonCrypto, CryptoKit, CryptoSwift or RNCryptor.
    public static let hardcodedCryptoKey = AuditRule(
        id: "hardcoded-crypto-key", severity: .high,
        message: "an encryption key or password is a literal in the app; whoever reads the binary decrypts the data",
        fix:
            "generate the key (SymmetricKey(size: .bits256) or SecKeyCreateRandomKey) and keep it in the Keychain or the Secure Enclave",
        reference: "MASTG-TEST-0062 (MASVS-CRYPTO-2)"
    )
    /// A literal that reaches the salt of PBKDF2 (CommonCrypto, CryptoSwift).
    public static let constantSalt = AuditRule(
        id: "constant-salt", severity: .medium,
        message: "a key-derivation salt is a constant, so one precomputed table attacks every user's password",
        fix: "draw a random salt of 16 bytes or more per password (SecRandomCopyBytes) and store it beside the hash",
        reference: mastgCrypto
    )
    /// A secret written to a file (raw bytes, a plist, an archive) without complete data protection.
    public static let secretInFile = AuditRule(
        id: "secret-in-file", severity: .high,
        message:
            "a password, token, key or PIN is written to a file without complete data protection, readable from backups and while the device is unlocked",
        fix:
            "store it in the Keychain; if it must be a file, write it with .completeFileProtection and exclude it from backups",
        reference: "MASTG-TEST-0052 (MASVS-STORAGE-1)"
    )
    /// MD5 or SHA-1.
    public static let weakHash = AuditRule(
        id: "weak-hash", severity: .medium,
        message: "MD5 and SHA-1 are broken for collision resistance",
        fix: "use SHA256 (CryptoKit) or CC_SHA256; for passwords use PBKDF2 with 600,000 rounds or more",
        reference: mastgCrypto
    )
    /// DES, 3DES or RC4.
    public static let weakCipher = AuditRule(
        id: "weak-cipher", severity: .high,
        message: "DES, 3DES and RC4 are broken or too weak ciphers",
        fix: "use AES.GCM or ChaChaPoly (CryptoKit)",
        reference: mastgCrypto
    )
    /// ECB mode.
    public static let ecbMode = AuditRule(
        id: "ecb-mode", severity: .high,
        message: "ECB mode encrypts equal blocks to equal ciphertext and leaks the plaintext's structure",
        fix: "use AES.GCM (CryptoKit), an authenticated mode with a fresh nonce per message",
        reference: mastgCrypto
    )
    /// A fixed or reused nonce or IV.
    public static let fixedNonce = AuditRule(
        id: "fixed-nonce", severity: .high,
        message:
            "an AES-GCM nonce or CBC IV is fixed or reused; GCM with a repeated nonce leaks the key stream and the MAC key",
        fix:
            "let AES.GCM.seal pick a random nonce (omit nonce:), or generate a fresh IV with SecRandomCopyBytes per message",
        reference: mastgCrypto
    )
    /// PBKDF2 with too few rounds.
    public static let pbkdf2Rounds = AuditRule(
        id: "pbkdf2-rounds", severity: .medium,
        message: "PBKDF2 runs fewer than 600,000 rounds, so a stolen hash is cheap to brute-force",
        fix: "use at least 600,000 rounds of PBKDF2-HMAC-SHA256 (OWASP's current figure)",
        reference: mastgCrypto
    )
    /// `kSecAttrAccessibleAlways*`.
    public static let keychainAccessibleAlways = AuditRule(
        id: "keychain-accessible-always", severity: .high,
        message: "kSecAttrAccessibleAlways* items are readable while the device is locked (deprecated since iOS 12)",
        fix: "use kSecAttrAccessibleWhenUnlockedThisDeviceOnly, or AfterFirstUnlockThisDeviceOnly for background use",
        reference:
            "MASTG-TEST-0052 (MASVS-STORAGE-1); https://developer.apple.com/documentation/security/ksecattraccessiblealways"
    )
    /// A plain-HTTP URL that reaches URL construction or networking.
    public static let cleartextURL = AuditRule(
        id: "cleartext-url", severity: .medium,
        message: "an http:// URL sends its traffic in clear text",
        fix: "use https:// (only localhost may be plain HTTP)",
        reference: mastgNetwork
    )
    /// A secret-named value logged outside `#if DEBUG`.
    public static let secretLogged = AuditRule(
        id: "secret-logged", severity: .medium,
        message: "a value named like a secret is logged in release builds, where device logs and crash reports keep it",
        fix: "remove the log, wrap it in #if DEBUG, or log it with Logger and privacy: .private",
        reference: "MASTG-TEST-0053 (MASVS-STORAGE-2)"
    )
    /// A trust challenge answered with `.useCredential` without evaluating the trust.
    public static let trustWithoutEvaluation = AuditRule(
        id: "trust-without-evaluation", severity: .high,
        message:
            "a server-trust challenge is answered with .useCredential without evaluating the trust: any certificate is accepted",
        fix: "call SecTrustEvaluateWithError (and check pins) before .useCredential, or answer .performDefaultHandling",
        reference:
            "MASTG-TEST-0067 (MASVS-NETWORK-1); https://developer.apple.com/documentation/foundation/handling-an-authentication-challenge/performing-manual-server-trust-authentication"
    )
    /// A pinning failure that retries without pinning.
    public static let pinningFallback = AuditRule(
        id: "pinning-fallback", severity: .high,
        message: "a pin failure falls back to an unpinned connection, so an attacker only has to make pinning fail",
        fix:
            "on a pin failure cancel the challenge (.cancelAuthenticationChallenge) and report it; never retry unpinned",
        reference: "MASTG-TEST-0068 (MASVS-NETWORK-2)"
    )

    /// Every rule, in the order the help lists them.
    public static let all: [AuditRule] = [
        atsArbitraryLoads, atsArbitraryLoadsInWebContent, atsArbitraryLoadsForMedia, atsInsecureHTTPException,
        atsMinimumTLS, atsPinnedDomains, appAttestDevelopment, keychainGroupPrefix, secretInUserDefaults,
        secretInFile, hardcodedSecret, hardcodedCredential, hardcodedCryptoKey, weakHash, weakCipher, ecbMode,
        fixedNonce, constantSalt, pbkdf2Rounds, keychainAccessibleAlways, cleartextURL, secretLogged,
        trustWithoutEvaluation, pinningFallback,
    ]

    /// The rule with `id`, or nil.
    ///
    /// - Parameter id: A rule id such as `weak-hash`.
    /// - Returns: The rule.
    public static func named(_ id: String) -> AuditRule? { all.first { $0.id == id } }
}
