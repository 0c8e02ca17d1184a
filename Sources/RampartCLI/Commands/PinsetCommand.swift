import Foundation
import RampartChainVerification
import RampartCrypto
import RampartPinning
import RampartTLS
import RampartX509

/// `rampart pinset (HOST[:PORT] | CHAIN --host NAME) --format plist|trustkit|okhttp|android|json`: a pin
/// configuration from a verified chain, for every platform an app ships on.
public enum PinsetCommand: Command {
    /// `pinset`.
    public static let name = "pinset"
    /// One line for `rampart --help`.
    public static let abstract =
        "write a pin set (NSPinnedDomains, TrustKit, OkHttp, Android or Rampart JSON) from a verified chain"
    /// The `--help` text.
    public static let help = """
        USAGE: rampart pinset sign IN.json OUT --key ED25519.pem --version N --expires RFC3339 [--bundle-id B]
                              [--at RFC3339]
               rampart pinset verify SIGNED --public-key PUB.pem [--current-version N] [--bundle-id B]
                              [--at RFC3339] [--json]
               rampart pinset (HOST[:PORT] | CHAIN.pem --host NAME) --format plist|trustkit|okhttp|android|json
                              [--ca ROOT.pem]... [--include-subdomains] [--leaf] [--backup-pin PIN]...
                              [--merge-into Info.plist] [--servername NAME] [--at RFC3339]
                              [--policy apple|webpki] [--timeout S] [--json]

        Evaluates the chain (from a live server or a file) and, when it is trusted, prints a pin configuration for
        the host built from the *verified* path. By default it pins the CA keys — every intermediate and the root —
        as Apple advises (CA keys, at least two pins) in NSPinnedCAIdentities; with --leaf it pins the server's own
        key in NSPinnedLeafIdentities instead. Formats that cannot express a rule say so on stderr (and in a comment
        where the format has comments), or refuse with the reason, instead of writing something subtly different:
        TrustKit, OkHttp and Android match pins against every certificate of the chain (no CA/leaf split), TrustKit
        and Android include subdomains at every depth, TrustKit refuses a single enforced pin and IP hosts, OkHttp
        has no expiration or report-only mode, Android no report-only mode.

        SIGNED UPDATES: `pinset sign` signs the pins of a Rampart JSON file (its pinnedDomains, an optional "deny" list
        of SPKI pins refused anywhere, and its "bundleId" unless --bundle-id is given) with an Ed25519 key
        (`openssl genpkey -algorithm ed25519`), as version N expiring at --expires, into a RAMPART-PINSET-V1
        envelope an app adopts without a release. `pinset verify` checks one as the app does — the signature over
        the exact bytes by a shipped key (--public-key, repeatable), the bundle id, a version above
        --current-version (default 0), not expired at --at — and exits 0 (adopt) or 1 (refuse, with the reason:
        malformed, unknownSigner, badSignature, wrongApp, notNewer, expired, notYetValid, invalidPins).

        OPTIONS:
          --format F            plist (an Info.plist NSAppTransportSecurity → NSPinnedDomains fragment), trustkit
                                (TrustKit's TSKConfiguration dictionary), okhttp (Kotlin CertificatePinner), android
                                (network_security_config.xml <pin-set>) or json (Rampart JSON); --json alone means
                                --format json
          --host NAME           with a chain file: the host name to pin
          --include-subdomains  set NSIncludesSubdomains (covers exactly one more label)
          --leaf                pin the leaf key instead of the CA keys
          --backup-pin PIN      also pin PIN (sha256/BASE64 or BASE64: the SPKI SHA-256 of a spare key or another
                                CA, kept offline), in the same list (repeatable)
          --merge-into FILE     with --format plist: write the host's NSPinnedDomains entry into FILE (an Info.plist,
                                XML or binary) in place, as XML: that domain's entry is replaced, every other
                                domain and key is kept; the previous file is kept as FILE.bak (replaced on each
                                merge); both are written atomically (temporary file, fsync, rename)
          --ca FILE             trust the root(s) in FILE instead of the system trust store (repeatable)
          --servername NAME     for a live server: the SNI name and host to pin
          --at TIME             validate at this RFC 3339 time instead of now
          --timeout S           seconds allowed for a live connection (default 10)
          --policy P            the evaluation before pinning: apple (default: what iOS accepts) or webpki
          -h, --help            show this help

        EXIT CODES:
          0  the configuration was printed, or merged into the --merge-into file (a warning on stderr when it holds a
             single pin)
          1  the chain is not trusted, so there is nothing safe to pin (the reason is printed)
          2  bad usage or input

        EXAMPLE:
          rampart pinset chain.pem --host api.example.com --ca root.pem --format plist --include-subdomains
        """

    /// Runs the command.
    ///
    /// - Parameters:
    ///   - arguments: The arguments after `pinset`.
    ///   - context: Streams, input and clock.
    /// - Returns: `.success` with the configuration printed, `.failure` when the chain is not trusted.
    /// - Throws: ``UsageError`` for bad usage or input.
    public static func run(_ arguments: inout Arguments, context: CommandContext) async throws -> ExitCode {
        switch arguments.leadingWord(in: ["sign", "verify"]) {
        case "sign": return try sign(&arguments, context: context)
        case "verify": return try verify(&arguments, context: context)
        default: break
        }
        let json = arguments.flag("--json")
        let includeSubdomains = arguments.flag("--include-subdomains")
        let leaf = arguments.flag("--leaf")
        let formatName = try arguments.option("--format") ?? (json ? "json" : nil)
        let formats = PinConfiguration.Format.all.map(\.description).joined(separator: ", ")
        guard let formatName else { throw UsageError("give --format, one of \(formats)") }
        guard let format = PinConfiguration.Format(named: formatName) else {
            throw UsageError("--format must be one of \(formats); got '\(formatName)'")
        }
        let backups = try arguments.options("--backup-pin").map { text in
            do {
                return try Pin(kind: .spkiSHA256, base64: text.hasPrefix("sha256/") ? String(text.dropFirst(7)) : text)
            } catch {
                throw UsageError(
                    "--backup-pin '\(text.prefix(60))' is not a pin: give sha256/BASE64 of a SubjectPublicKeyInfo "
                        + "(rampart pins FILE prints them)")
            }
        }
        let mergeInto = try arguments.option("--merge-into")
        if mergeInto != nil && format != .plist { throw UsageError("--merge-into works with --format plist only") }
        let host = try arguments.option("--host")
        let serverName = try arguments.option("--servername")
        let trust = try TrustInputs.anchors(&arguments, context: context)
        let time = try TrustInputs.time(&arguments, context: context)
        let timeout = try TrustInputs.timeout(&arguments)
        let positionals = try arguments.positionals()
        guard positionals.count == 1, let target = positionals.first else {
            throw UsageError("give one HOST[:PORT] or one chain file")
        }
        let source = try await TrustInputs.chain(
            positional: target, host: host, serverName: serverName, timeout: timeout, context: context)
        let verdict = try source.verdict(trust, at: time)
        guard let path = verdict.path else {
            context.printError(
                "rampart pinset: the chain is not trusted (policy \(trust.policy)), so its keys must not be pinned: "
                    + (verdict.failure?.description ?? ""))
            return .failure
        }
        var policy: PinPolicy
        do {
            policy = try PinPolicy.suggested(
                for: source.host, path: path, pinLeaf: leaf, includesSubdomains: includeSubdomains)
        } catch let error as PinningError {
            throw UsageError("\(error.reason)")
        }
        for pin in backups where !policy.allPins.contains(pin) {
            if leaf {
                policy.leafPins = (policy.leafPins ?? []) + [pin]
            } else {
                policy.caPins = (policy.caPins ?? []) + [pin]
            }
        }
        let pinCount = policy.allPins.count
        if pinCount < 2 {
            context.printError(
                "rampart pinset: warning: only one pin; if that key changes the app cannot connect. Add a backup pin "
                    + "(the key of a spare certificate or another CA) before shipping.")
        }
        let configuration = try PinConfiguration(policies: [policy])
        if let mergeInto { return try merge(configuration, into: mergeInto, context: context) }
        let export: PinConfiguration.Export
        do {
            export = try configuration.export(as: format)
        } catch let error as PinningError {
            throw UsageError("\(error.reason)")
        }
        for note in export.notes { context.printError("rampart pinset: note: \(note)") }
        let text = String(decoding: export.data, as: UTF8.self)
        context.standardOutput(text.hasSuffix("\n") ? text : text + "\n")
        return .success
    }

    /// `--merge-into FILE`: the policy's `NSPinnedDomains` entry merged into FILE in place, the old file kept as
    /// `FILE.bak`; both written atomically (temporary file, flush, rename, flush of the directory).
    static func merge(_ configuration: PinConfiguration, into path: String, context: CommandContext) throws -> ExitCode
    {
        guard let existing = FileManager.default.contents(atPath: path), let mode = FileReplacement.mode(of: path)
        else { throw UsageError("cannot read \(path) to merge into; give the app's Info.plist") }
        let merged: Data
        do {
            merged = try configuration.plistData(mergingInto: existing)
        } catch let error as PinningError {
            throw UsageError("\(path): \(error.reason)")
        }
        // A symbolic link (an Info.plist shared between targets) keeps pointing at the merged file.
        let target = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        let backup = path + ".bak"
        do {
            try FileReplacement.replace(backup, with: existing, mode: mode)
            try FileReplacement.replace(target, with: merged, mode: mode)
        } catch let error as FileReplacement.Failure {
            throw UsageError("\(error.description); \(path) is unchanged")
        }
        let domains = configuration.policies.map(\.domain).joined(separator: ", ")
        context.print("merged the pins of \(domains) into \(path) (NSPinnedDomains); the previous file is \(backup)")
        return .success
    }

    /// `pinset sign IN.json OUT --key ED25519.pem --version N --expires RFC3339 [--bundle-id B] [--at T]`.
    static func sign(_ arguments: inout Arguments, context: CommandContext) throws -> ExitCode {
        let keyPath = try arguments.requiredOption("--key")
        guard let version = UInt64(try arguments.requiredOption("--version")), version > 0 else {
            throw UsageError("--version must be a whole number above 0, above the version the apps adopted last")
        }
        guard let expires = try arguments.timeOption("--expires") else {
            throw UsageError("give --expires RFC3339: when apps stop adopting this set (e.g. 2027-03-01T00:00:00Z)")
        }
        let bundleOption = try arguments.option("--bundle-id")
        let time = try TrustInputs.time(&arguments, context: context)
        let positionals = try arguments.positionals()
        guard positionals.count == 2 else { throw UsageError("give the Rampart JSON pins to sign and the output file") }
        guard let data = FileManager.default.contents(atPath: positionals[0]) else {
            throw UsageError("\(positionals[0]): cannot read the pins to sign")
        }
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let domains = object["pinnedDomains"]
        else { throw UsageError("\(positionals[0]) is not Rampart JSON with \"pinnedDomains\"") }
        let unknown = Set(object.keys).subtracting(["version", "pinnedDomains", "bundleId", "deny"])
        guard unknown.isEmpty else {
            throw UsageError(
                "\(positionals[0]): unknown key \(unknown.sorted().joined(separator: ", ")); a pin set to sign holds "
                    + "version, pinnedDomains, bundleId and deny")
        }
        guard let bundleID = bundleOption ?? object["bundleId"] as? String else {
            throw UsageError("name the app: --bundle-id B, or \"bundleId\" in \(positionals[0])")
        }
        guard let keyText = try? String(contentsOfFile: keyPath, encoding: .utf8) else {
            throw UsageError("\(keyPath): cannot read the signing key")
        }
        do {
            let key = try Ed25519PrivateKey(pemRepresentation: keyText)
            let configuration = try PinConfiguration(
                jsonData: try JSONSerialization.data(withJSONObject: ["version": 1, "pinnedDomains": domains]))
            guard let denyTexts = (object["deny"] ?? [String]()) as? [String] else {
                throw UsageError("\"deny\" must be an array of SPKI SHA-256 pins (base64)")
            }
            let deny = try denyTexts.map { try Pin(kind: .spkiSHA256, base64: $0) }
            let envelope = try SignedPinSet.sign(
                configuration, deny: deny, bundleID: bundleID, version: version, issuedAt: time, expiresAt: expires,
                key: key)
            do {
                try Data(envelope).write(to: URL(fileURLWithPath: positionals[1]), options: .atomic)
            } catch {
                throw UsageError("cannot write \(positionals[1]); check that its directory exists and is writable")
            }
            context.print(
                "signed pin set version \(version) for \(bundleID) (\(configuration.policies.count) domains, "
                    + "\(deny.count) denied keys), expires \(expires.formatted(.iso8601)), key id "
                    + "\(SignedPinSet.keyID(of: key.publicKey)): \(positionals[1])")
            return .success
        } catch let error as CryptoError {
            throw UsageError("\(keyPath): \(error.reason)")
        } catch let error as PinningError {
            throw UsageError("\(positionals[0]): \(error.reason)")
        }
    }

    struct VerifyJSON: Encodable {
        let adopted: Bool
        let reason: String?
        let message: String
        let version: UInt64?
        let bundleId: String?
        let expiresAt: Date?
        let keyId: String?
        let domains: [String]?
    }

    /// `pinset verify SIGNED --public-key PUB.pem [--current-version N] [--bundle-id B] [--at T] [--json]`.
    static func verify(_ arguments: inout Arguments, context: CommandContext) throws -> ExitCode {
        let json = arguments.flag("--json")
        let keyPaths = try arguments.options("--public-key")
        guard !keyPaths.isEmpty else { throw UsageError("give --public-key PUB.pem: the signing key the app ships") }
        let floorText = try arguments.option("--current-version") ?? "0"
        guard let floor = UInt64(floorText) else { throw UsageError("--current-version must be a whole number") }
        let bundleOption = try arguments.option("--bundle-id")
        let time = try TrustInputs.time(&arguments, context: context)
        let positionals = try arguments.positionals()
        guard positionals.count == 1, let path = positionals.first else {
            throw UsageError("give one signed pin set to verify")
        }
        guard let envelope = FileManager.default.contents(atPath: path) else {
            throw UsageError("\(path): cannot read the signed pin set")
        }
        let keys = try keyPaths.map { keyPath -> Ed25519PublicKey in
            guard let text = try? String(contentsOfFile: keyPath, encoding: .utf8),
                let key = try? Ed25519PublicKey(pemRepresentation: text)
            else { throw UsageError("\(keyPath) is not an Ed25519 PUBLIC KEY (openssl pkey -pubout)") }
            return key
        }
        // Without --bundle-id the set's app is reported rather than checked; every other check applies.
        let verdict = PinSetVerifier(bundleID: bundleOption, signers: keys).verify(
            Array(envelope), floor: floor, at: time)
        switch verdict {
        case .adopt(let set):
            if json {
                try context.printJSON(
                    VerifyJSON(
                        adopted: true, reason: nil, message: "adopt", version: set.version, bundleId: set.bundleID,
                        expiresAt: set.expiresAt, keyId: set.keyID, domains: set.configuration.policies.map(\.domain)))
            } else {
                context.print(
                    "adopt: version \(set.version) for \(set.bundleID), signed by \(set.keyID), expires "
                        + "\(set.expiresAt.formatted(.iso8601)); pins for "
                        + set.configuration.policies.map(\.domain).joined(separator: ", "))
            }
            return .success
        case .refuse(let refusal):
            if json {
                try context.printJSON(
                    VerifyJSON(
                        adopted: false, reason: refusal.reason.description, message: refusal.message, version: nil,
                        bundleId: nil, expiresAt: nil, keyId: nil, domains: nil))
            } else {
                context.print("refuse: \(refusal)")
            }
            return .failure
        }
    }
}
