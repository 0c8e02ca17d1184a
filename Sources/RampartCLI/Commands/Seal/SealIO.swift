import Foundation
import RampartSeal
import RampartVault

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What `rampart seal` and `rampart open` share: reading the key options, the `-` streams, the progress bar and the
/// mapping of ``SealError`` to exit codes. No cryptography happens here.
enum SealIO {
    /// Reads `--passphrase-file`, or `--vault FILE (--vault-passphrase-file F | --vault-key-file F) --key NAME`,
    /// and returns the key.
    ///
    /// With the vault, the key is the keyset NAME kept in the vault; `createIfMissing` creates both the vault file
    /// and the keyset when absent (sealing), and opening requires both to exist.
    static func key(
        _ arguments: inout Arguments,
        kdf: PasswordKDF,
        createIfMissing: Bool
    ) async throws -> ResolvedKey {
        let passphraseFile = try arguments.option("--passphrase-file")
        let vault = try vaultOptions(&arguments)
        return try await key(passphraseFile: passphraseFile, vault: vault, kdf: kdf, createIfMissing: createIfMissing)
    }

    /// A key and, for a keyset, the store holding it, which vouches for a file before it replaces another.
    struct ResolvedKey {
        let key: SealKey
        let store: KeysetStore?

        /// Moves a staged file into place; under a keyset, only after the keyset as stored now opens its header.
        func commit(_ staged: SealedFile.Staged) async throws {
            if let store {
                try await store.commit(staged)
            } else {
                try staged.commit()
            }
        }
    }

    /// The key named by options already read: a passphrase file, or a vault and keyset.
    static func key(
        passphraseFile: String?,
        vault: VaultOptions?,
        kdf: PasswordKDF,
        createIfMissing: Bool
    ) async throws -> ResolvedKey {
        switch (passphraseFile, vault) {
        case (let file?, nil):
            return ResolvedKey(key: .passphrase(try readSecretFile(file, what: "passphrase"), kdf: kdf), store: nil)
        case (nil, let vault?):
            let store = try openVault(vault, create: createIfMissing)
            let keyset = try await store.keyset(named: vault.keyName, createIfMissing: createIfMissing)
            return ResolvedKey(key: .keyset(keyset), store: store)
        case (nil, nil):
            throw UsageError(
                "give --passphrase-file F, or --vault FILE (--vault-passphrase-file F | --vault-key-file F) --key NAME")
        case (.some, .some):
            throw UsageError("give either --passphrase-file or --vault, not both")
        }
    }

    /// Where a keyset lives: `--vault FILE`, its credential and `--key NAME`.
    struct VaultOptions {
        let path: String
        let passphraseFile: String?
        let keyFile: String?
        let keyName: String
    }

    /// Reads `--vault FILE (--vault-passphrase-file F | --vault-key-file F) --key NAME`; nil when none is given.
    static func vaultOptions(_ arguments: inout Arguments) throws -> VaultOptions? {
        let path = try arguments.option("--vault")
        let passphraseFile = try arguments.option("--vault-passphrase-file")
        let keyFile = try arguments.option("--vault-key-file")
        let keyName = try arguments.option("--key")
        guard let path else {
            guard passphraseFile == nil, keyFile == nil, keyName == nil else {
                throw UsageError("--vault-passphrase-file, --vault-key-file and --key go with --vault FILE")
            }
            return nil
        }
        guard (passphraseFile == nil) != (keyFile == nil) else {
            throw UsageError("--vault needs exactly one of --vault-passphrase-file F or --vault-key-file F")
        }
        guard let keyName else { throw UsageError("--vault needs --key NAME, the keyset to use") }
        return VaultOptions(path: path, passphraseFile: passphraseFile, keyFile: keyFile, keyName: keyName)
    }

    /// Opens a file vault with its passphrase file or key file, as a ``KeysetStore``.
    static func openVault(_ vault: VaultOptions, create: Bool) throws -> KeysetStore {
        let path = vault.path
        do {
            let credential: VaultCredential
            if let keyFile = vault.keyFile {
                credential = try VaultCredential.keyFile(at: keyFile)
            } else {
                let bytes = try readSecretFile(vault.passphraseFile ?? "", what: "vault passphrase")
                credential = try .passphrase(String(decoding: bytes, as: UTF8.self))
            }
            let backend = try FileVault.open(at: path, credential: credential, create: create)
            return KeysetStore(Vault(backend: backend))
        } catch let error as VaultError where error.code == .authFailed {
            throw SealError.wrongKey("the vault \(path) did not open: \(error.reason)")
        } catch let error as VaultError where error.code == .itemNotFound {
            throw UsageError("there is no vault at \(path); seal a file with --vault first to create it")
        } catch let error as VaultError {
            throw UsageError("the vault \(path) could not be opened: \(error)")
        }
    }

    /// A secret file's bytes without one trailing newline (`\n` or `\r\n`), as `echo secret > file` writes it.
    static func readSecretFile(_ path: String, what: String) throws -> [UInt8] {
        guard var bytes = FileManager.default.contents(atPath: path).map(Array.init) else {
            throw UsageError("cannot read the \(what) file \(path); check the path and permissions")
        }
        if bytes.last == UInt8(ascii: "\n") { bytes.removeLast() }
        if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
        guard !bytes.isEmpty else { throw UsageError("the \(what) file \(path) is empty") }
        return bytes
    }

    /// Whether the command talks to the real process streams (not a test's captured ones).
    static func isProcess(_ context: CommandContext) -> Bool { context === CommandContext.process }

    /// The input: standard input for `-`, else the file.
    static func source(_ path: String, context: CommandContext) throws -> (source: any ByteSource, size: UInt64?) {
        if path == "-" {
            if isProcess(context) { return (FileDescriptorSource(descriptor: 0), nil) }
            return (MemorySource(Array(context.readStandardInput())), nil)
        }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw UsageError("cannot read \(path); check the path and permissions")
        }
        return (HandleSource(handle: handle), SealedFile.size(of: URL(fileURLWithPath: path)))
    }

    /// Maps a ``SealError`` to the CLI contract: integrity verdicts exit 1, everything else 2.
    static func report(_ error: SealError, command: String, context: CommandContext) -> ExitCode {
        // A secret store's own error says what to do about it (unlock the keyring, close another process …).
        let cause = error.code == .keyStoreFailure && !error.detail.isEmpty ? "\n  because: \(error.detail)" : ""
        context.printError("rampart \(command): \(error.description)\(cause)")
        return error.isIntegrityFailure ? .failure : .usage
    }

    /// Parses `--algorithm`.
    static func algorithm(_ text: String?) throws -> SealAlgorithm {
        switch text?.lowercased() {
        case nil, "aes-256-gcm", "aes256gcm": .aes256GCM
        case "chacha20-poly1305", "chacha20poly1305": .chaCha20Poly1305
        case let other?: throw UsageError("unknown --algorithm \(other); use aes-256-gcm or chacha20-poly1305")
        }
    }

    /// Parses `--segment-size` (bytes, or with a K/M suffix meaning KiB/MiB).
    static func segmentSize(_ text: String?) throws -> Int {
        guard let text else { return SealHeader.defaultSegmentSize }
        var digits = text.uppercased()
        var scale = 1
        if digits.hasSuffix("K") || digits.hasSuffix("KIB") {
            scale = 1 << 10
        } else if digits.hasSuffix("M") || digits.hasSuffix("MIB") {
            scale = 1 << 20
        }
        digits = String(digits.prefix { $0.isNumber })
        guard let value = Int(digits), value > 0, value <= SealHeader.maximumSegmentSize / scale,
            value * scale >= SealHeader.minimumSegmentSize, text.uppercased().hasPrefix(digits)
        else {
            throw UsageError("--segment-size must be 256 bytes … 4M (e.g. 65536, 64K, 1M); got \(text)")
        }
        return value * scale
    }

    /// Parses `--kdf`.
    static func kdf(_ text: String?) throws -> PasswordKDF {
        switch text?.lowercased() {
        case nil, "argon2id": .argon2id
        case "scrypt": .scrypt
        case "pbkdf2", "pbkdf2-sha256": .pbkdf2SHA256
        case let other?: throw UsageError("unknown --kdf \(other); use argon2id, scrypt or pbkdf2")
        }
    }
}

/// Reads a `FileHandle` through its descriptor (the handle keeps it open).
struct HandleSource: ByteSource {
    let handle: FileHandle

    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        var source = FileDescriptorSource(descriptor: handle.fileDescriptor)
        return try source.read(into: buffer)
    }
}

/// Standard output of a test's context (text); the real process writes to descriptor 1 instead.
struct StandardOutputSink: ByteSink {
    let context: CommandContext

    mutating func write(_ bytes: UnsafeRawBufferPointer) throws {
        context.standardOutput(String(decoding: bytes, as: UTF8.self))
    }
}

/// A one-line progress bar on standard error, drawn only when standard error is a terminal.
final class ProgressBar {
    private let total: UInt64?
    private let enabled: Bool
    private let clock = ContinuousClock()
    private let start: ContinuousClock.Instant
    private var lastDraw: ContinuousClock.Instant
    private let label: String

    init(label: String, total: UInt64?, context: CommandContext, quiet: Bool) {
        self.label = label
        self.total = total
        self.enabled = !quiet && SealIO.isProcess(context) && isatty(2) == 1
        self.start = clock.now
        self.lastDraw = clock.now
    }

    func update(_ done: UInt64) {
        guard enabled, clock.now - lastDraw >= .milliseconds(100) else { return }
        lastDraw = clock.now
        draw(done)
    }

    func finish(_ done: UInt64) {
        guard enabled else { return }
        draw(done)
        FileHandle.standardError.write(Data("\n".utf8))
    }

    private func draw(_ done: UInt64) {
        let elapsed = clock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let rate = seconds > 0 ? Double(done) / seconds / 1e6 : 0
        var line = "\r\(label) "
        if let total, total > 0 {
            let fraction = min(1, Double(done) / Double(total))
            let width = 30
            let filled = Int(fraction * Double(width))
            line += "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled) + "] "
            line += String(format: "%3.0f%% ", fraction * 100)
        }
        line += String(format: "%.0f MB %.0f MB/s", Double(done) / 1e6, rate)
        FileHandle.standardError.write(Data(line.utf8))
    }
}
