/// Whether a name reads like a secret (`password`, `authToken`, `apiKey`, `client_secret`), as opposed to a name
/// about a secret (`tokenExpiry`, `passwordField`, `isTokenValid`, `tokenKey` — the defaults key, not the value).
enum SecretNames {
    /// Words that make a name a secret on their own.
    static let secretWords: Set<String> = [
        "password", "passwd", "passcode", "passphrase", "secret", "token", "credential", "credentials", "apikey",
        "privatekey", "jwt", "bearer", "cookie",
    ]
    /// Pairs of words that do (`api key`, `private key`, `access key`, `secret key`, `session id`).
    static let secretPairs: Set<String> = [
        "api key", "private key", "access key", "secret key", "signing key", "encryption key", "decryption key",
        "aes key", "crypto key", "cipher key", "hmac key", "master key", "symmetric key",
    ]
    /// Words that make a stored value a secret too: a PIN, a one-time code, card data (for storage rules only, since
    /// `pin` also names certificate pins in networking code).
    static let storedSecretWords: Set<String> = ["pin", "pincode", "passcode", "otp", "cvv", "cvc", "ssn", "mpin"]
    /// Words of a message about a secret (a label, an error, a prompt) rather than of a passphrase.
    static let messageWords: Set<String> = [
        "invalid", "missing", "required", "enter", "wrong", "incorrect", "new", "confirm", "forgot", "reset",
        "change", "empty", "characters", "match", "must", "should", "please", "expired", "is", "not", "does",
    ]
    /// Last words that make a name describe a secret rather than hold one.
    static let describingWords: Set<String> = [
        "count", "length", "size", "type", "kind", "url", "expiry", "expiration", "expires", "date", "field", "label",
        "key", "keys", "name", "header", "store", "storage", "provider", "manager", "service", "view", "button",
        "placeholder", "prompt", "hint", "policy", "required", "visible", "hidden", "valid", "endpoint", "path",
        "id", "identifier", "format", "error", "state", "status", "request", "response", "lifetime", "ttl", "hash",
        "digest", "validator", "generator", "parser", "encoder", "decoder", "limit", "index", "range", "prefix",
        "regex", "pattern", "fingerprint", "attributes", "query", "account", "changed", "reset", "rule", "rules",
        "kdf", "algorithm", "scheme", "version", "method", "mode", "strength", "salt", "default", "collection",
        "schema", "class", "attrs",
    ]
    /// First words that make a name a question or an action.
    static let leadingWords: Set<String> = [
        "is", "has", "should", "can", "did", "will", "needs", "show", "validate", "verify", "check", "make",
        "get", "set", "fetch", "load", "save", "delete", "remove", "clear",
    ]

    /// The lowercased words of a camelCase or snake_case name (`authTokenURL` → `auth`, `token`, `url`).
    static func words(_ name: String) -> [String] {
        var words: [String] = []
        var current = ""
        let scalars = Array(name.unicodeScalars)
        for (index, scalar) in scalars.enumerated() {
            if scalar == "_" || scalar == "`" || scalar == "$" {
                if !current.isEmpty { words.append(current.lowercased()) }
                current = ""
                continue
            }
            let isUpper = scalar.properties.isUppercase
            let nextIsLower = index + 1 < scalars.count && scalars[index + 1].properties.isLowercase
            let previousIsUpper = index > 0 && scalars[index - 1].properties.isUppercase
            if isUpper, !current.isEmpty, !previousIsUpper || nextIsLower {
                words.append(current.lowercased())
                current = ""
            }
            current.unicodeScalars.append(scalar)
        }
        if !current.isEmpty { words.append(current.lowercased()) }
        return words
    }

    /// Whether `name` names a secret value. Apple's Security constants (`kSecClassGenericPassword`,
    /// `kSecAttrTokenIDSecureEnclave`) name attributes, never values.
    static func isSecret(_ name: String) -> Bool {
        if name.hasPrefix("kSec") || name.hasPrefix("errSec") { return false }
        let words = words(name)
        guard let last = words.last else { return false }
        if let first = words.first, leadingWords.contains(first), words.count > 1 { return false }
        var joined: [String] = []
        for (index, word) in words.enumerated() where index + 1 < words.count {
            joined.append("\(word) \(words[index + 1])")
        }
        if let pair = joined.last, secretPairs.contains(pair) { return true }
        if describingWords.contains(last) { return false }
        return words.contains { secretWords.contains($0) } || joined.contains { secretPairs.contains($0) }
    }

    /// Whether a literal is a name for the value rather than the value: it contains the name it is bound to
    /// (`AESKey = "SecureDefaults.v1.2.2.AESKey"`, a Keychain item's label).
    static func isNameOf(_ text: String, _ name: String) -> Bool {
        let compact = name.filter { $0.isLetter || $0.isNumber }.lowercased()
        guard compact.count >= 4 else { return false }
        return text.filter { $0.isLetter || $0.isNumber }.lowercased().contains(compact)
    }

    /// Whether a literal is what a credential looks like rather than a key name, a word, a sentence or a placeholder:
    /// four to 512 characters, at most five words and not a sentence (`"Enter your password."`), no interpolation,
    /// not `YOUR_TOKEN`-like, and not itself a name such as `"access_token"` or `"password"` (the key a value is
    /// stored under).
    static func looksLikeCredential(_ text: String) -> Bool {
        guard text.count >= 4, text.count <= 512, !text.contains("\\("), !text.contains("\n"),
            text.split(separator: " ").count <= 5, !(text.contains(" ") && [".", "?", "!", ":"].contains(text.last))
        else { return false }
        let lowered = text.lowercased()
        let placeholders = [
            "your", "xxxx", "<", "$(", "${", "example", "placeholder", "changeme", "replace", "todo", "insert", "%@",
            "%s", "****", "http://", "https://",
        ]
        guard !placeholders.contains(where: { lowered.contains($0) }) else { return false }
        // A message about a secret names it with words of a message (`"Invalid Password"`, `"New password is
        // missing"`); it is not one. `"my secret key"` is a passphrase.
        let words = lowered.split(whereSeparator: { !$0.isLetter }).map(String.init)
        if text.contains(" "), words.contains(where: { secretWords.contains($0) || storedSecretWords.contains($0) }),
            words.contains(where: { messageWords.contains($0) })
        {
            return false
        }
        // A name (letters, `_`, `.`, `-` only) that names a secret is a key, not a value; a single lower-case word
        // (`"default"`, `"login"`) is a name or a mode far more often than a password.
        let isNameLike = text.allSatisfy { $0.isLetter || $0 == "_" || $0 == "." || $0 == "-" }
        if isNameLike, isSecretKey(text) || isStoredSecretKey(text) { return false }
        if text.allSatisfy({ $0.isLowercase }) { return false }
        return Set(text).count > 1
    }

    /// Whether a key string such as `"authToken"` or `"user.password"` names a secret.
    static func isSecretKey(_ key: String) -> Bool {
        key.split(whereSeparator: { $0 == "." || $0 == "-" || $0 == " " || $0 == "/" }).contains {
            isSecret(String($0))
        }
    }

    /// Whether `name` names a value that must not be stored in the clear: a secret, or a PIN, passcode, one-time
    /// code or card number (`userPIN`, `pin_code`, `otp`), not a name about one (`pinCount`, `pinnedDomains`).
    static func isStoredSecret(_ name: String) -> Bool {
        if name.hasPrefix("kSec") || name.hasPrefix("errSec") { return false }
        if isSecret(name) { return true }
        let words = words(name)
        guard let last = words.last, !describingWords.contains(last) else { return false }
        if let first = words.first, leadingWords.contains(first), words.count > 1 { return false }
        return words.contains { storedSecretWords.contains($0) }
    }

    /// Whether a storage key such as `"PIN"` or `"user.passcode"` names a value that must not be stored in the clear.
    static func isStoredSecretKey(_ key: String) -> Bool {
        key.split(whereSeparator: { $0 == "." || $0 == "-" || $0 == " " || $0 == "/" }).contains {
            isStoredSecret(String($0))
        }
    }

    /// Whether log text ending here names a secret the next value is: `"password: "`, `"encryption key is "`,
    /// `"token="`, `"PIN "` (upper case only: `pin` also names certificate pins).
    static func introducesSecret(_ text: Substring) -> Bool {
        // Only separators may follow the name.
        let tail = text.reversed().prefix { !$0.isLetter && !$0.isNumber }
        guard tail.allSatisfy({ " :='\"([-\t".contains($0) }) else { return false }
        var words = text.split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map(String.init)
        while let last = words.last, ["is", "was", "are", "equals"].contains(last.lowercased()) { words.removeLast() }
        guard let last = words.last else { return false }
        if last == "PIN" || ["passcode", "otp"].contains(last.lowercased()) { return true }
        let lowered = words.suffix(2).map { $0.lowercased() }
        if lowered.count == 2, secretPairs.contains("\(lowered[0]) \(lowered[1])") { return true }
        return secretWords.contains(last.lowercased())
    }
}
