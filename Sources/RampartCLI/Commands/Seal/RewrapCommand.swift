import Foundation
import RampartSeal

/// `rampart rewrap FILE...`: moves sealed files to a new key without re-encrypting them.
public enum RewrapCommand: Command {
    /// `rewrap`.
    public static let name = "rewrap"
    /// One line for `rampart --help`.
    public static let abstract =
        "re-wrap sealed files' data keys (keyset rotation, new passphrase) without re-encrypting"
    /// The `--help` text.
    public static let help = """
        USAGE: rampart rewrap FILE... (--vault FILE (--vault-passphrase-file F | --vault-key-file F) --key NAME
                                       [--rotate] | --passphrase-file OLD [--new-passphrase-file NEW] [--kdf K])
                                      [--reencrypt] [--json]

        Rewrites only the header of each sealed FILE: its data key is unwrapped with the current key and wrapped
        again, and every segment is copied unchanged (docs/seal-format.md). With --vault, files move to the
        primary key of keyset NAME; --rotate first adds a new key to the keyset and makes it primary (the old keys
        stay, so files not yet re-wrapped still open; several rewraps may rotate one keyset at once). With
        --new-passphrase-file, files move from one passphrase to another. Each file is replaced through a
        temporary file and a rename, and under a keyset only once the keyset as stored opens the new header.

        Re-wrapping keeps each file's data key: whoever kept a copy of a file (or only its header) from before and
        holds the old key or passphrase can still decrypt the re-wrapped file. It protects files the holder of the
        old credential has not copied. --reencrypt instead opens each file and seals it again under a fresh data
        key (a full read and write; the plaintext stays in memory), after which the old credential opens nothing
        of the new file; with --passphrase-file alone it keeps the passphrase and changes the data key.

        OPTIONS:
          --vault FILE              the encrypted vault file holding the keyset
          --vault-passphrase-file F a file holding the vault's passphrase
          --vault-key-file F        or a file holding the vault's 32-byte key (raw or 64 hex digits)
          --key NAME                the keyset
          --rotate                  add a new primary key to the keyset before re-wrapping
          --passphrase-file OLD     a file holding the current passphrase
          --new-passphrase-file NEW a file holding the new passphrase
          --kdf K                   argon2id (default), scrypt or pbkdf2, for the new passphrase
          --reencrypt               seal each file again under a fresh data key instead of re-wrapping it
          --json                    print [{"file", "from", "to"}]
          -h, --help                show this help

        EXIT CODES:
          0  every FILE was re-wrapped (or already used the primary key)
          1  a FILE did not unwrap (wrong key or passphrase) or its header was edited; later files are skipped
          2  bad usage, a missing vault or keyset, a FILE that is not sealed or needs the other kind of key, or an
             I/O failure

        EXAMPLE:
          rampart rewrap backups/*.sealed --vault keys.vault --vault-passphrase-file vault-pass.txt --key backups \\
              --rotate
          backups/a.sealed: backups/v1 -> backups/v2
        """

    /// One file in the `--json` output.
    struct Entry: Encodable {
        let file: String
        let from: String
        let to: String
    }

    /// Runs the command.
    ///
    /// - Parameters:
    ///   - arguments: The arguments after `rewrap`.
    ///   - context: Streams and input.
    /// - Returns: `.success`, `.failure` for a wrong key or edited header, `.usage` for bad input.
    /// - Throws: ``UsageError`` for bad usage.
    public static func run(_ arguments: inout Arguments, context: CommandContext) async throws -> ExitCode {
        let json = arguments.flag("--json")
        let rotate = arguments.flag("--rotate")
        let reencrypt = arguments.flag("--reencrypt")
        let newPassphraseFile = try arguments.option("--new-passphrase-file")
        let kdf = try SealIO.kdf(arguments.option("--kdf"))
        let passphraseFile = try arguments.option("--passphrase-file")
        let vault = try SealIO.vaultOptions(&arguments)
        // The files first: without them nothing else matters.
        let files = try arguments.positionals()
        guard !files.isEmpty else { throw UsageError("give at least one sealed FILE to re-wrap, and its key options") }
        let oldKey: SealKey
        let newKey: SealKey
        var keyset: (keyset: Keyset, store: KeysetStore)?
        do {
            if newPassphraseFile != nil || (reencrypt && passphraseFile != nil) {
                guard !rotate else { throw UsageError("--rotate goes with --vault, not --passphrase-file") }
                oldKey = try await SealIO.key(
                    passphraseFile: passphraseFile, vault: vault, kdf: kdf, createIfMissing: false
                ).key
                // --reencrypt alone keeps the passphrase and draws a new data key and KDF salt.
                let newFile = newPassphraseFile ?? passphraseFile ?? ""
                newKey = .passphrase(try SealIO.readSecretFile(newFile, what: "new passphrase"), kdf: kdf)
            } else {
                guard let vault, passphraseFile == nil else {
                    throw UsageError(
                        "give --vault FILE (--vault-passphrase-file F | --vault-key-file F) --key NAME, or "
                            + "--passphrase-file OLD --new-passphrase-file NEW")
                }
                let keyName = vault.keyName
                let store = try SealIO.openVault(vault, create: false)
                let loaded = rotate ? try await store.rotate(keyName) : try await store.keyset(named: keyName)
                if rotate { context.printError("rampart rewrap: keyset \(keyName) now seals with \(loaded.primaryID)") }
                keyset = (loaded, store)
                oldKey = .keyset(loaded)
                newKey = .keyset(loaded)
            }
        } catch let error as SealError {
            return SealIO.report(error, command: name, context: context)
        }
        var entries: [Entry] = []
        for file in files {
            let url = URL(fileURLWithPath: file)
            do {
                var source = try SealIO.source(file, context: context).source
                let before = try SealedStream.readHeader(from: &source)
                let after: SealHeader
                if let (keyset, store) = keyset {
                    let staged =
                        reencrypt
                        ? try SealedFile.stageReencrypt(at: url, oldKey: .keyset(keyset), newKey: .keyset(keyset))
                        : try SealedFile.stageRewrap(at: url, using: keyset)
                    after = try await store.commit(staged)
                } else if reencrypt {
                    let staged = try SealedFile.stageReencrypt(at: url, oldKey: oldKey, newKey: newKey)
                    try staged.commit()
                    after = staged.header
                } else {
                    after = try SealedFile.rewrap(at: url, oldKey: oldKey, newKey: newKey)
                }
                let entry = Entry(file: file, from: describe(before), to: describe(after))
                entries.append(entry)
                if !json { context.print("\(file): \(entry.from) -> \(entry.to)") }
            } catch let error as SealError {
                context.printError("rampart rewrap: \(file): \(error.description)")
                return error.isIntegrityFailure ? .failure : .usage
            }
        }
        if json { try context.printJSON(entries) }
        return .success
    }

    private static func describe(_ header: SealHeader) -> String {
        header.keyID ?? header.passwordKDF.map { "passphrase (\($0))" } ?? "?"
    }
}
