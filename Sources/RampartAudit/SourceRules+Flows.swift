/// Literals followed within a file: through locals, properties, `#define`s and default parameter values, and through
/// `Data(…)`, `.data(using:)`, `.utf8`, `withUnsafeBytes` and Objective-C's `dataUsingEncoding:` and `getCString:`,
/// to the key, IV, nonce, salt and password parameters of CommonCrypto, CryptoKit, CryptoSwift and RNCryptor, and to
/// parameters whose argument label names a secret.
extension SourceRules {
    /// What a parameter of a crypto call receives.
    enum CryptoRole: String {
        case key, iv, nonce, salt, password
    }

    /// CommonCrypto's functions, by position: which arguments are keys, IVs, salts and passwords.
    static let positionalSinks: [String: [(Int, CryptoRole)]] = [
        "CCCrypt": [(3, .key), (5, .iv)],
        "CCCryptorCreate": [(3, .key), (5, .iv)],
        "CCCryptorCreateWithMode": [(4, .iv), (5, .key)],
        "CCHmac": [(1, .key)],
        "CCHmacInit": [(2, .key)],
        "CCKeyDerivationPBKDF": [(1, .password), (3, .salt)],
    ]

    /// Functions that fill a buffer with random bytes: what they write is not a constant.
    static let randomFillers: Set<String> = ["SecRandomCopyBytes", "arc4random_buf", "CCRandomGenerateBytes"]

    /// CommonCrypto's output arguments, by position: a buffer they write is not a constant afterwards.
    static let outputArguments: [String: [Int]] = [
        "CCCrypt": [8, 10], "CCKeyDerivationPBKDF": [7], "CCHmac": [5], "CCHmacFinal": [1], "CC_SHA256": [2],
    ]

    /// Argument labels (and Objective-C selector parts) that take a key, IV, nonce, salt or password in any call.
    static let labelRoles: [String: CryptoRole] = [
        "keyData": .key, "keyBytes": .key, "encryptionKey": .key, "hmacKey": .key, "secretKey": .key,
        "symmetricKey": .key, "iv": .iv, "ivData": .iv, "IV": .iv, "initializationVector": .iv,
        "withIV": .iv, "nonce": .nonce, "salt": .salt, "saltData": .salt, "withSalt": .salt, "password": .password,
        "withPassword": .password, "passphrase": .password, "passcode": .password,
    ]

    /// Labels that take a credential (an API key, a token, a client secret) rather than crypto material.
    static let credentialLabels: Set<String> = [
        "apiKey", "apiSecret", "secret", "token", "clientSecret", "accessToken", "authToken", "appSecret", "secretKey",
        "withApiKey", "withAPIKey", "apiToken", "privateKey",
    ]

    /// Identifiers that convert a literal without changing what it is: `Data("k".utf8)`, `"k".data(using: .utf8)!`,
    /// `[key dataUsingEncoding:NSUTF8StringEncoding]`, `keyBytes.baseAddress`.
    static let conversions: Set<String> = [
        "Data", "NSData", "Array", "UInt8", "Int8", "CChar", "String", "NSString", "UnsafeRawPointer", "UnsafePointer",
        "UnsafeMutableRawPointer", "UnsafeMutablePointer", "OpaquePointer", "data", "using", "utf8", "ascii", "bytes",
        "baseAddress", "cString", "withUnsafeBytes", "as", "try", "encoding", "base64Encoded", "hex", "repeating",
        "count", "dataUsingEncoding", "UTF8String", "cStringUsingEncoding", "NSUTF8StringEncoding",
        "NSASCIIStringEncoding", "const", "char", "unsigned", "uint8_t", "void", "dataWithBytes", "length",
        "initWithBytes", "alloc", "SymmetricKey", "size", "isoLatin1", "nil",
    ]

    /// The token index of the literal an expression carries unchanged, or nil: a plain string or byte literal, or a
    /// name bound to one, through ``conversions`` only.
    func literalRoot(_ range: Range<Int>) -> Int? {
        var found: Int?
        var index = range.lowerBound
        while index < range.upperBound, index < code.count {
            let token = code.tokens[index]
            switch token.kind {
            case .stringOpen:
                guard let literal = plainString(at: index) else { return nil }
                found = found ?? index
                index = literal.end
                continue
            case .number: found = found ?? index
            case .identifier:
                let name = code.texts[index]
                // `pw.utf8.map { Int8($0) }` converts each byte.
                if name == "map", code.isPunctuation(index + 1, "{"), let close = code.partner[index + 1],
                    isConversionClosure((index + 2)..<close)
                {
                    index = close + 1
                    continue
                }
                if let bound = literalBindings[name], !code.isOperator(index - 1, "."),
                    bindingScopes[name].map({ $0.contains(index) }) ?? true
                {
                    found = found ?? bound
                } else if !Self.conversions.contains(name) {
                    return nil
                }
            case .interpolationStart: return nil
            case .punctuation where code.texts[index] == "{": return nil
            default: break
            }
            index += 1
        }
        return found
    }

    /// Whether a closure body only converts its argument: `{ Int8($0) }`, `{ UInt8(bitPattern: $0) }`.
    func isConversionClosure(_ range: Range<Int>) -> Bool {
        !range.isEmpty
            && range.allSatisfy { index in
                guard index < code.count else { return false }
                let text = code.texts[index]
                switch code.tokens[index].kind {
                case .identifier: return Self.conversions.contains(text) || text.hasPrefix("$") || text == "bitPattern"
                case .punctuation: return text == "(" || text == ")" || text == ":"
                default: return text.hasPrefix("$")
                }
            }
    }

    /// First pass over the file: names bound to a literal (`let key = "…"`, `var iv = [0, 1, …]`,
    /// `NSString *key = @"…"`, `#define KEY @"…"`, `ivData: Data = "…".data(using: .utf8)!`), aliases through
    /// `withUnsafeBytes { name in` and `getCString:`, and names filled with random bytes later (dropped).
    mutating func collectLiteralBindings() {
        var filled: Set<String> = []
        var assignments: [String: Int] = [:]
        for index in 0..<code.count where code.tokens[index].kind == .identifier {
            let text = code.texts[index]
            // Filled later: SecRandomCopyBytes(…, &iv), arc4random_buf(iv, …), iv.withUnsafeMutableBytes { … }.
            if Self.randomFillers.contains(text),
                code.isPunctuation(index + 1, "(")
            {
                for argument in code.arguments(open: index + 1) {
                    for position in argument.value where code.isIdentifier(position) {
                        filled.insert(code.texts[position])
                    }
                }
            }
            if text == "withUnsafeMutableBytes" || text == "mutableBytes", code.isOperator(index - 1, ".") {
                filled.insert(code.text(index - 2))
            }
            // An output buffer: `&key`, or CommonCrypto's output arguments (`CCKeyDerivationPBKDF(…, derived, …)`).
            if code.isOperator(index - 1, "&") { filled.insert(text) }
            // A counter or buffer written element by element: `nonce[11] = 1`, `iv[i] ^= mask`.
            if code.isPunctuation(index + 1, "["), let close = code.partner[index + 1],
                code.tokens.indices.contains(close + 1),
                code.tokens[close + 1].kind == .operator, code.texts[close + 1].hasSuffix("="),
                code.texts[close + 1] != "==", !code.isPunctuation(close + 2, "{")
            {
                filled.insert(text)
            }
            if let outputs = Self.outputArguments[text], code.isPunctuation(index + 1, "(") {
                let arguments = code.arguments(open: index + 1)
                for position in outputs where position < arguments.count {
                    if let first = arguments[position].value.first, code.isIdentifier(first) {
                        filled.insert(code.texts[first])
                    }
                }
            }
            guard let equals = declarationEquals(index),
                !code.isOperator(index - 1, ".") || code.isIdentifier(index - 2, "self")
            else { continue }
            assignments[text, default: 0] += 1
            let end = valueEnd(from: equals + 1)
            if let literal = literalBytesRoot((equals + 1)..<end) ?? literalRoot((equals + 1)..<end) {
                literalBindings[text] = literal
                let body = code.enclosingBody(of: index)
                bindingScopes[text] = body.count == code.count ? nil : body
            }
        }
        // `#define NAME @"…"` and `#define NAME "…"`.
        for index in 0..<code.count where code.tokens[index].kind == .poundKeyword && code.texts[index] == "#define" {
            guard code.isIdentifier(index + 1), index + 2 < code.count,
                code.tokens[index + 2].line == code.tokens[index].line, plainString(at: index + 2) != nil
            else { continue }
            literalBindings[code.texts[index + 1]] = index + 2
        }
        collectParameterDefaults()
        // Whatever was bound to a filled buffer's literal is the buffer too (`saltPointer = UnsafePointer(salt)`).
        let filledLiterals = Set(filled.compactMap { literalBindings[$0] })
        literalBindings = literalBindings.filter { !filled.contains($0.key) && !filledLiterals.contains($0.value) }
        // A `var` assigned again holds something else later.
        for (name, count) in assignments where count > 1 { literalBindings[name] = nil }
        // Aliases: `key.withUnsafeBytes { keyBytes in`, `[key getCString:keyPtr …]`.
        for index in 0..<code.count where code.tokens[index].kind == .identifier {
            let text = code.texts[index]
            if text == "withUnsafeBytes" || text == "withUnsafeBufferPointer", code.isOperator(index - 1, "."),
                let bound = literalBindings[code.text(index - 2)], code.isPunctuation(index + 1, "{")
            {
                var name = index + 2
                if code.isPunctuation(name, "(") { name += 1 }
                if code.isIdentifier(name),
                    code.isIdentifier(name + 1, "in") || code.isPunctuation(name + 1, ":")
                        || code.isPunctuation(name + 1, ")")
                {
                    literalBindings[code.texts[name]] = bound
                }
            }
            if text == "getCString", code.isPunctuation(index + 1, ":"), code.isIdentifier(index + 2),
                let bound = literalBindings[code.text(index - 1)]
            {
                literalBindings[code.texts[index + 2]] = bound
            }
        }
    }

    /// The `=` of a binding of the name at `index`: `name = …`, `let name: T = …`, `char name[] = {…}`.
    func declarationEquals(_ index: Int) -> Int? {
        if code.isOperator(index + 1, "=") { return index + 1 }
        if isArrayDeclarator(index), let close = code.partner[index + 1] { return close + 1 }
        guard code.isPunctuation(index + 1, ":"),
            code.isIdentifier(index - 1, "let") || code.isIdentifier(index - 1, "var")
        else { return nil }
        var cursor = index + 2
        while cursor < code.count, code.tokens[cursor].line == code.tokens[index].line {
            if code.isOperator(cursor, "=") { return cursor }
            if code.tokens[cursor].kind == .punctuation, ["(", "["].contains(code.texts[cursor]) {
                cursor = (code.partner[cursor] ?? code.count) + 1
                continue
            }
            if code.isPunctuation(cursor, "{") { return nil }
            cursor += 1
        }
        return nil
    }

    /// `name[…] = {…}` (a C array declarator) at `index`.
    func isArrayDeclarator(_ index: Int) -> Bool {
        guard code.isPunctuation(index + 1, "["), let close = code.partner[index + 1] else { return false }
        return code.isOperator(close + 1, "=") && code.isPunctuation(close + 2, "{")
    }

    /// The end of the value of an assignment starting at `start`: the statement's end, or a top-level `,` or `;`
    /// (C declarations list several names).
    func valueEnd(from start: Int) -> Int {
        let end = code.statementEnd(from: start)
        var index = start
        while index < end {
            if code.tokens[index].kind == .punctuation, ["(", "[", "{"].contains(code.texts[index]) {
                index = (code.partner[index] ?? end) + 1
                continue
            }
            if code.isPunctuation(index, ",") || code.isPunctuation(index, ";") { return index }
            index += 1
        }
        return end
    }

    /// Bytes written as literals: `[0x01, …]`, `{0x01, …}` (C), `Data([…])`, `[UInt8](repeating: 0, count: 16)`.
    func literalBytesRoot(_ range: Range<Int>) -> Int? {
        guard let first = range.first, first < code.count else { return nil }
        if code.isPunctuation(first, "{"), let close = code.partner[first], close < range.upperBound {
            let inner = (first + 1)..<close
            let allNumbers = inner.allSatisfy {
                code.tokens[$0].kind == .number || code.isPunctuation($0, ",")
                    || (code.tokens[$0].kind == .operator && code.texts[$0] == "-")
            }
            return allNumbers && !inner.isEmpty ? first : nil
        }
        return isLiteralBytes(range) ? first : nil
    }

    /// Default values of function parameters: `func aes(ivData: Data = "…".data(using: .utf8)!)` binds `ivData`.
    mutating func collectParameterDefaults() {
        for index in 0..<code.count where code.isIdentifier(index, "func") || code.isIdentifier(index, "init") {
            var open = index + 1
            while open < code.count, open < index + 40, !code.isPunctuation(open, "(") { open += 1 }
            guard code.isPunctuation(open, "("), let close = code.partner[open] else { continue }
            var start = open + 1
            var cursor = start
            while cursor <= close, cursor < code.count {
                if cursor < close, code.tokens[cursor].kind == .punctuation,
                    ["(", "[", "{"].contains(code.texts[cursor])
                {
                    cursor = (code.partner[cursor] ?? close) + 1
                    continue
                }
                if cursor == close || code.isPunctuation(cursor, ",") {
                    bindDefault(start..<cursor)
                    start = cursor + 1
                }
                cursor += 1
            }
        }
    }

    /// One parameter `label? name: Type = value`.
    mutating func bindDefault(_ parameter: Range<Int>) {
        guard let colon = parameter.first(where: { code.isPunctuation($0, ":") }), colon > parameter.lowerBound,
            code.isIdentifier(colon - 1),
            let equals = parameter.first(where: { $0 > colon && code.isOperator($0, "=") })
        else { return }
        let value = (equals + 1)..<parameter.upperBound
        if let literal = literalBytesRoot(value) ?? literalRoot(value) {
            literalBindings[code.texts[colon - 1]] = literal
        }
    }

    /// Whether a label or selector part names an encryption key by itself: `aesKey:`, `setAESKey:`,
    /// `withEncryptionKey:` (not `withKey:`, `forKey:` or `removeObjectForAESKey:`, which name dictionary keys).
    static func isKeyLabel(_ label: String) -> Bool {
        var words = SecretNames.words(label)
        if let first = words.first, ["set", "with", "using", "by"].contains(first) { words.removeFirst() }
        guard words.count == 2, words.last == "key" else { return false }
        return SecretNames.secretPairs.contains(words.suffix(2).joined(separator: " "))
    }

    /// Whether a callee's name says it is cryptography, so that a plain `key:` label there is a key.
    static func isCryptoCallee(_ name: String) -> Bool {
        let lowered = name.lowercased()
        let words = [
            "aes", "crypt", "cipher", "hmac", "chacha", "blowfish", "rabbit", "seal", "cbc", "gcm", "ctr", "pbkdf",
            "kdf", "derive", "scrypt", "argon",
        ]
        return words.contains { lowered.contains($0) } || name == "SymmetricKey" || name == "HMAC" || name == "DES"
    }

    /// Checks the call whose `(` is at `open` and whose callee is `callee`: literals reaching crypto parameters
    /// (by position for CommonCrypto, by label otherwise) and credential labels.
    mutating func checkCall(callee: Int, arguments: [(label: String?, value: Range<Int>)]) {
        let name = code.text(callee)
        if let sinks = Self.positionalSinks[name] {
            for (position, role) in sinks where position < arguments.count {
                reportLiteral(arguments[position].value, role: role, sink: "\(name) \(role.rawValue)")
            }
            return
        }
        for argument in arguments {
            guard let label = argument.label else {
                // `SymmetricKey(data:)` is labelled; `Nonce(data:)` too. Unlabelled crypto arguments are not followed.
                continue
            }
            if label == "data", name == "SymmetricKey" {
                reportLiteral(argument.value, role: .key, sink: "SymmetricKey(data:)")
            } else if label == "data", name == "Nonce" {
                reportLiteral(argument.value, role: .nonce, sink: "Nonce(data:)")
            } else if label == "key", Self.isCryptoCallee(name) {
                reportLiteral(argument.value, role: .key, sink: "\(name)(key:)")
            } else if let role = Self.labelRoles[label] {
                // A password given to a login call is a credential; given to a cipher or a KDF, it is the key.
                if role == .password, !Self.isCryptoCallee(name) {
                    reportCredential(argument.value, label: label, sink: "\(name)(\(label):)")
                } else {
                    reportLiteral(argument.value, role: role, sink: "\(name)(\(label):)")
                }
            } else if Self.credentialLabels.contains(label) {
                reportCredential(argument.value, label: label, sink: "\(name)(\(label):)")
            } else if Self.isKeyLabel(label) {
                reportLiteral(argument.value, role: .key, sink: "\(name)(\(label):)")
            }
        }
    }

    /// A literal reaching a crypto parameter: a hard-coded key or password, a fixed IV or nonce, a constant salt.
    mutating func reportLiteral(_ range: Range<Int>, role: CryptoRole, sink: String) {
        guard let literal = literalBytesRoot(range) ?? literalRoot(range), code.tokens[literal].kind != .number,
            reportedLiterals.insert(literal).inserted
        else { return }
        let origin = literalName(of: literal).map { "\($0) → " } ?? ""
        switch role {
        case .key, .password:
            report(
                .hardcodedCryptoKey, at: literal, "a literal \(origin)\(sink)",
                fingerprint: "\(origin)\(sink) = literal")
        case .iv, .nonce:
            report(.fixedNonce, at: literal, "a literal \(origin)\(sink)", fingerprint: "\(origin)\(sink) = literal")
        case .salt:
            report(.constantSalt, at: literal, "a literal \(origin)\(sink)", fingerprint: "\(origin)\(sink) = literal")
        }
    }

    /// A literal given to a credential label (`apiKey:`, `token:`, `secret:`).
    mutating func reportCredential(_ range: Range<Int>, label: String, sink: String) {
        guard let literal = literalRoot(range), code.tokens[literal].kind == .stringOpen,
            let text = plainString(at: literal)?.text, SecretNames.looksLikeCredential(text),
            reportedLiterals.insert(literal).inserted
        else { return }
        let origin = literalName(of: literal).map { "\($0) → " } ?? ""
        report(Self.credentialRule(text), at: literal, "\(origin)\(sink)", fingerprint: "\(origin)\(sink) = literal")
    }

    /// A high-entropy credential is a ``AuditRule/hardcodedSecret``; a low-entropy one, found by its name or label,
    /// a ``AuditRule/hardcodedCredential``.
    static func credentialRule(_ text: String) -> AuditRule {
        Entropy.looksLikeSecret(text) ? .hardcodedSecret : .hardcodedCredential
    }

    /// The name a literal was bound to, if any.
    func literalName(of literal: Int) -> String? {
        literalBindings.filter { $0.value == literal }.keys.sorted().first
    }

    /// A credential-looking literal bound to a secret-named variable, property or `#define` (`let password = "b@nk1"`,
    /// `NSString *apiToken = @"…"`), whatever its entropy. Runs last, so a literal already reported (a crypto
    /// parameter, a high-entropy secret) is not reported again.
    mutating func checkNamedCredentials() {
        for (name, literal) in literalBindings.sorted(by: { $0.value < $1.value })
        where code.tokens[literal].kind == .stringOpen && !reportedLiterals.contains(literal) {
            guard SecretNames.isSecret(name) || SecretNames.isStoredSecret(name),
                let text = plainString(at: literal)?.text, SecretNames.looksLikeCredential(text),
                !SecretNames.isNameOf(text, name)
            else { continue }
            reportedLiterals.insert(literal)
            report(Self.credentialRule(text), at: literal, "\(name) = \"…\"", fingerprint: "\(name) = literal")
        }
    }
}
