import Foundation
import RampartSeal

/// `rampart seal IN OUT`: streaming authenticated encryption of a file or standard input.
public enum SealCommand: Command {
    /// `seal`.
    public static let name = "seal"
    /// One line for `rampart --help`.
    public static let abstract = "encrypt a file of any size (AES-256-GCM segments, passphrase or vault key)"
    /// The `--help` text.
    public static let help = """
        USAGE: rampart seal IN OUT (--passphrase-file F [--kdf argon2id|scrypt|pbkdf2]
                                    | --vault FILE (--vault-passphrase-file F | --vault-key-file F) --key NAME)
                                   [--algorithm aes-256-gcm|chacha20-poly1305] [--segment-size N] [--json]

        Encrypts IN into OUT in the Rampart sealed format (docs/seal-format.md): a header (magic, version, cipher,
        segment size, salt, nonce prefix, key stanza, MAC) and authenticated segments, in constant memory. Every
        file gets a fresh random data key, wrapped either by a key derived from a passphrase (Argon2id by default,
        OWASP's 19 MiB, t=2, p=1; the KDF and its costs are stored in the header) or by the primary key of keyset
        NAME kept in an encrypted vault file (envelope encryption: the header names the key id, e.g. NAME/v1; the
        vault and the keyset are created when missing). '-' is standard input or output. OUT is written
        to a temporary file and renamed into place when complete. A progress bar is drawn on standard error when it
        is a terminal.

        OPTIONS:
          --passphrase-file F  a file holding the passphrase (one trailing newline is ignored)
          --vault FILE         an encrypted vault file holding keysets (created when missing)
          --vault-passphrase-file F
                               a file holding the vault's passphrase
          --vault-key-file F   or a file holding the vault's 32-byte key (raw or 64 hex digits)
          --key NAME           the keyset in the vault whose primary key wraps the data key
          --kdf K              argon2id (default), scrypt (N=2^17, r=8, p=1) or pbkdf2 (HMAC-SHA256, 600,000)
          --algorithm A        aes-256-gcm (default) or chacha20-poly1305
          --segment-size N     plaintext bytes per segment: 256 … 4M, default 64K
          --json               print {"algorithm", "segmentSize", "keySource", "plaintextBytes"} on stdout
          -h, --help           show this help

        EXIT CODES:
          0  OUT was written
          1  the vault passphrase or key file is wrong
          2  bad usage, an unreadable input or passphrase file, or a write failure (nothing is left at OUT)

        EXAMPLE:
          echo 'correct horse battery staple' > pass.txt
          rampart seal backup.tar backup.tar.sealed --passphrase-file pass.txt
          rampart open backup.tar.sealed backup.tar --passphrase-file pass.txt
          rampart seal db.dump db.sealed --vault keys.vault --vault-passphrase-file vault-pass.txt --key backups
        """

    /// The `--json` output.
    struct Summary: Encodable {
        let algorithm: String
        let segmentSize: Int
        let keySource: String
        let plaintextBytes: UInt64
    }

    /// Runs the command.
    ///
    /// - Parameters:
    ///   - arguments: The arguments after `seal`.
    ///   - context: Streams and input.
    /// - Returns: `.success`, or `.usage` for bad input.
    /// - Throws: ``UsageError`` for bad usage.
    public static func run(_ arguments: inout Arguments, context: CommandContext) async throws -> ExitCode {
        let json = arguments.flag("--json")
        let kdf = try SealIO.kdf(arguments.option("--kdf"))
        let options = SealOptions(
            algorithm: try SealIO.algorithm(arguments.option("--algorithm")),
            segmentSize: try SealIO.segmentSize(arguments.option("--segment-size")))
        let resolved: SealIO.ResolvedKey
        do {
            resolved = try await SealIO.key(&arguments, kdf: kdf, createIfMissing: true)
        } catch let error as SealError {
            return SealIO.report(error, command: name, context: context)
        }
        let paths = try arguments.positionals()
        guard paths.count == 2 else { throw UsageError("give IN and OUT ('-' for standard input or output)") }
        guard !(json && paths[1] == "-") else { throw UsageError("--json cannot be used when OUT is '-'") }
        var (source, size) = try SealIO.source(paths[0], context: context)
        let bar = ProgressBar(label: "sealing", total: size, context: context, quiet: paths[1] == "-" && json)
        var done: UInt64 = 0
        let header: SealHeader
        do {
            let key = resolved.key
            if paths[1] == "-" {
                if SealIO.isProcess(context) {
                    var sink = FileDescriptorSink(descriptor: 1)
                    header = try SealedStream.seal(from: &source, to: &sink, key: key, options: options) {
                        done = $0
                        bar.update($0)
                    }
                } else {
                    var sink = StandardOutputSink(context: context)
                    header = try SealedStream.seal(from: &source, to: &sink, key: key, options: options) {
                        done = $0
                        bar.update($0)
                    }
                }
                // A stream cannot be taken back: say so (exit 2) if the stored keyset no longer opens it.
                try await resolved.store?.checkOpens(header)
            } else {
                let staged: SealedFile.Staged
                if paths[0] == "-" {
                    staged = try SealedFile.stageSeal(
                        from: &source, to: URL(fileURLWithPath: paths[1]), key: key, options: options
                    ) {
                        done = $0
                        bar.update($0)
                    }
                } else {
                    // File to file: SealedFile seals the segments on several threads.
                    staged = try SealedFile.stageSeal(
                        URL(fileURLWithPath: paths[0]), to: URL(fileURLWithPath: paths[1]), key: key,
                        options: options
                    ) {
                        done = $0
                        bar.update($0)
                    }
                }
                try await resolved.commit(staged)
                header = staged.header
            }
        } catch let error as SealError {
            return SealIO.report(error, command: name, context: context)
        }
        bar.finish(done)
        if json {
            try context.printJSON(
                Summary(
                    algorithm: header.algorithm.rawValue, segmentSize: header.segmentSize,
                    keySource: header.keyID.map { "key \($0)" } ?? header.passwordKDF?.description ?? "?",
                    plaintextBytes: done))
        }
        return .success
    }
}
