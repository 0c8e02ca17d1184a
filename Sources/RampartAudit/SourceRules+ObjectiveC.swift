/// The rules that read Objective-C's message sends: `NSUserDefaults`, files written with `writeToFile:` and
/// `NSKeyedArchiver`. C calls (`CCCrypt`, `NSLog`, `SecTrustEvaluate`), constants and assignments go through the
/// same rules as Swift.
extension SourceRules {
    /// The selector parts that store a value in `NSUserDefaults`.
    static let defaultsSetters: Set<String> = [
        "setObject", "setValue", "setInteger", "setBool", "setDouble", "setFloat", "setURL",
    ]

    /// One message send.
    mutating func checkObjectiveCSend(_ send: SwiftCode.MessageSend) {
        guard let first = send.parts.first else { return }
        let selector = code.texts[first.label]
        let receiver = code.texts[send.receiver].joined()
        if Self.defaultsSetters.contains(selector), receiver.lowercased().contains("defaults") {
            checkDefaults(send, value: first.value)
        } else if selector == "writeToFile" || selector == "writeToURL" {
            let names = send.receiver.filter { code.isIdentifier($0) }.map { code.texts[$0] }
            let isSecret =
                names.contains { SecretNames.isStoredSecret($0) || tainted.contains($0) }
                || names.last.map { dictionariesWithSecrets.contains($0) } == true
            let protected = send.parts.contains { part in
                part.value.contains { code.isIdentifier($0) && Self.completeProtection.contains(code.texts[$0]) }
            }
            if isSecret, !protected { report(.secretInFile, at: first.label, "[… \(selector):]") }
        } else if selector == "archiveRootObject", usesSecret(in: first.value, stored: true) != nil {
            report(.secretInFile, at: first.label, "[NSKeyedArchiver archiveRootObject:toFile:]")
        }
    }

    /// `[[NSUserDefaults standardUserDefaults] setObject:password forKey:@"pin"]`.
    mutating func checkDefaults(_ send: SwiftCode.MessageSend, value: Range<Int>) {
        let selector = code.texts[send.parts[0].label]
        if usesSecret(in: value, stored: true) != nil {
            report(.secretInUserDefaults, at: send.parts[0].label, "NSUserDefaults \(selector):")
            return
        }
        guard let key = send.parts.first(where: { code.texts[$0.label] == "forKey" })?.value, let first = key.first
        else { return }
        var keyName: String?
        if let literal = plainString(at: first) {
            keyName = literal.text
        } else if code.isIdentifier(key.upperBound - 1) {
            let name = code.texts[key.upperBound - 1]
            keyName = name.hasSuffix("Key") && name.count > 3 ? String(name.dropLast(3)) : name
        }
        if let keyName, SecretNames.isStoredSecretKey(keyName) {
            report(.secretInUserDefaults, at: send.parts[0].label, "NSUserDefaults key \(keyName)")
        }
    }
}
