import Foundation

/// The rules that read Swift source, over the lexer's tokens (so comments and string contents never match unless
/// a rule is about a literal).
struct SourceRules {
    /// The language a file is written in; the rules about Swift's syntax apply to Swift only.
    enum Language {
        case swift, objectiveC
    }

    let code: SwiftCode
    let file: String
    let language: Language
    var findings: [AuditFinding] = []
    /// Local names whose value comes from a secret-named one (`let value = session.token`), and parameters whose
    /// argument label is secret-named (`func save(token value: String)`).
    var tainted: Set<String> = []
    /// `let NAME = <integer literal>` in the file, for PBKDF2 rounds given through a constant.
    var integerConstants: [String: Int] = [:]
    /// Names bound to a literal (the token index of the string, byte array or `{…}` it holds), for the flows to
    /// crypto parameters; see ``collectLiteralBindings()``.
    var literalBindings: [String: Int] = [:]
    /// The function body a local binding is visible in (absent: the whole file).
    var bindingScopes: [String: Range<Int>] = [:]
    /// Literals already reported, so that one literal gives one finding (its most specific rule).
    var reportedLiterals: Set<Int> = []
    /// Names used in the arguments of URL construction and networking calls.
    var namesReachingURL: Set<String> = []
    /// Dictionaries given a secret-named key (`info["password"] = …`), for plists written to files.
    var dictionariesWithSecrets: Set<String> = []
    /// Parameters of the file's functions named for a URL, as `name#position`.
    var urlParameters: Set<String> = []

    init(code: SwiftCode, file: String, language: Language = .swift) {
        self.code = code
        self.file = file
        self.language = language
    }

    /// Runs every source rule over `source`.
    static func findings(in source: [UInt8], file: String) -> [AuditFinding] {
        run(SourceRules(code: SwiftCode(source: source), file: file))
    }

    /// Runs every rule that applies to Objective-C over `source` (`.m`, `.mm`, `.h`).
    static func findings(inObjectiveC source: [UInt8], file: String) -> [AuditFinding] {
        run(SourceRules(code: SwiftCode(objectiveC: source), file: file, language: .objectiveC))
    }

    private static func run(_ initial: SourceRules) -> [AuditFinding] {
        var rules = initial
        rules.collectNames()
        rules.collectLiteralBindings()
        rules.collectURLUses()
        rules.collectURLParameters()
        rules.checkCalls()
        rules.run()
        rules.checkNamedCredentials()
        var seen: Set<String> = []
        return rules.findings.filter { seen.insert("\($0.rule.id):\($0.line):\($0.column)").inserted }
    }

    mutating func report(_ rule: AuditRule, at index: Int, _ detail: String, fingerprint: String? = nil) {
        guard index >= 0, index < code.count else { return }
        let token = code.tokens[index]
        findings.append(
            AuditFinding(
                rule: rule, file: file, line: token.line, column: token.column, detail: detail,
                fingerprintText: fingerprint ?? code.lineText(of: index)))
    }

    /// Whether the identifier (or the last of the member chain) at `index` names a secret or a tainted value.
    func isSecretValue(_ index: Int, stored: Bool = false) -> Bool {
        guard code.isIdentifier(index) else { return false }
        let name = code.text(index).trimmingBackquotes
        return SecretNames.isSecret(name) || tainted.contains(name) || (stored && SecretNames.isStoredSecret(name))
    }

    /// Whether the tokens in `range` use a secret value: an identifier (not a label, not followed by a member that
    /// takes its size or emptiness) that names a secret or is tainted. Interpolations marked `privacy: .private`
    /// or `.sensitive` are skipped.
    func usesSecret(in range: Range<Int>, stored: Bool = false) -> Int? {
        var index = range.lowerBound
        while index < range.upperBound, index < code.count {
            let token = code.tokens[index]
            if token.kind == .interpolationStart, let end = interpolationEnd(from: index) {
                let inner = (index + 1)..<end
                if isPrivate(inner) {
                    index = end + 1
                    continue
                }
            }
            if token.kind == .identifier, !code.isPunctuation(index + 1, ":"), !code.isOperator(index - 1, "."),
                isSecretValue(index, stored: stored)
            {
                // Follow the member chain: `token.count` is not the token; `session.token` is checked by its last
                // member.
                var last = index
                while code.isOperator(last + 1, ".") || code.isOperator(last + 1, "?.")
                    || code.isOperator(last + 1, "!.")
                {
                    guard code.isIdentifier(last + 2) else { break }
                    last += 2
                }
                if last == index || isSecretValue(last, stored: stored) { return index }
            } else if token.kind == .identifier, code.isOperator(index - 1, "."), isSecretValue(index, stored: stored),
                !code.isPunctuation(index + 1, "(")
            {
                // `self.accessToken.length` is the token's length, not the token.
                var last = index
                while code.isOperator(last + 1, ".") || code.isOperator(last + 1, "?."), code.isIdentifier(last + 2) {
                    last += 2
                }
                if last == index || isSecretValue(last, stored: stored) { return index }
                index = last
            }
            index += 1
        }
        return nil
    }

    /// Whether an expression is a secret itself (`session.token`, `password ?? ""`, `try? creds.password`), not
    /// something computed from one (`hash(password)`, `vault.open(passphrase)`): a secret outside any call.
    func refersToSecret(_ range: Range<Int>) -> Bool {
        var index = range.lowerBound
        while index < range.upperBound, index < code.count {
            if code.tokens[index].kind == .punctuation, ["(", "[", "{"].contains(code.texts[index]) {
                return false
            }
            if code.tokens[index].kind == .stringOpen { return false }
            if code.isIdentifier(index), !code.isPunctuation(index + 1, "("), isSecretValue(index) {
                var last = index
                while code.isOperator(last + 1, ".") || code.isOperator(last + 1, "?.")
                    || code.isOperator(last + 1, "!.")
                {
                    guard code.isIdentifier(last + 2) else { break }
                    last += 2
                }
                if !code.isPunctuation(last + 1, "("), isSecretValue(last) { return true }
                index = last
            }
            index += 1
        }
        return false
    }

    func interpolationEnd(from start: Int) -> Int? {
        var depth = 0
        var index = start
        while index < code.count {
            switch code.tokens[index].kind {
            case .interpolationStart: depth += 1
            case .interpolationEnd:
                depth -= 1
                if depth == 0 { return index }
            default: break
            }
            index += 1
        }
        return nil
    }

    func isPrivate(_ range: Range<Int>) -> Bool {
        for index in range where code.isIdentifier(index, "privacy") && code.isPunctuation(index + 1, ":") {
            let value = code.text(index + 3)
            if code.isOperator(index + 2, "."), value == "private" || value == "sensitive" { return true }
        }
        return false
    }

    /// The string literal starting at `index` (a `stringOpen`) when it has no interpolation: its text and the
    /// index after its close.
    func plainString(at index: Int) -> (text: String, end: Int)? {
        guard index < code.count, code.tokens[index].kind == .stringOpen else { return nil }
        var text = ""
        var cursor = index + 1
        while cursor < code.count {
            switch code.tokens[cursor].kind {
            case .stringSegment: text += code.texts[cursor]
            case .stringClose: return (text, cursor + 1)
            default: return nil
            }
            cursor += 1
        }
        return nil
    }

    /// Whether `range` builds bytes from literals only: `[0, 1]`, `Data(repeating: 0, count: 12)`,
    /// `Data("fixed".utf8)`, `"iv".data(using: .utf8)`, `[UInt8](repeating: 0, count: 16)`.
    func isLiteralBytes(_ range: Range<Int>) -> Bool {
        let allowed: Set<String> = [
            "Data", "UInt8", "Array", "repeating", "count", "utf8", "data", "using", "bytes", "ContiguousBytes",
        ]
        var sawLiteral = false
        for index in range where index < code.count {
            let token = code.tokens[index]
            switch token.kind {
            case .identifier: if !allowed.contains(code.texts[index]) { return false }
            case .interpolationStart: return false
            case .number, .stringOpen: sawLiteral = true
            case .punctuation where code.texts[index] == "{": return false
            default: break
            }
        }
        return sawLiteral
    }

    /// First pass: taint from secret-named values, and integer constants.
    mutating func collectNames() {
        for index in 0..<code.count where code.isIdentifier(index) {
            let word = code.texts[index]
            // `info["password"] = …`, `info.setObject(x, forKey: "pin")`, `[info setObject:x forKey:@"pin"]`.
            if code.isPunctuation(index + 1, "["), let key = plainString(at: index + 2),
                SecretNames.isStoredSecretKey(key.text), code.isPunctuation(key.end, "]"),
                code.isOperator(key.end + 1, "=")
            {
                dictionariesWithSecrets.insert(word)
            }
            if word == "forKey", code.isPunctuation(index + 1, ":"), let key = plainString(at: index + 2),
                SecretNames.isStoredSecretKey(key.text)
            {
                if let receiver = dictionaryReceiver(ofKeyAt: index) { dictionariesWithSecrets.insert(receiver) }
            }
            if word == "let" || word == "var", code.isIdentifier(index + 1) {
                let name = code.text(index + 1).trimmingBackquotes
                var valueStart = index + 2
                if code.isPunctuation(valueStart, ":") {
                    while valueStart < code.count, !code.isOperator(valueStart, "="),
                        code.tokens[valueStart].line == code.tokens[index].line
                    {
                        valueStart += 1
                    }
                }
                guard code.isOperator(valueStart, "=") else { continue }
                let end = code.statementEnd(from: valueStart + 1)
                if end == valueStart + 2, code.tokens[valueStart + 1].kind == .number,
                    let value = Int(code.text(valueStart + 1).filter { $0 != "_" })
                {
                    integerConstants[name] = value
                }
                if !SecretNames.isSecret(name), refersToSecret((valueStart + 1)..<end) {
                    tainted.insert(name)
                }
            } else if code.isIdentifier(index + 1), code.isPunctuation(index + 2, ":"),
                code.isPunctuation(index - 1, "(") || code.isPunctuation(index - 1, ","),
                SecretNames.isSecret(word.trimmingBackquotes)
            {
                // `func save(token value: String)`: the parameter `value` holds the token.
                tainted.insert(code.text(index + 1).trimmingBackquotes)
            }
        }
    }

    mutating func run() {
        var nonceArguments: [String: Int] = [:]  // "body start:name" → uses
        var functionsReportedForTrust: Set<Int> = []
        for index in 0..<code.count {
            let token = code.tokens[index]
            let text = code.texts[index]
            switch token.kind {
            case .identifier:
                checkIdentifier(index, text)
                let answersWithTrust =
                    (text == "useCredential" && code.isOperator(index - 1, "."))
                    || (language == .objectiveC
                        && (text == "NSURLSessionAuthChallengeUseCredential"
                            || (text == "credentialForTrust" && code.isPunctuation(index + 1, ":"))))
                if answersWithTrust {
                    let body = code.enclosingBody(of: index)
                    if !functionsReportedForTrust.contains(body.lowerBound), !evaluatesTrust(in: body),
                        !isGuardedByInvalidCertificateOptIn(index, in: body)
                    {
                        functionsReportedForTrust.insert(body.lowerBound)
                        let at = code.isOperator(index - 1, ".") ? index - 1 : index
                        report(.trustWithoutEvaluation, at: at, language == .swift ? ".useCredential" : text)
                    }
                }
                if text == "nonce" || text == "iv", code.isPunctuation(index + 1, ":"),
                    code.isPunctuation(index - 1, "(") || code.isPunctuation(index - 1, ","),
                    code.isIdentifier(index + 2), !code.isOperator(index + 3, "."), !code.isPunctuation(index + 3, "("),
                    code.texts[index + 2].first?.isLowercase == true, isSealCall(argumentAt: index)
                {
                    let name = code.texts[index + 2]
                    let key = "\(code.enclosingBody(of: index).lowerBound):\(name)"
                    if nonceArguments[key] != nil {
                        report(.fixedNonce, at: index + 2, "\(name) is passed as the nonce of more than one seal")
                    }
                    nonceArguments[key, default: 0] += 1
                }
                if text == "catch" || text == "else" { checkFallback(index) }
                if Self.isInvalidCertificateOptIn(text) { checkOptInTurnedOn(index) }
            case .stringOpen:
                checkURLs(index)
            default: break
            }
        }
    }

    /// The rules keyed on one identifier.
    mutating func checkIdentifier(_ index: Int, _ text: String) {
        switch text {
        case "Insecure":
            if code.isOperator(index + 1, "."), ["MD5", "SHA1"].contains(code.text(index + 2)),
                !isHashHelperOrCacheName(index)
            {
                report(.weakHash, at: index, "Insecure.\(code.text(index + 2))")
            }
        case "CC_MD5", "CC_SHA1", "CC_MD5_Init", "CC_SHA1_Init":
            if code.isPunctuation(index + 1, "("), !isHashHelperOrCacheName(index) {
                report(.weakHash, at: index, text)
            }
        case "md5", "sha1":
            if code.isOperator(index - 1, "."), code.isPunctuation(index + 1, "("), !isHashHelperOrCacheName(index) {
                report(.weakHash, at: index, ".\(text)()")
            } else {
                checkHashHelperCall(index)
            }
        case "kCCAlgorithmDES", "kCCAlgorithm3DES", "kCCAlgorithmRC4", "kCCAlgorithmRC2", "kCCAlgorithmCAST",
            "kCCAlgorithmBlowfish", "kCCModeRC4":
            report(.weakCipher, at: index, text)
        case "kCCOptionECBMode", "kCCModeECB":
            report(.ecbMode, at: index, text)
        case "CC_MD2", "CC_MD4", "kCCHmacAlgMD5":
            if text.hasPrefix("kCC") || code.isPunctuation(index + 1, "(") { report(.weakHash, at: index, text) }
        case "ECB":
            if code.isPunctuation(index + 1, "("), code.isPunctuation(index + 2, ")") {
                report(.ecbMode, at: index, "ECB()")
            }
        case "kSecAttrAccessibleAlways", "kSecAttrAccessibleAlwaysThisDeviceOnly":
            if storesWithAccessibility(index) { report(.keychainAccessibleAlways, at: index, text) }
        case "CCKeyDerivationPBKDF":
            if code.isPunctuation(index + 1, "(") {
                let arguments = code.arguments(open: index + 1)
                if arguments.count > 6 { checkRounds(arguments[6].value, call: index) }
            }
        case "set", "setValue", "setObject":
            checkUserDefaults(index)
        case "write":
            if code.isOperator(index - 1, ".") || code.isOperator(index - 1, "?."), code.isPunctuation(index + 1, "(") {
                checkFileWrite(index, receiver: index - 1, arguments: code.arguments(open: index + 1))
            }
        case "createFile":
            checkCreateFile(index)
        case "archiveRootObject":
            if code.isPunctuation(index + 1, "("), let value = code.arguments(open: index + 1).first?.value,
                usesSecret(in: value, stored: true) != nil || isSecretDictionary(value)
            {
                report(.secretInFile, at: index, "NSKeyedArchiver.archiveRootObject(…, toFile:)")
            }
        case "AppStorage":
            checkAppStorage(index)
        case "print", "debugPrint", "NSLog", "os_log", "dump":
            if code.isPunctuation(index + 1, "("), !code.isOperator(index - 1, ".") { checkLog(index) }
        case "debug", "info", "notice", "error", "warning", "fault", "critical", "trace", "log":
            if code.isOperator(index - 1, "."), code.isPunctuation(index + 1, "("), isLoggerReceiver(before: index - 1)
            {
                checkLog(index)
            }
        case "Nonce":
            if code.isPunctuation(index + 1, "("), let argument = code.arguments(open: index + 1).first,
                argument.label == "data", isLiteralBytes(argument.value),
                !reportedLiterals.contains(literalBytesRoot(argument.value) ?? -1)
            {
                report(.fixedNonce, at: index, "a nonce built from literal bytes")
            }
        case "let", "var":
            if language == .swift { checkDeclaration(index) }
        default:
            if Self.isWeakHashName(text) { checkHashHelperCall(index) }
            if text.contains("PBKDF2") || text.contains("pbkdf2") { checkPBKDF2Call(index) }
            if text.hasPrefix("kSecAttrAccessibleAlways"), storesWithAccessibility(index) {
                report(.keychainAccessibleAlways, at: index, text)
            }
            if code.tokens.indices.contains(index + 2), code.tokens[index + 2].kind == .stringOpen {
                checkSecretAssignment(index)
            }
        }
    }

    /// Whether the accessibility constant at `index` is used to store an item: not the declaration of a constant of
    /// that name (`let kSecAttrAccessibleAlways = "dk"`, to find items of old versions), and not an argument of a
    /// call that reads or removes items (`SecItemDelete`, `KeychainHelper.remove(…, accessible: …)`), which is how
    /// an app migrates away from it.
    func storesWithAccessibility(_ index: Int) -> Bool {
        if code.isIdentifier(index - 1, "let") || code.isIdentifier(index - 1, "var") { return false }
        if language == .objectiveC, code.isOperator(index + 1, "=") { return false }
        // The call the constant is an argument of, through a dictionary or array literal (`SecItemDelete([…])`).
        var depth = 0
        var cursor = index - 1
        var callee: String?
        while cursor >= 0, index - cursor < 400, callee == nil {
            if code.tokens[cursor].kind == .punctuation {
                switch code.texts[cursor] {
                case ")", "]": depth += 1
                case "}", ";": cursor = 0
                case "(" where depth == 0: callee = code.text(cursor - 1).lowercased()
                case "{" where depth == 0: cursor = 0
                case "(", "[", "{": depth = max(0, depth - 1)
                default: break
                }
            }
            cursor -= 1
        }
        guard let callee else { return true }
        let reading = [
            "get", "remove", "delete", "read", "load", "fetch", "copymatching", "exists", "contains", "find",
        ]
        return !reading.contains { callee.contains($0) }
    }

    /// `let NAME (: T)? = VALUE`: hard-coded secrets and fixed IVs and nonces.
    mutating func checkDeclaration(_ index: Int) {
        guard code.isIdentifier(index + 1) else { return }
        let name = code.text(index + 1).trimmingBackquotes
        var cursor = index + 2
        if code.isPunctuation(cursor, ":") {
            while cursor < code.count, !code.isOperator(cursor, "="),
                code.tokens[cursor].line == code.tokens[index].line
            {
                cursor += 1
            }
        }
        guard code.isOperator(cursor, "=") else { return }
        let end = code.statementEnd(from: cursor + 1)
        if SecretNames.isSecret(name), let literal = plainString(at: cursor + 1), literal.end == end,
            Entropy.looksLikeSecret(literal.text), !SecretNames.isNameOf(literal.text, name),
            reportedLiterals.insert(cursor + 1).inserted
        {
            report(.hardcodedSecret, at: cursor + 1, "\(name) = \"…\"", fingerprint: "\(name) = literal")
        }
        // Only constants: `var iv = [UInt8](repeating: 0, count: 16)` is filled later (SecRandomCopyBytes(…, &iv)
        // or a counter). The name must be the IV or nonce itself (not `nonceByteCount`), and a declared type must
        // be bytes (an OID named `nonce` is not).
        let words = SecretNames.words(name)
        let annotation = code.texts[(index + 2)..<cursor].joined()
        let isBytesType =
            annotation.isEmpty || ["UInt8", "Data", "Nonce", "Bytes"].contains { annotation.contains($0) }
        if code.texts[index] == "let", words.contains("iv") || words.contains("nonce"),
            ["iv", "nonce", "bytes", "data"].contains(words.last ?? ""), isBytesType,
            isLiteralBytes((cursor + 1)..<end),
            code.texts[(cursor + 1)..<end].contains(where: { $0 == "[" || $0 == "Data" || $0 == "\"" }),
            !reportedLiterals.contains(cursor + 1), !reportedLiterals.contains(literalRoot((cursor + 1)..<end) ?? -1)
        {
            report(.fixedNonce, at: index + 1, "\(name) is built from literal bytes")
        }
    }

    /// A plain string given to a secret-named label (`Client(apiKey: "…")`) or assigned to a secret-named
    /// property (`self.token = "…"`).
    mutating func checkSecretAssignment(_ index: Int) {
        let name = code.text(index).trimmingBackquotes
        let isLabel =
            code.isPunctuation(index + 1, ":")
            && (code.isPunctuation(index - 1, "(") || code.isPunctuation(index - 1, ","))
        let isAssignment =
            code.isOperator(index + 1, "=") && !code.isIdentifier(index - 1, "let")
            && !code.isIdentifier(index - 1, "var")
        guard isLabel || isAssignment, SecretNames.isSecret(name), let literal = plainString(at: index + 2),
            Entropy.looksLikeSecret(literal.text), !SecretNames.isNameOf(literal.text, name),
            reportedLiterals.insert(index + 2).inserted
        else { return }
        report(
            .hardcodedSecret, at: index + 2, "\(name) \(isLabel ? ":" : "=") \"…\"", fingerprint: "\(name) = literal")
    }

    /// PBKDF2 rounds below OWASP's figure: 600,000 for HMAC-SHA-256 (and by default), 210,000 for HMAC-SHA-512.
    mutating func checkRounds(_ range: Range<Int>, call: Int) {
        guard let first = range.first, range.count == 1 else { return }
        var minimum = 600_000
        if let open = (call + 1..<min(call + 6, code.count)).first(where: { code.isPunctuation($0, "(") }),
            let close = code.partner[open],
            code.texts[open..<min(close, code.count)].contains(where: { $0.lowercased().contains("sha512") })
        {
            minimum = 210_000
        }
        var value: Int?
        if code.tokens[first].kind == .number {
            value = Int(code.text(first).filter { $0 != "_" })
        } else if code.isIdentifier(first) {
            value = integerConstants[code.text(first)]
        }
        if let value, value < minimum { report(.pbkdf2Rounds, at: first, "\(value) rounds") }
    }

    /// `PKCS5.PBKDF2(…, iterations: N)`, `PBKDF2.deriveKey(…, rounds: N)` and similar spellings.
    mutating func checkPBKDF2Call(_ index: Int) {
        var open = index + 1
        while code.isOperator(open, "."), code.isIdentifier(open + 1) { open += 2 }
        guard code.isPunctuation(open, "(") else { return }
        for argument in code.arguments(open: open)
        where ["iterations", "rounds", "iterationCount", "rounds_", "iteration"].contains(argument.label ?? "") {
            checkRounds(argument.value, call: index)
        }
    }

    /// `UserDefaults.standard.set(token, forKey: "…")`, `defaults.set(value, forKey: "password")`.
    mutating func checkUserDefaults(_ index: Int) {
        guard code.isOperator(index - 1, ".") || code.isOperator(index - 1, "?.") || code.isOperator(index - 1, "!."),
            code.isPunctuation(index + 1, "("),
            receiverNames(before: index - 1).contains(where: { $0.lowercased().contains("defaults") })
        else { return }
        let arguments = code.arguments(open: index + 1)
        guard let value = arguments.first, value.label == nil else { return }
        if usesSecret(in: value.value, stored: true) != nil {
            report(.secretInUserDefaults, at: index, "UserDefaults.\(code.text(index))")
            return
        }
        if let key = arguments.first(where: { $0.label == "forKey" })?.value, let first = key.first {
            let keyName: String?
            if let literal = plainString(at: first) {
                keyName = literal.text
            } else if code.isIdentifier(key.upperBound - 1) {
                keyName = code.text(key.upperBound - 1).replacingSuffix("Key")
            } else {
                keyName = nil
            }
            if let keyName, SecretNames.isStoredSecretKey(keyName) {
                report(.secretInUserDefaults, at: index, "UserDefaults key \(keyName)")
            }
        }
    }

    /// `@AppStorage("authToken") var token` stores in UserDefaults too.
    mutating func checkAppStorage(_ index: Int) {
        guard code.isPunctuation(index - 1, "@"), code.isPunctuation(index + 1, "("),
            let key = code.arguments(open: index + 1).first, let first = key.value.first
        else { return }
        let close = code.partner[index + 1] ?? index
        let property = code.isIdentifier(close + 1, "var") ? code.text(close + 2) : ""
        if let literal = plainString(at: first),
            SecretNames.isStoredSecretKey(literal.text) || SecretNames.isStoredSecret(property)
        {
            report(.secretInUserDefaults, at: index, "@AppStorage(\"\(literal.text)\")")
        }
    }

    /// Whether the member chain ending at the `.` at `dot` is a logger: `logger`, `self.log`, `Logger.network`,
    /// `Logger()` or `Logger(subsystem: …)`.
    func isLoggerReceiver(before dot: Int) -> Bool {
        receiverNames(before: dot).contains { $0.lowercased().contains("log") }
    }

    /// The identifiers of the member chain ending at the `.` (or `?.`) at `dot`, nearest first, stepping over call
    /// arguments: `UserDefaults(suiteName: "g")?.set` gives `UserDefaults`.
    func receiverNames(before dot: Int) -> [String] {
        var names: [String] = []
        var cursor = dot - 1
        var steps = 0
        let links: Set<String> = [".", "?.", "!.", "?", "!"]
        while cursor >= 0, steps < 8 {
            if code.isIdentifier(cursor) {
                names.append(code.texts[cursor])
            } else if code.isPunctuation(cursor, ")") {
                guard let open = code.opener[cursor] else { break }
                cursor = open - 1
                steps += 1
                continue
            } else if code.tokens[cursor].kind != .operator || !links.contains(code.texts[cursor]) {
                break
            }
            cursor -= 1
            steps += 1
        }
        return names
    }

    /// `print(token)`, `NSLog("%@", password)`, `logger.info("\(token)")` outside `#if DEBUG`.
    mutating func checkLog(_ index: Int) {
        guard !code.tokens[index].isDebugOnly, let close = code.partner[index + 1] else { return }
        let range = (index + 2)..<close
        // os_log("%{private}@", token) redacts its arguments.
        if let first = range.first, let format = plainString(at: first),
            format.text.contains("{private}") || format.text.contains("{sensitive}")
        {
            return
        }
        if let secret = usesSecret(in: range) {
            report(.secretLogged, at: index, "\(code.text(index))(… \(code.text(secret)) …)")
        } else if let mention = loggedSecretMention(in: range) {
            report(.secretLogged, at: index, "\(code.text(index))(\"… \(mention)\" …)")
        } else if let read = secretRead(in: range) {
            report(.secretLogged, at: index, "\(code.text(index))(… \(read) …)")
        }
    }

    /// A secret read back where it is logged: by its storage key (`[defaults objectForKey:@"password"]`,
    /// `defaults.string(forKey: "token")`, `info["password"]`) or through a getter named for it
    /// (`UserData.getPassword()`, `Defaults.getToken()`); not its size or a test of it.
    func secretRead(in range: Range<Int>) -> String? {
        guard !isSizeOrTest(range) else { return nil }
        for index in range where index < code.count {
            if code.isIdentifier(index), code.texts[index].lowercased().hasSuffix("forkey"),
                code.isPunctuation(index + 1, ":"), let key = plainString(at: index + 2),
                SecretNames.isStoredSecretKey(key.text)
            {
                return "\(code.texts[index]): \"\(key.text)\""
            }
            if code.isPunctuation(index, "["), index > range.lowerBound,
                code.isIdentifier(index - 1) || code.isPunctuation(index - 1, ")")
                    || code.isPunctuation(index - 1, "]"),
                let key = plainString(at: index + 1), code.isPunctuation(key.end, "]"),
                SecretNames.isStoredSecretKey(key.text)
            {
                return "[\"\(key.text)\"]"
            }
            if code.isIdentifier(index), code.isPunctuation(index + 1, "("), code.isPunctuation(index + 2, ")") {
                let name = code.texts[index]
                let words = SecretNames.words(name)
                if let first = words.first, ["get", "load", "read", "saved", "stored", "current"].contains(first),
                    words.count > 1, SecretNames.isSecret(String(name.dropFirst(first.count)))
                {
                    return "\(name)()"
                }
            }
        }
        return nil
    }

    /// Log text that introduces a logged value as a secret: `"encryption key is \(value)"`,
    /// `NSLog(@"password: %@", value)`, `print("token:", value)`; the name it gives, or nil. A size or a
    /// comparison (`\(token.count)`, `\(token == nil)`) and a private interpolation are not the secret.
    func loggedSecretMention(in range: Range<Int>) -> String? {
        let arguments = code.arguments(open: range.lowerBound - 1)
        for index in range where index < code.count && code.tokens[index].kind == .stringSegment {
            let text = code.texts[index]
            if code.tokens.indices.contains(index + 1), code.tokens[index + 1].kind == .interpolationStart,
                let end = interpolationEnd(from: index + 1), !isPrivate((index + 2)..<end),
                !isSizeOrTest((index + 2)..<end), SecretNames.introducesSecret(text[...])
            {
                return lastWords(text)
            }
        }
        for (position, argument) in arguments.enumerated() where argument.label == nil {
            guard let first = argument.value.first, let literal = plainString(at: first),
                literal.end == argument.value.upperBound, position + 1 < arguments.count
            else { continue }
            // A format: the text before each conversion (`%@`, `%s`, `%{public}@`, not `%{private}@` or `%%`).
            var before = literal.text[...]
            var sawConversion = false
            while let percent = before.firstIndex(of: "%") {
                let prefix = literal.text[literal.text.startIndex..<percent]
                let rest = before[before.index(after: percent)...]
                if rest.hasPrefix("%") {
                    before = rest.dropFirst()
                    continue
                }
                sawConversion = true
                if !rest.hasPrefix("{private}"), !rest.hasPrefix("{sensitive}"),
                    SecretNames.introducesSecret(prefix.suffix(from: before.startIndex))
                {
                    return lastWords(String(prefix))
                }
                before = rest
            }
            // `print("password:", value)`.
            if !sawConversion, SecretNames.introducesSecret(literal.text[...]),
                plainString(at: arguments[position + 1].value.lowerBound) == nil,
                !isSizeOrTest(arguments[position + 1].value)
            {
                return lastWords(literal.text)
            }
        }
        return nil
    }

    /// Whether an interpolated or logged expression is a size, an emptiness test or a comparison.
    func isSizeOrTest(_ range: Range<Int>) -> Bool {
        let sizes: Set<String> = ["count", "isEmpty", "length", "hashValue", "isValid", "isExpired", "utf8"]
        if let last = range.last(where: { code.isIdentifier($0) }), sizes.contains(code.texts[last]) { return true }
        return range.contains {
            code.tokens[$0].kind == .operator && ["==", "!=", "?", "<", ">"].contains(code.texts[$0])
        }
    }

    func lastWords(_ text: String) -> String {
        let words = text.split(whereSeparator: { !$0.isLetter && !$0.isNumber })
        return words.suffix(2).joined(separator: " ")
    }

    /// The callee of the call whose argument list contains `index` (`seal` for `AES.GCM.seal(x, nonce: n)`).
    func callee(ofArgumentAt index: Int) -> String? {
        var depth = 0
        var cursor = index - 1
        while cursor >= 0, index - cursor < 400 {
            if code.tokens[cursor].kind == .punctuation {
                switch code.texts[cursor] {
                case ")", "]", "}": depth += 1
                case "(", "[", "{":
                    if depth == 0 { return code.texts[cursor] == "(" ? code.text(cursor - 1) : nil }
                    depth -= 1
                default: break
                }
            }
            cursor -= 1
        }
        return nil
    }

    func isSealCall(argumentAt index: Int) -> Bool {
        guard let name = callee(ofArgumentAt: index) else { return false }
        return name == "seal" || name.lowercased().hasPrefix("encrypt") || name == "CCCrypt"
    }

    /// Whether a body evaluates the server trust before answering: it calls SecTrustEvaluate… or something named
    /// evaluate, validate or verify, or hands the trust to a function (a pinning check) other than
    /// `URLCredential(trust:)`.
    func evaluatesTrust(in body: Range<Int>) -> Bool {
        for index in body where index < code.count && code.tokens[index].kind == .identifier {
            let name = code.texts[index].lowercased()
            if name.hasPrefix("sectrustevaluate") {
                // `SecTrustEvaluateWithError(trust, nil)` as a statement evaluates and ignores the verdict.
                if name.contains("async") || isResultUsed(call: index) || isOutParameterRead(call: index, body: body) {
                    return true
                }
                continue
            }
            if name.contains("evaluate") || name.contains("validat")
                || name.contains("verif")
            {
                return true
            }
            if name.contains("trust"), !code.isPunctuation(index + 1, ":"), !code.isOperator(index - 1, "."),
                code.isPunctuation(index - 1, "(") || code.isPunctuation(index - 1, ",")
                    || code.isPunctuation(index - 1, ":"),
                let callee = callee(ofArgumentAt: index), code.isIdentifier(index - 1) == false,
                !["URLCredential", "completionHandler", "let", "var"].contains(callee), !callee.hasPrefix("SecTrust"),
                !callee.isEmpty,
                callee.first?.isLetter == true
            {
                return true
            }
        }
        return false
    }

    /// Whether the value of the call at `call` is used: not a statement of its own (`_ = f()` is not a use).
    func isResultUsed(call: Int) -> Bool {
        var previous = call - 1
        if code.isOperator(previous, "?") || code.isOperator(previous, "!"), code.isIdentifier(previous - 1, "try") {
            previous -= 2
        } else if code.isIdentifier(previous, "try") {
            previous -= 1
        }
        guard previous >= 0 else { return false }
        if code.isOperator(previous, "="), code.isIdentifier(previous - 1, "_") { return false }
        if code.isPunctuation(previous, "{") || code.isPunctuation(previous, "}") || code.isPunctuation(previous, ";") {
            return false
        }
        // `(void)SecTrustEvaluate(…)` in C discards it too.
        if code.isPunctuation(previous, ")"), code.isIdentifier(previous - 1, "void") { return false }
        let isContinuation =
            code.tokens[previous].kind == .operator || code.isPunctuation(previous, "(")
            || code.isPunctuation(previous, ",") || code.isPunctuation(previous, "[")
            || code.isPunctuation(previous, ":")
            || ["return", "if", "guard", "while", "let", "var"].contains(code.texts[previous])
        return code.tokens[previous].line == code.tokens[call].line || isContinuation
    }

    /// Whether the trust result written through `&result` (`SecTrustEvaluate(trust, &result)`) is read later in
    /// `body`.
    func isOutParameterRead(call: Int, body: Range<Int>) -> Bool {
        guard code.isPunctuation(call + 1, "("), let close = code.partner[call + 1] else { return false }
        let arguments = code.arguments(open: call + 1)
        guard arguments.count > 1, let first = arguments[1].value.first, code.isOperator(first, "&"),
            code.isIdentifier(first + 1)
        else { return false }
        let name = code.texts[first + 1]
        return ((close + 1)..<min(body.upperBound, code.count)).contains { code.isIdentifier($0, name) }
    }

    /// Every call whose arguments the flows follow: Swift and C calls `f(…)`, and Objective-C message sends.
    mutating func checkCalls() {
        for index in 0..<code.count where code.tokens[index].kind == .identifier && code.isPunctuation(index + 1, "(") {
            // Declarations are not calls: `func aes(keyData: …)`, `init(key: …)`.
            if code.isIdentifier(index - 1, "func") || (code.texts[index] == "init" && !code.isOperator(index - 1, "."))
            {
                continue
            }
            checkCall(callee: index, arguments: code.arguments(open: index + 1))
        }
        guard language == .objectiveC else { return }
        for send in code.messageSends() {
            guard let first = send.parts.first else { continue }
            let arguments = send.parts.map { (label: Optional(code.texts[$0.label]), value: $0.value) }
            checkCall(callee: first.label, arguments: arguments)
            checkObjectiveCSend(send)
        }
    }

    /// Identifiers used in the arguments of URL construction and networking calls, so that a constant holding an
    /// `http://` URL is reported only when it becomes one.
    mutating func collectURLUses() {
        for index in 0..<code.count where code.tokens[index].kind == .identifier {
            let isCall = Self.urlCallees.contains(code.texts[index]) && code.isPunctuation(index + 1, "(")
            let isSelector =
                language == .objectiveC && code.isPunctuation(index + 1, ":") && Self.isURLName(code.texts[index])
            guard isCall || isSelector else { continue }
            let end = isCall ? (code.partner[index + 1] ?? index) : valueEnd(from: index + 2)
            for position in (index + 1)..<min(end, code.count) where code.isIdentifier(position) {
                namesReachingURL.insert(code.texts[position])
            }
        }
    }

    /// Calls that make a URL or send a request from a string.
    static let urlCallees: Set<String> = [
        "URL", "NSURL", "URLComponents", "URLRequest", "request", "download", "upload", "dataTask", "webSocketTask",
        "streamRequest", "URLWithString", "requestWithURL", "NSURLRequest",
    ]

    /// Whether a name is about a URL or a server (`baseURL`, `API_ENDPOINT`, `serverHost`, `URLWithString`).
    static func isURLName(_ name: String) -> Bool {
        let words: Set<String> = ["url", "uri", "endpoint", "endpoints", "host", "server", "domain", "base", "link"]
        return SecretNames.words(name).contains { words.contains($0) }
    }

    /// Whether an `http://` literal becomes a URL: it is an argument of URL construction or networking, the value
    /// of a URL-named label or constant, or of a constant used in such a call.
    ///
    /// A constant named for an address (`#define IPAddress @"http://api.example.com"`) is a server's when the host is
    /// written out; `"http://\(host):\(port)"` is an address being printed.
    func reachesURL(_ literal: Int, hostIsWritten: Bool) -> Bool {
        if let callee = callee(ofArgumentAt: literal), Self.urlCallees.contains(callee) { return true }
        if let (callee, position) = argumentPosition(of: literal), urlParameters.contains("\(callee)#\(position)") {
            return true
        }
        if code.isPunctuation(literal - 1, ":"), code.isIdentifier(literal - 2), Self.isURLName(code.texts[literal - 2])
        {
            return true
        }
        guard let name = assignedName(of: literal) else { return false }
        if hostIsWritten, SecretNames.words(name).contains("address") { return true }
        return Self.isURLName(name) || namesReachingURL.contains(name)
    }

    /// The callee and argument position of the call whose argument starts at `literal` (`("load", 0)` for
    /// `load("http://…")`).
    func argumentPosition(of literal: Int) -> (String, Int)? {
        var depth = 0
        var cursor = literal - 1
        while cursor >= 0, literal - cursor < 400 {
            if code.tokens[cursor].kind == .punctuation {
                switch code.texts[cursor] {
                case ")", "]", "}": depth += 1
                case "[", "{":
                    if depth == 0 { return nil }
                    depth -= 1
                case "(":
                    if depth == 0 {
                        guard code.isIdentifier(cursor - 1) else { return nil }
                        let arguments = code.arguments(open: cursor)
                        guard let position = arguments.firstIndex(where: { $0.value.contains(literal) }) else {
                            return nil
                        }
                        return (code.texts[cursor - 1], position)
                    }
                    depth -= 1
                default: break
                }
            }
            cursor -= 1
        }
        return nil
    }

    /// Functions declared in the file with a parameter named for a URL (`func loadWebView(_ urlString: String)`),
    /// as `name#position`: a literal passed there becomes a URL.
    mutating func collectURLParameters() {
        for index in 0..<code.count where code.isIdentifier(index, "func") && code.isIdentifier(index + 1) {
            guard code.isPunctuation(index + 2, "(") else { continue }
            for (position, parameter) in code.arguments(open: index + 2).enumerated() {
                // `name: Type` (read as a label) or `label name: Type`: the name is the identifier before the colon.
                var name = parameter.label
                if name == nil, let colon = parameter.value.first(where: { code.isPunctuation($0, ":") }),
                    code.isIdentifier(colon - 1)
                {
                    name = code.texts[colon - 1]
                }
                if let name, Self.isURLName(name) { urlParameters.insert("\(code.texts[index + 1])#\(position)") }
            }
        }
    }

    /// The name a literal is assigned to: `let base: String = "…"`, `base = "…"`, `#define BASE @"…"`,
    /// `NSString *base = @"…"`.
    func assignedName(of literal: Int) -> String? {
        if code.isIdentifier(literal - 1), code.isIdentifier(literal - 2) == false, literal >= 2,
            code.tokens[literal - 2].kind == .poundKeyword, code.texts[literal - 2] == "#define"
        {
            return code.texts[literal - 1]
        }
        guard code.isOperator(literal - 1, "=") else { return nil }
        var cursor = literal - 2
        while cursor >= 0, cursor > literal - 14, code.tokens[cursor].line == code.tokens[literal].line {
            if code.isIdentifier(cursor), code.isIdentifier(cursor - 1, "let") || code.isIdentifier(cursor - 1, "var") {
                return code.texts[cursor]
            }
            cursor -= 1
        }
        return code.isIdentifier(literal - 2) ? code.texts[literal - 2] : nil
    }

    /// The receiver of the `forKey:` at `index`: `info` in `info.setObject(x, forKey: "pin")` or
    /// `[info setObject:x forKey:@"pin"]`; nil for `UserDefaults`.
    func dictionaryReceiver(ofKeyAt index: Int) -> String? {
        var cursor = index - 1
        while cursor >= 0, index - cursor < 60 {
            if code.isPunctuation(cursor, "("), code.isIdentifier(cursor - 1),
                ["setObject", "setValue"].contains(code.texts[cursor - 1]), code.isOperator(cursor - 2, ".")
            {
                let names = receiverNames(before: cursor - 2)
                return names.contains { $0.lowercased().contains("defaults") } ? nil : names.first
            }
            if code.isPunctuation(cursor, "["), code.isIdentifier(cursor + 1), code.isIdentifier(cursor + 2) {
                let receiver = code.texts[cursor + 1]
                return receiver.lowercased().contains("defaults") ? nil : receiver
            }
            cursor -= 1
        }
        return nil
    }

    /// Whether `range` is a dictionary given a secret-named key, or a literal one with such a key.
    func isSecretDictionary(_ range: Range<Int>) -> Bool {
        for index in range where index < code.count {
            if code.isIdentifier(index), dictionariesWithSecrets.contains(code.texts[index]),
                !code.isOperator(index - 1, ".")
            {
                return true
            }
            if let key = plainString(at: index), code.isPunctuation(key.end, ":"),
                SecretNames.isStoredSecretKey(key.text)
            {
                return true
            }
        }
        return false
    }

    /// File protection that keeps a file encrypted while the device is locked.
    static let completeProtection: Set<String> = [
        "completeFileProtection", "completeFileProtectionUnlessOpen", "complete", "completeUnlessOpen",
        "NSDataWritingFileProtectionComplete", "NSDataWritingFileProtectionCompleteUnlessOpen",
        "NSFileProtectionComplete", "NSFileProtectionCompleteUnlessOpen",
    ]

    /// `token.write(to: url)`, `info.write(toFile: path, atomically: true)` without complete file protection.
    mutating func checkFileWrite(_ index: Int, receiver dot: Int, arguments: [(label: String?, value: Range<Int>)]) {
        guard arguments.contains(where: { ["to", "toFile", "toURL"].contains($0.label ?? "") }) else { return }
        let names = receiverNames(before: dot)
        let isSecret =
            names.contains { SecretNames.isStoredSecret($0) || tainted.contains($0) }
            || names.last.map { dictionariesWithSecrets.contains($0) } == true
        guard isSecret else { return }
        let protected = arguments.contains { argument in
            argument.value.contains { code.isIdentifier($0) && Self.completeProtection.contains(code.texts[$0]) }
        }
        if !protected { report(.secretInFile, at: index, "\(names.reversed().joined(separator: ".")).write") }
    }

    /// `FileManager.default.createFile(atPath:contents:attributes:)` of a secret without complete protection.
    mutating func checkCreateFile(_ index: Int) {
        guard code.isPunctuation(index + 1, "(") else { return }
        let arguments = code.arguments(open: index + 1)
        guard let contents = arguments.first(where: { $0.label == "contents" })?.value,
            usesSecret(in: contents, stored: true) != nil || isSecretDictionary(contents)
        else { return }
        let protected = arguments.contains { argument in
            argument.label == "attributes"
                && argument.value.contains { code.isIdentifier($0) && Self.completeProtection.contains(code.texts[$0]) }
        }
        if !protected { report(.secretInFile, at: index, "createFile(atPath:contents:) of a secret") }
    }

    /// A `catch` or `else` branch, after code about pins, that connects without pinning.
    mutating func checkFallback(_ index: Int) {
        var open = index + 1
        if code.texts[index] == "catch" {
            while open < code.count, !code.isPunctuation(open, "{") { open += 1 }
        }
        guard code.isPunctuation(open, "{"), let close = code.partner[open] else { return }
        let body = code.enclosingBody(of: index)
        guard index > 0, code.lastPinMention[index - 1] >= body.lowerBound else { return }
        for position in (open + 1)..<min(close, code.count) {
            let text = code.texts[position]
            let unpinned =
                (text == "performDefaultHandling" && code.isOperator(position - 1, "."))
                || (text == "shared" && code.isIdentifier(position - 2, "URLSession"))
                || (text == "URLSession" && code.isPunctuation(position + 1, "(")
                    && !code.arguments(open: position + 1).contains { $0.label == "delegate" })
            if unpinned {
                report(.pinningFallback, at: index, "\(code.texts[index]) { … \(text) … }")
                return
            }
        }
    }

    /// `http://` in a string literal, except localhost and XML namespaces.
    mutating func checkURLs(_ index: Int) {
        var cursor = index + 1
        while cursor < code.count, code.tokens[cursor].kind != .stringClose {
            guard code.tokens[cursor].kind == .stringSegment else {
                if code.tokens[cursor].kind == .interpolationStart, let end = interpolationEnd(from: cursor) {
                    cursor = end + 1
                    continue
                }
                return
            }
            let segment = code.texts[cursor].lowercased()
            var search = segment[...]
            while let range = search.range(of: "http://") {
                let rest = search[range.upperBound...]
                let host = String(rest.prefix { $0 != "/" && $0 != ":" && $0 != "?" && $0 != "\"" && $0 != " " })
                let exempt = ["localhost", "127.0.0.1", "0.0.0.0", "[", "www.w3.org", "www.apple.com"]
                let isLocal =
                    host == "localhost" || host.hasSuffix(".localhost") || host.hasPrefix("127.")
                    || host.hasPrefix("[::1]") || exempt.contains(host)
                let hostFollows =
                    !host.isEmpty
                    || (rest.isEmpty && code.tokens.indices.contains(cursor + 1)
                        && code.tokens[cursor + 1].kind == .interpolationStart)
                if !isLocal, hostFollows, reachesURL(index, hostIsWritten: !host.isEmpty) {
                    report(.cleartextURL, at: cursor, "http://\(host.isEmpty ? "…" : host)")
                    return
                }
                search = rest
            }
            cursor += 1
        }
    }
}

extension String {
    fileprivate var trimmingBackquotes: String { filter { $0 != "`" } }

    fileprivate func replacingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) && count > suffix.count ? String(dropLast(suffix.count)) : self
    }
}
