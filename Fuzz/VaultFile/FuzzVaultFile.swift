import Foundation
import FuzzSupport
import RampartCrypto
@_spi(Testing) import RampartVault

/// libFuzzer target for the file vault's handling of an attacker-controlled file: the input is written as a vault
/// file and opened with a fixed key (so no KDF runs), then every row is decoded and authenticated. It also feeds the
/// input to the key-file reader. Nothing may crash; every malformed file must be a ``VaultError``.
///
/// Seeds/ holds small vaults made with the fixed key, so mutations reach the header unwrap and the row decoder.
/// scripts/fuzz.sh builds it with `-sanitize=fuzzer,address -DFUZZING`; a normal build replays files given as
/// arguments.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzVaultFile(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let path = FuzzFiles.directory + "/vault.db"
    for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path + suffix) }
    guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else { return 0 }
    if let vault = try? FileVault.open(at: path, credential: FuzzFiles.credential, create: false) {
        _ = try? vault.decodeAllRows()
    }
    let keyPath = FuzzFiles.directory + "/vault.key"
    if FileManager.default.createFile(atPath: keyPath, contents: Data(bytes.prefix(200))) {
        _ = try? VaultCredential.keyFile(at: keyPath)
    }
    return 0
}

/// The fixed key the seeds were made with, and a scratch directory for this process.
enum FuzzFiles {
    /// Made afresh on each use: a credential held in a static enum payload is a pointer with tag bits set, which
    /// LeakSanitizer cannot follow and reports as a leak.
    static var credential: VaultCredential {
        guard let credential = try? VaultCredential.key(SymmetricKey(bytes: [UInt8](repeating: 7, count: 32))) else {
            preconditionFailure("a 32-byte key is always a valid credential")
        }
        return credential
    }

    static let directory: String = {
        let path = NSTemporaryDirectory() + "rampart-fuzz-vault-\(getpid())"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()
}

#if FUZZING
/// The process entry point under `-DFUZZING` (see `FuzzInput.runLibFuzzer` and scripts/fuzz.sh).
@_cdecl("FuzzVaultFile_main")
func fuzzVaultFileMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzInput.runLibFuzzer(argc, argv) { data, size in
        guard let data else { return 0 }
        return fuzzVaultFile(data, size)
    }
}
#else
/// Replays corpus files: `FuzzVaultFile FILE...`; with `--make-seed OUT` writes a seed vault made with the fixed key.
@main
enum Replay {
    static func main() async throws {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.count == 2, arguments[0] == "--make-seed" {
            try await makeSeed(at: arguments[1])
            return
        }
        for path in arguments {
            guard let data = FileManager.default.contents(atPath: path) else { continue }
            let count = data.count
            let bytes = count == 0 ? [0] : [UInt8](data)
            bytes.withUnsafeBufferPointer { buffer in
                if let base = buffer.baseAddress { _ = fuzzVaultFile(base, count) }
            }
        }
    }

    static func makeSeed(at path: String) async throws {
        let vault = Vault(backend: try FileVault.open(at: path, credential: FuzzFiles.credential))
        try await vault.add(.genericPassword(service: "api.example.com", account: "refresh_token", value: [1, 2, 3]))
        var key = VaultItem(
            itemClass: .key, attributes: ItemAttributes(applicationTag: [9, 9], keyType: "aes-256"),
            value: [UInt8](repeating: 5, count: 32), accessibility: .afterFirstUnlockThisDeviceOnly)
        key.attributes.label = "kek"
        try await vault.add(key)
        try await vault.add(
            VaultItem(
                itemClass: .internetPassword, attributes: ItemAttributes(account: "u", server: "h", port: 443),
                value: [], synchronizable: true))
    }
}
#endif
