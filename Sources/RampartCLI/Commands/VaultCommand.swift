import Foundation
import RampartVault

/// `rampart vault`: keep secrets in an encrypted file vault with Keychain semantics.
enum VaultCommand: Command {
    static let name = "vault"
    static let abstract = "store, read and list secrets in an encrypted vault file (Keychain semantics)"
    static let help = """
        USAGE: rampart vault --path FILE [--passphrase-file F | --key-file F] <action> [options] [--json]

        Keeps small secrets (tokens, API keys, data keys) as generic passwords found by service and account, in an
        SQLite file whose values are sealed with AES-256-GCM. The vault key is wrapped by a key derived from a
        passphrase with Argon2id (19 MiB, 2 iterations) or taken from a 32-byte key file. The first add or set creates
        the vault (mode 0600). The vault is for servers and tools; in an app, the Keychain is the store.

        The passphrase is read from --passphrase-file or from RAMPART_VAULT_PASSPHRASE, never from an argument.

        ACTIONS (rampart vault ACTION --help shows one):
        \(actionList)

        OPTIONS:
          --path FILE              the vault file
          --passphrase-file F      a file holding the passphrase (one trailing newline is dropped)
          --key-file F             a file holding 32 random bytes or 64 hex digits
                                   (create one: head -c 32 /dev/urandom > vault.key)
        \(itemOptions)
          --json                   machine-readable output
          -h, --help               show this help

        \(exitCodes)

        EXAMPLE:
          export RAMPART_VAULT_PASSPHRASE='correct horse battery staple'
          echo 'r1.refresh-token' | rampart vault --path app.vault set --service api.example.com --account refresh_token
          rampart vault --path app.vault get --service api.example.com --account refresh_token
        """

    /// One action's usage line and description, for the command's help and the action's own.
    struct Action {
        let name: String
        let usage: String
        let summary: [String]
    }

    static let actions: [Action] = [
        Action(
            name: "add",
            usage: "add --service S --account A [--accessible A] [--label L] [--access-group G] [--synchronizable]",
            summary: [
                "store the secret read from standard input (one trailing newline is dropped);",
                "fails with exit 1 (duplicateItem) if the item exists: use set to replace it",
            ]),
        Action(
            name: "set", usage: "set ...          (the options of add)",
            summary: ["adds the item or replaces its secret and attributes (upsert)"]),
        Action(name: "get", usage: "get --service S --account A", summary: ["print the secret"]),
        Action(
            name: "list", usage: "list [--service S] [--account A]",
            summary: ["print items' attributes (tab-separated, or --json), never their secrets"]),
        Action(name: "delete", usage: "delete --service S --account A", summary: ["remove the item"]),
        Action(
            name: "backup", usage: "backup DEST",
            summary: [
                "write a consistent copy of the vault to the new file DEST (mode 0600), through",
                "SQLite's VACUUM INTO: it opens with the same credential and holds nothing deleted",
                "or replaced; copy a vault this way, not with cp, which can miss its write-ahead log",
            ]),
        Action(
            name: "rotate-key", usage: "rotate-key (--new-passphrase-file F | --new-key-file F) [--keep-vault-key]",
            summary: [
                "draw a new vault key, reseal every item under it and wrap it for a new passphrase (or",
                "RAMPART_VAULT_NEW_PASSPHRASE) or key file, in one transaction. Afterwards the old",
                "credential opens neither this file nor items added later, even with a saved copy of",
                "the old header; a copy of the file made before still opens with it and holds what the",
                "vault held then. --keep-vault-key only re-wraps the vault key (faster, for a credential",
                "that was not exposed): whoever kept the old header and credential can then still",
                "decrypt every item, later ones included. --reencrypt (the default) is accepted",
            ]),
    ]

    private static let actionList = actions.map { action in
        (["  " + action.usage] + action.summary.map { String(repeating: " ", count: 19) + $0 })
            .joined(separator: "\n")
    }.joined(separator: "\n")

    private static let itemOptions = """
          --service S              the item's service (add, set, get, delete; a filter for list)
          --account A              the item's account (add, set, get, delete; a filter for list)
          --label L                a label kept with the item (add, set)
          --access-group G         the item's access group (default: default)
          --synchronizable         mark the item synchronizable (not with a ...this-device-only --accessible)
          --accessible A           after-first-unlock (default), when-unlocked, when-unlocked-this-device-only,
                                   after-first-unlock-this-device-only, when-passcode-set-this-device-only
        """

    private static let exitCodes = """
        EXIT CODES:
          0  done
          1  a negative answer: wrong passphrase or key file (or not a Rampart vault); add: the item exists
             (duplicateItem); get, delete: no such item (itemNotFound)
          2  bad usage or input: a missing option, no vault at --path, an unreadable passphrase or key file, or any
             other failure
        """

    /// The help of one action (`rampart vault get --help`).
    ///
    /// - Parameter name: The action.
    /// - Returns: Its usage, options and exit codes, or nil for an unknown action.
    static func help(forSubcommand name: String) -> String? {
        guard let action = actions.first(where: { $0.name == name }) else { return nil }
        let usage =
            action.name == "set"
            ? "set --service S --account A [--accessible A] [--label L] [--access-group G] [--synchronizable]"
            : action.usage
        return """
            USAGE: rampart vault --path FILE [--passphrase-file F | --key-file F] \(usage) [--json]

            \(action.summary.joined(separator: " "))

            OPTIONS:
              --path FILE              the vault file
              --passphrase-file F      a file holding the passphrase (or RAMPART_VAULT_PASSPHRASE)
              --key-file F             a file holding 32 random bytes or 64 hex digits
            \(itemOptions)
              --json                   machine-readable output
              -h, --help               show this help

            \(exitCodes)
            """
    }

    static func run(_ arguments: inout Arguments, context: CommandContext) async throws -> ExitCode {
        let path = try arguments.requiredOption("--path")
        let passphraseFile = try arguments.option("--passphrase-file")
        let keyFile = try arguments.option("--key-file")
        if try arguments.option("--passphrase") != nil {
            throw UsageError(
                "a passphrase is never taken as an argument (it would show in ps and shell history); "
                    + "use --passphrase-file or RAMPART_VAULT_PASSPHRASE")
        }
        let json = arguments.flag("--json")
        guard let action = arguments.popFirstPositional() else {
            throw UsageError("missing action: add, set, get, list, delete, backup or rotate-key")
        }
        let credential = try credential(
            passphraseFile: passphraseFile, keyFile: keyFile, variable: "RAMPART_VAULT_PASSPHRASE", context: context,
            what: "--passphrase-file, --key-file or RAMPART_VAULT_PASSPHRASE")
        do {
            switch action {
            case "add", "set": return try await store(action, path: path, credential, &arguments, json, context)
            case "get": return try await get(path: path, credential, &arguments, json, context)
            case "list": return try await list(path: path, credential, &arguments, json, context)
            case "delete": return try await delete(path: path, credential, &arguments, json, context)
            case "rotate-key": return try rotate(path: path, credential, &arguments, json, context)
            case "backup": return try backup(path: path, credential, &arguments, json, context)
            default:
                throw UsageError("unknown action '\(action)': use add, set, get, list, delete, backup or rotate-key")
            }
        } catch let error as VaultError {
            switch error.code {
            case .duplicateItem where action == "add":
                context.printError(
                    "rampart vault: duplicateItem: the item exists; use 'rampart vault set' to replace its secret")
                return .failure
            case .itemNotFound where ["get", "delete"].contains(action):
                context.printError("rampart vault: \(error)")
                return .failure
            case .authFailed:
                let hint =
                    switch error.reason {
                    case "this vault opens with a key file, not a passphrase":
                        " (rotate-key --new-key-file moved it to one); give --key-file"
                    case "this vault opens with a passphrase, not a key file":
                        " (rotate-key --new-passphrase-file moved it to one); give --passphrase-file"
                    default: ""
                    }
                context.printError("rampart vault: \(error.reason)\(hint)")
                return .failure
            default:
                context.printError("rampart vault: \(error)")
                return .usage
            }
        }
    }

    // MARK: Actions

    private static func store(
        _ action: String,
        path: String,
        _ credential: VaultCredential,
        _ arguments: inout Arguments,
        _ json: Bool,
        _ context: CommandContext
    ) async throws -> ExitCode {
        let service = try arguments.requiredOption("--service")
        let account = try arguments.requiredOption("--account")
        let accessibleName = try arguments.option("--accessible") ?? Accessibility.afterFirstUnlock.rawValue
        guard let accessibility = Accessibility(rawValue: accessibleName) else {
            throw UsageError(
                "unknown --accessible '\(accessibleName)'; use one of "
                    + Accessibility.allCases.map(\.rawValue).joined(separator: ", "))
        }
        let label = try arguments.option("--label")
        let group = try arguments.option("--access-group")
        let synchronizable = arguments.flag("--synchronizable")
        try arguments.finish()
        var secret = Array(context.readStandardInput())
        if secret.last == UInt8(ascii: "\n") { secret.removeLast() }
        if secret.last == UInt8(ascii: "\r") { secret.removeLast() }
        guard !secret.isEmpty else { throw UsageError("no secret on standard input") }
        guard secret.count <= VaultLimits.maxValueByteCount else {
            throw UsageError("the secret is larger than \(VaultLimits.maxValueByteCount) bytes")
        }
        var item = VaultItem.genericPassword(
            service: service, account: account, value: secret, accessibility: accessibility, accessGroup: group)
        item.attributes.label = label
        item.synchronizable = synchronizable
        let vault = try open(path, credential, create: true)
        let outcome: String
        if action == "add" {
            try await vault.add(item)
            outcome = "added"
        } else {
            outcome = try await vault.upsert(item) ? "added" : "updated"
        }
        if json {
            try context.printJSON(["status": outcome, "service": service, "account": account])
        } else {
            context.print("\(outcome) \(service) / \(account)")
        }
        return .success
    }

    private static func get(
        path: String,
        _ credential: VaultCredential,
        _ arguments: inout Arguments,
        _ json: Bool,
        _ context: CommandContext
    ) async throws -> ExitCode {
        let query = ItemQuery.genericPassword(
            service: try arguments.requiredOption("--service"), account: try arguments.requiredOption("--account"))
        try arguments.finish()
        let item = try await open(path, credential, create: false).readOne(query)
        let text = String(validating: item.value, as: UTF8.self)
        if json {
            try context.printJSON(SecretOutput(item: item, value: text))
        } else {
            guard let text else {
                throw UsageError("the secret is not UTF-8 text; use --json to get it as base64")
            }
            context.print(text)
        }
        return .success
    }

    private static func list(
        path: String,
        _ credential: VaultCredential,
        _ arguments: inout Arguments,
        _ json: Bool,
        _ context: CommandContext
    ) async throws -> ExitCode {
        let attributes = ItemAttributes(
            service: try arguments.option("--service"), account: try arguments.option("--account"))
        try arguments.finish()
        let query = ItemQuery(itemClass: .genericPassword, attributes: attributes, returnData: false)
        let items: [VaultItem]
        do {
            items = try await open(path, credential, create: false).read(query)
        } catch let error as VaultError
            where error.code == .itemNotFound && FileManager.default.fileExists(atPath: path)
        {
            items = []
        }
        let rows = items.map(ItemOutput.init)
        if json {
            try context.printJSON(rows)
        } else {
            for row in rows {
                context.print(
                    [row.service, row.account, row.accessible, row.accessGroup, row.label ?? ""]
                        .joined(separator: "\t"))
            }
        }
        return .success
    }

    private static func delete(
        path: String,
        _ credential: VaultCredential,
        _ arguments: inout Arguments,
        _ json: Bool,
        _ context: CommandContext
    ) async throws -> ExitCode {
        let service = try arguments.requiredOption("--service")
        let account = try arguments.requiredOption("--account")
        try arguments.finish()
        try await open(path, credential, create: false).delete(.genericPassword(service: service, account: account))
        if json {
            try context.printJSON(["status": "deleted", "service": service, "account": account])
        } else {
            context.print("deleted \(service) / \(account)")
        }
        return .success
    }

    private static func rotate(
        path: String,
        _ credential: VaultCredential,
        _ arguments: inout Arguments,
        _ json: Bool,
        _ context: CommandContext
    ) throws -> ExitCode {
        let newPassphraseFile = try arguments.option("--new-passphrase-file")
        let newKeyFile = try arguments.option("--new-key-file")
        let keepVaultKey = arguments.flag("--keep-vault-key")
        if arguments.flag("--reencrypt"), keepVaultKey {
            throw UsageError("give --reencrypt (the default) or --keep-vault-key, not both")
        }
        let reencrypt = !keepVaultKey
        try arguments.finish()
        let newCredential = try self.credential(
            passphraseFile: newPassphraseFile, keyFile: newKeyFile, variable: "RAMPART_VAULT_NEW_PASSPHRASE",
            context: context, what: "--new-passphrase-file, --new-key-file or RAMPART_VAULT_NEW_PASSPHRASE")
        let backend = try FileVault.open(at: path, credential: credential, create: false)
        let count = try backend.rotateKey(to: newCredential, reencryptItems: reencrypt)
        if json {
            try context.printJSON(RotationOutput(items: count, reencrypted: reencrypt))
        } else {
            let items = count == 1 ? "1 item" : "\(count) items"
            let credential = newKeyFile == nil ? "passphrase" : "key file"
            if reencrypt {
                context.print(
                    "rotated the vault key and resealed \(items); it now opens only with the new \(credential)")
            } else {
                context.print(
                    "re-wrapped the vault key for the new \(credential); \(items) kept under the same vault key, "
                        + "which the old credential still unwraps from any copy of the old header")
            }
        }
        return .success
    }

    private static func backup(
        path: String,
        _ credential: VaultCredential,
        _ arguments: inout Arguments,
        _ json: Bool,
        _ context: CommandContext
    ) throws -> ExitCode {
        guard let destination = arguments.popFirstPositional() else {
            throw UsageError("give the backup's file: rampart vault --path FILE backup DEST")
        }
        try arguments.finish()
        let backend: FileVault
        do {
            backend = try FileVault.open(at: path, credential: credential, create: false)
        } catch let error as VaultError where error.code == .itemNotFound {
            throw UsageError("there is no vault at \(path)")
        }
        try backend.backup(to: destination)
        let count = try backend.count()
        if json {
            try context.printJSON(BackupOutput(backup: destination, items: count))
        } else {
            context.print("backed up \(count == 1 ? "1 item" : "\(count) items") to \(destination)")
        }
        return .success
    }

    // MARK: Helpers

    private static func open(_ path: String, _ credential: VaultCredential, create: Bool) throws -> Vault {
        do {
            return Vault(backend: try FileVault.open(at: path, credential: credential, create: create))
        } catch let error as VaultError where error.code == .itemNotFound {
            throw UsageError("there is no vault at \(path); add or set an item to create it")
        }
    }

    private static func credential(
        passphraseFile: String?,
        keyFile: String?,
        variable: String,
        context: CommandContext,
        what: String
    ) throws -> VaultCredential {
        switch (passphraseFile, keyFile) {
        case (.some, .some):
            throw UsageError("give a passphrase file or a key file, not both")
        case (.some(let file), nil):
            guard let data = FileManager.default.contents(atPath: file) else {
                throw UsageError("cannot read the passphrase file \(file)")
            }
            var bytes = Array(data)
            if bytes.last == UInt8(ascii: "\n") { bytes.removeLast() }
            if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
            guard let passphrase = String(validating: bytes, as: UTF8.self), !passphrase.isEmpty else {
                throw UsageError("the passphrase file \(file) is empty or not UTF-8 text")
            }
            return try VaultCredential.passphrase(passphrase)
        case (nil, .some(let file)):
            return try VaultCredential.keyFile(at: file)
        case (nil, nil):
            guard let passphrase = context.environment[variable], !passphrase.isEmpty else {
                throw UsageError("no passphrase or key: use \(what)")
            }
            return try VaultCredential.passphrase(passphrase)
        }
    }
}

/// One item in `list --json`: attributes only.
private struct ItemOutput: Encodable {
    let service: String
    let account: String
    let label: String?
    let accessGroup: String
    let accessible: String
    let synchronizable: Bool
    let created: Date?
    let modified: Date?

    init(_ item: VaultItem) {
        service = item.attributes.service ?? ""
        account = item.attributes.account ?? ""
        label = item.attributes.label
        accessGroup = item.accessGroup ?? ""
        accessible = item.accessibility.rawValue
        synchronizable = item.synchronizable
        created = item.creationDate
        modified = item.modificationDate
    }
}

/// `get --json`: the secret as text (when UTF-8) and as base64.
private struct SecretOutput: Encodable {
    let service: String
    let account: String
    let value: String?
    let valueBase64: String

    init(item: VaultItem, value: String?) {
        service = item.attributes.service ?? ""
        account = item.attributes.account ?? ""
        self.value = value
        valueBase64 = Data(item.value).base64EncodedString()
    }
}

/// `backup --json`.
private struct BackupOutput: Encodable {
    let backup: String
    let items: Int
}

/// `rotate-key --json`.
private struct RotationOutput: Encodable {
    let items: Int
    let reencrypted: Bool
}
