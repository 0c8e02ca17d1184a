/// Trust bypasses behind an opt-in: AFNetworking's `#ifdef _AFNETWORKING_ALLOW_INVALID_SSL_CERTIFICATES_`,
/// SDWebImage's `SDWebImageDownloaderAllowInvalidSSLCertificates` option, an `allowInvalidCertificates` property.
/// Library code that answers without evaluation only when asked to is quiet where it answers; turning the opt-in on
/// (`#define`, `= YES`, `allowInvalidCertificates: true`) is the finding.
extension SourceRules {
    /// Whether a name says it allows invalid, untrusted or self-signed certificates.
    static func isInvalidCertificateOptIn(_ name: String) -> Bool {
        let words = SecretNames.words(name)
        let allows = words.contains { ["allow", "allows", "accept", "accepts", "ignore", "ignores"].contains($0) }
        let invalid =
            words.contains { ["invalid", "untrusted", "insecure", "selfsigned"].contains($0) }
            || zip(words, words.dropFirst()).contains { $0 == "self" && $1 == "signed" }
        let certificates = words.contains {
            ["ssl", "tls", "certificate", "certificates", "cert", "certs"].contains($0)
        }
        return allows && invalid && certificates
    }

    /// Whether the answer at `index` is guarded by such an opt-in earlier in its body (`#ifdef NAME`,
    /// `if (options & NAME)`, `if allowInvalidCertificates`).
    func isGuardedByInvalidCertificateOptIn(_ index: Int, in body: Range<Int>) -> Bool {
        (body.lowerBound..<index).contains { code.isIdentifier($0) && Self.isInvalidCertificateOptIn(code.texts[$0]) }
    }

    /// The opt-in turned on: `#define NAME`, `NAME = YES`, `self.allowInvalidCertificates = true`,
    /// `Policy(allowInvalidCertificates: true)`.
    mutating func checkOptInTurnedOn(_ index: Int) {
        // Not `1`: `NAME = 1 << 6` declares an option's value.
        let on: Set<String> = ["YES", "true", "TRUE"]
        let defined = index > 0 && code.tokens[index - 1].kind == .poundKeyword && code.texts[index - 1] == "#define"
        let assigned = code.isOperator(index + 1, "=") && on.contains(code.text(index + 2))
        let labelled =
            code.isPunctuation(index + 1, ":") && on.contains(code.text(index + 2))
            && (code.isPunctuation(index - 1, "(") || code.isPunctuation(index - 1, ","))
        if defined || assigned || labelled {
            report(.trustWithoutEvaluation, at: index, "\(code.texts[index]) turns certificate evaluation off")
        }
    }
}
