// A child process for the file vault's multi-process and crash tests (not shipped): opens a vault with a key file and
// writes items, printing one line per acknowledged (committed) write.
//
// USAGE: rampart-vault-helper put VAULT KEYFILE PREFIX COUNT
//        rampart-vault-helper secret-service      (prints the error code connecting gives, or "connected")
import Foundation
import RampartVault

let arguments = CommandLine.arguments
if arguments.count == 2, arguments[1] == "secret-service" {
    do {
        _ = try SecretServiceBackend(namespace: "rampart-helper-probe")
        print("connected")
    } catch let error as VaultError {
        print(error.code)
    }
    exit(0)
}
guard arguments.count == 6, arguments[1] == "put", let count = Int(arguments[5]) else {
    FileHandle.standardError.write(Data("usage: rampart-vault-helper put VAULT KEYFILE PREFIX COUNT\n".utf8))
    exit(2)
}
do {
    let backend = try FileVault.open(at: arguments[2], credential: try .keyFile(at: arguments[3]))
    let vault = Vault(backend: backend)
    for index in 0..<count {
        let account = "\(arguments[4])-\(index)"
        try await vault.add(.genericPassword(service: "stress", account: account, value: Array("v-\(account)".utf8)))
        FileHandle.standardOutput.write(Data("\(account)\n".utf8))
    }
} catch {
    FileHandle.standardError.write(Data("rampart-vault-helper: \(String(reflecting: error))\n".utf8))
    exit(1)
}
