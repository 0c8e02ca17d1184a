import Foundation

/// Whether a literal looks like a real secret rather than a placeholder, a word or a sentence.
enum Entropy {
    /// The shortest literal considered (shorter ones are passwords typed in tests or placeholders).
    static let minimumLength = 16
    /// The Shannon entropy, in bits per character, a secret's characters must reach.
    static let minimumBitsPerCharacter = 3.5

    /// The Shannon entropy of `text`'s characters, in bits per character.
    static func bitsPerCharacter(_ text: String) -> Double {
        var counts: [Character: Int] = [:]
        for character in text { counts[character, default: 0] += 1 }
        let total = Double(text.count)
        guard total > 0 else { return 0 }
        return counts.values.reduce(0) { sum, count in
            let p = Double(count) / total
            return sum - p * log2(p)
        }
    }

    /// Whether `text` is long, has no spaces, mixes at least two of lower case, upper case and digits, is not a
    /// placeholder (`YOUR_API_KEY`, `<token>`, `$(API_KEY)`) and has high entropy.
    static func looksLikeSecret(_ text: String) -> Bool {
        guard text.count >= minimumLength, !text.contains(" "), !text.contains("\\(") else { return false }
        let lower = text.contains { $0.isLowercase }
        let upper = text.contains { $0.isUppercase }
        let digit = text.contains { $0.isNumber }
        // Real keys mix letters and digits; a camelCase word (`kSecClassGenericPassword`) is a name, not a key.
        guard digit, lower || upper else { return false }
        let placeholder = ["your", "xxxx", "<", "$(", "example", "placeholder", "changeme", "replace"]
        let lowered = text.lowercased()
        guard !placeholder.contains(where: { lowered.contains($0) }) else { return false }
        return bitsPerCharacter(text) >= minimumBitsPerCharacter
    }
}
