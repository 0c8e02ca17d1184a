/// Weak hashes where they protect something: not inside a generic hash helper (`-(NSString *)md5`,
/// `func sha1() -> String`), whose uses are reported instead when they hash a secret (`[password sha1]`,
/// `Util.md5(token)`), and not where a hash names cache files (`cachedFileNameForKey:`).
extension SourceRules {
    /// Whether a name is about a hash algorithm that is broken for collisions (`md5`, `MD5String`, `sha1Hex`).
    static func isWeakHashName(_ name: String) -> Bool {
        let lowered = name.lowercased()
        return (lowered.contains("md5") || lowered.contains("sha1")) && !lowered.hasPrefix("cc_")
            && !lowered.hasPrefix("kcc")
    }

    /// The identifiers of the declarations around `index`, innermost first: for each enclosing `{`, the tokens
    /// of its header back to the previous `;`, `{`, `}` or directive (a `func`, a computed property, an
    /// Objective-C method or a C function), stopping at a type.
    func enclosingDeclarationNames(of index: Int) -> [String] {
        var names: [String] = []
        var cursor = index - 1
        var levels = 0
        while cursor >= 0, levels < 8 {
            if code.isPunctuation(cursor, "}"), let open = code.opener[cursor] {
                cursor = open - 1
                continue
            }
            guard code.isPunctuation(cursor, "{") else {
                cursor -= 1
                continue
            }
            var header = cursor - 1
            var headerNames: [String] = []
            while header >= 0, cursor - header < 40, !code.isPunctuation(header, ";"), !code.isPunctuation(header, "{"),
                !code.isPunctuation(header, "}"), code.tokens[header].kind != .poundKeyword,
                code.tokens[header].kind != .directive
            {
                if code.isIdentifier(header) { headerNames.append(code.texts[header]) }
                header -= 1
            }
            let types: Set<String> = ["class", "struct", "enum", "extension", "protocol", "actor"]
            if headerNames.contains(where: { types.contains($0) }) { break }
            names += headerNames
            levels += 1
            cursor = header
        }
        return names
    }

    /// Whether the weak hash at `index` is a generic helper's body (its uses are checked instead) or names files
    /// in a cache, where collisions do not matter.
    func isHashHelperOrCacheName(_ index: Int) -> Bool {
        let names = enclosingDeclarationNames(of: index)
        if names.contains(where: Self.isWeakHashName) { return true }
        return names.contains { name in
            let words = SecretNames.words(name)
            if words.contains(where: { $0 == "cache" || $0 == "cached" || $0 == "filename" }) { return true }
            return zip(words, words.dropFirst()).contains { $0 == "file" && $1 == "name" }
        }
    }

    /// A call of a weak-hash helper on a secret: `[[password stringByAppendingString:salt] sha1]`,
    /// `[Util md5:password]`, `password.md5()`, `sha1(token)`.
    mutating func checkHashHelperCall(_ index: Int) {
        let name = code.texts[index]
        guard Self.isWeakHashName(name), !code.isIdentifier(index - 1, "func"), !code.isIdentifier(index - 1, "var"),
            !code.isIdentifier(index - 1, "let")
        else { return }
        var data: Range<Int>?
        if language == .objectiveC, code.isPunctuation(index + 1, "]") || code.isPunctuation(index + 1, ":"),
            code.isIdentifier(index - 1) || code.isPunctuation(index - 1, "]"),
            let close = (index + 1..<min(index + 200, code.count)).first(where: { code.isPunctuation($0, "]") }),
            let open = code.opener[close], open < index
        {
            data = (open + 1)..<close
        } else if language == .swift, code.isOperator(index - 1, ".") || code.isPunctuation(index + 1, "(") {
            var start = index
            while code.isOperator(start - 1, ".") || code.isOperator(start - 1, "?.")
                || code.isOperator(start - 1, "!.")
            {
                guard code.isIdentifier(start - 2) else { break }
                start -= 2
            }
            let end = code.isPunctuation(index + 1, "(") ? (code.partner[index + 1] ?? index) : index
            data = start..<end
        }
        // The receiver's own chain counts (`password.md5`), so names are read one by one, not as member chains.
        guard let data,
            data.contains(where: {
                code.isIdentifier($0) && !code.isPunctuation($0 + 1, ":") && !code.isPunctuation($0 + 1, "(")
                    && isSecretValue($0, stored: true)
            }), !isHashHelperOrCacheName(index)
        else { return }
        report(.weakHash, at: index, "\(name) of a secret")
    }
}
