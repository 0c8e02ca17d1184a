/// Whether a name reads like a secret (`password`, `authToken`, `apiKey`, `client_secret`), as opposed to a name
/// about a secret (`tokenExpiry`, `passwordField`, `isTokenValid`, `tokenKey` — the defaults key, not the value).
enum SecretNames {
    /// Words that make a name a secret on their own.
    static let secretWords: Set<String> = [
        "password", "passwd", "passcode", "passphrase", "secret", "token", "credential", "credentials", "apikey",
        "privatekey", "jwt", "bearer", "cookie",
    ]
    /// Pairs of words that do (`api key`, `private key`, `access key`, `secret key`, `session id`).
    static let secretPairs: Set<String> = ["api key", "private key", "access key", "secret key", "signing key"]
    /// Last words that make a name describe a secret rather than hold one.
    static let describingWords: Set<String> = [
        "count", "length", "size", "type", "kind", "url", "expiry", "expiration", "expires", "date", "field", "label",
        "key", "keys", "name", "header", "store", "storage", "provider", "manager", "service", "view", "button",
        "placeholder", "prompt", "hint", "policy", "required", "visible", "hidden", "valid", "endpoint", "path",
        "id", "identifier", "format", "error", "state", "status", "request", "response", "lifetime", "ttl", "hash",
        "digest", "validator", "generator", "parser", "encoder", "decoder", "limit", "index", "range", "prefix",
        "regex", "pattern", "fingerprint", "attributes", "query", "account", "changed", "reset", "rule", "rules",
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

    /// Whether `name` names a secret value.
    static func isSecret(_ name: String) -> Bool {
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

    /// Whether a key string such as `"authToken"` or `"user.password"` names a secret.
    static func isSecretKey(_ key: String) -> Bool {
        key.split(whereSeparator: { $0 == "." || $0 == "-" || $0 == " " || $0 == "/" }).contains {
            isSecret(String($0))
        }
    }
}
