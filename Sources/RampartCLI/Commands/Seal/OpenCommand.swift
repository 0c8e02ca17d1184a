import Foundation
import RampartSeal

/// `rampart open IN OUT`: checks and decrypts a sealed file.
public enum OpenCommand: Command {
    /// `open`.
    public static let name = "open"
    /// One line for `rampart --help`.
    public static let abstract = "decrypt a sealed file; any tampering fails naming the segment, leaving no output"
    /// The `--help` text.
    public static let help = """
        USAGE: rampart open IN OUT (--passphrase-file F
                                    | --vault FILE (--vault-passphrase-file F | --vault-key-file F) --key NAME)
                                   [--json]

        Checks and decrypts IN, a file written by 'rampart seal', into OUT. The KDF, its costs, the cipher and
        the segment size come from IN's header; with a vault, the key id in the header picks the keyset's key, so
        files sealed before a rotation still open. Each segment is authenticated before it is written; truncation,
        reordering, appended data, segments from another file and header edits are all refused. OUT is written to
        a temporary file and renamed into place only when every segment verified, so a failure leaves no partial
        plaintext at OUT. With OUT '-' the verified segments stream to standard output as they are checked (a
        failure then ends the stream early, with exit status 1). '-' as IN is standard input.

        OPTIONS:
          --passphrase-file F  a file holding the passphrase (one trailing newline is ignored)
          --vault FILE         the encrypted vault file holding the keyset
          --vault-passphrase-file F
                               a file holding the vault's passphrase
          --vault-key-file F   or a file holding the vault's 32-byte key (raw or 64 hex digits)
          --key NAME           the keyset whose key wrapped the file's data key
          --json               print {"algorithm", "segmentSize", "keySource", "sealedBytes"} on stdout
          -h, --help           show this help

        EXIT CODES:
          0  every segment verified and OUT was written
          1  wrong passphrase or key, or a tampered, truncated or extended file: stderr names the cause and the
             failing segment; OUT is untouched
          2  bad usage, not a sealed file, the wrong kind of key (a passphrase for a file sealed with a vault key,
             or the reverse: stderr says which to give), an unsupported version, KDF costs in the header above
             256 MiB of memory or 1 GiB of work (limitExceeded: refused before deriving, since the header cannot be
             checked until the key is), a missing vault or keyset, or an I/O failure

        EXAMPLE:
          rampart open backup.tar.sealed backup.tar --passphrase-file pass.txt
          rampart open: segmentTampered: segment 3 does not authenticate: it was modified, reordered or taken
          from another file; discard the output        (exit 1, backup.tar not created)
        """

    /// The `--json` output.
    struct Summary: Encodable {
        let algorithm: String
        let segmentSize: Int
        let keySource: String
        let sealedBytes: UInt64
    }

    /// Runs the command.
    ///
    /// - Parameters:
    ///   - arguments: The arguments after `open`.
    ///   - context: Streams and input.
    /// - Returns: `.success`, `.failure` for a wrong key or tampering, `.usage` for bad input.
    /// - Throws: ``UsageError`` for bad usage.
    public static func run(_ arguments: inout Arguments, context: CommandContext) async throws -> ExitCode {
        let json = arguments.flag("--json")
        let key: SealKey
        do {
            key = try await SealIO.key(&arguments, kdf: .argon2id, createIfMissing: false).key
        } catch let error as SealError {
            return SealIO.report(error, command: name, context: context)
        }
        let paths = try arguments.positionals()
        guard paths.count == 2 else { throw UsageError("give IN and OUT ('-' for standard input or output)") }
        guard !(json && paths[1] == "-") else { throw UsageError("--json cannot be used when OUT is '-'") }
        var (source, size) = try SealIO.source(paths[0], context: context)
        let bar = ProgressBar(label: "opening", total: size, context: context, quiet: false)
        var done: UInt64 = 0
        let header: SealHeader
        do {
            if paths[1] == "-", SealIO.isProcess(context) {
                var sink = FileDescriptorSink(descriptor: 1)
                header = try SealedStream.open(from: &source, to: &sink, key: key) {
                    done = $0
                    bar.update($0)
                }
            } else if paths[1] == "-" {
                var sink = StandardOutputSink(context: context)
                header = try SealedStream.open(from: &source, to: &sink, key: key) {
                    done = $0
                    bar.update($0)
                }
            } else if paths[0] == "-" {
                header = try SealedFile.open(from: &source, to: URL(fileURLWithPath: paths[1]), key: key) {
                    done = $0
                    bar.update($0)
                }
            } else {
                // File to file: SealedFile opens the segments on several threads.
                header = try SealedFile.open(
                    URL(fileURLWithPath: paths[0]), to: URL(fileURLWithPath: paths[1]), key: key
                ) {
                    done = $0
                    bar.update($0)
                }
            }
        } catch let error as SealError {
            bar.finish(done)
            return SealIO.report(error, command: name, context: context)
        }
        bar.finish(done)
        if json {
            try context.printJSON(
                Summary(
                    algorithm: header.algorithm.rawValue, segmentSize: header.segmentSize,
                    keySource: header.keyID.map { "key \($0)" } ?? header.passwordKDF?.description ?? "?",
                    sealedBytes: done))
        }
        return .success
    }
}
