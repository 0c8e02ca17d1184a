import Foundation
import RampartAppAttest
import RampartCLI

#if canImport(Glibc)
import Glibc
#endif

/// The folder of a saved simulated App Attest device (`rampart device init DIR`).
///
/// ```
/// DIR/              mode 0700
///   ca/             the simulated Apple CA (AppAttestSimulator(keptIn:)): root.pem, intermediate and receipt
///                   signer certificates, their keys (0600)
///   device.json     {"teamId","bundleId","environment"}                           (0600)
///   key.json        {"keyId","privateKey","counter","nextChallenge"}: the attested key (0600), after register
/// ```
///
/// Every file with a secret is written with mode 0600 (created with that mode, then renamed into place) and refused
/// when its mode lets the group or others read it, as ssh refuses a private key anyone can read.
struct DeviceFolder {
    /// What `device.json` holds: the simulated app.
    struct App: Codable, Equatable {
        var teamId: String
        var bundleId: String
        var environment: String
    }

    /// What `key.json` holds: the attested key, its counter and the next challenge.
    struct Key: Codable, Equatable {
        var keyId: String
        var privateKey: String
        var counter: UInt32
        var nextChallenge: String?
    }

    let directory: URL

    var caDirectory: URL { directory.appendingPathComponent("ca", isDirectory: true) }
    var rootPath: String { caDirectory.appendingPathComponent("root.pem").path }
    var appPath: String { directory.appendingPathComponent("device.json").path }
    var keyPath: String { directory.appendingPathComponent("key.json").path }

    /// The secret files of the CA, checked like the device's own.
    var caKeyPaths: [String] {
        ["intermediate-key.pem", "receipt-signer-key.pem"].map { caDirectory.appendingPathComponent($0).path }
    }

    init(_ path: String) { directory = URL(fileURLWithPath: path, isDirectory: true) }

    /// Creates the folder: a new simulated CA and the app's identity. Refuses a folder that already holds a device.
    func create(app: App, clock: @escaping @Sendable () -> Date) throws -> AppAttestSimulator {
        let manager = FileManager.default
        if manager.fileExists(atPath: appPath) {
            throw UsageError(
                "\(directory.path) already holds a device (device.json); use it, or remove the folder to start over")
        }
        do {
            try manager.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try manager.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory.path)
        } catch {
            throw UsageError("cannot create \(directory.path): \(error.localizedDescription)")
        }
        let simulator: AppAttestSimulator
        do {
            simulator = try AppAttestSimulator(keptIn: caDirectory, clock: clock)
        } catch let error as AppAttestError {
            throw UsageError(error.reason)
        }
        try write(app, to: appPath)
        return simulator
    }

    /// The app's identity and the simulated CA, after checking the secret files' modes.
    func load(clock: @escaping @Sendable () -> Date) throws -> (App, AppAttestSimulator) {
        guard FileManager.default.fileExists(atPath: appPath) else {
            throw UsageError(
                "\(directory.path) holds no device (no device.json); create one with 'rampart device init "
                    + "\(directory.path)'")
        }
        for path in [appPath] + caKeyPaths { try Self.checkPrivate(path) }
        let app: App = try read(appPath)
        do {
            return (app, try AppAttestSimulator(keptIn: caDirectory, clock: clock))
        } catch let error as AppAttestError {
            throw UsageError(error.reason)
        }
    }

    /// The saved key, or nil before `register`.
    func loadKey() throws -> Key? {
        guard FileManager.default.fileExists(atPath: keyPath) else { return nil }
        try Self.checkPrivate(keyPath)
        return try read(keyPath)
    }

    func saveKey(_ key: Key) throws { try write(key, to: keyPath) }

    /// Refuses a file the group or others may read or write.
    static func checkPrivate(_ path: String) throws {
        let attributes: [FileAttributeKey: Any]
        do {
            attributes = try FileManager.default.attributesOfItem(atPath: path)
        } catch {
            throw UsageError("cannot read \(path); check the path and permissions")
        }
        let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue ?? 0o777
        guard mode & 0o077 == 0 else {
            throw UsageError(
                "\(path) holds a device secret but its mode is \(String(mode & 0o777, radix: 8)), so other users "
                    + "can read it; run 'chmod 600 \(path)' (and check nobody copied it)")
        }
    }

    func read<T: Decodable>(_ path: String) throws -> T {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw UsageError("cannot read \(path); check the path and permissions")
        }
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch {
            throw UsageError("\(path) is not a device file written by rampart device; run 'rampart device init' again")
        }
    }

    /// Writes `value` as JSON to `path` with mode 0600: into a new temporary file created with that mode, then
    /// renamed over the old one, so the file is never readable by others, nor half written.
    func write(_ value: some Encodable, to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let manager = FileManager.default
        let temporary = path + ".tmp"
        do {
            let data = try encoder.encode(value) + Data("\n".utf8)
            try? manager.removeItem(atPath: temporary)
            guard manager.createFile(atPath: temporary, contents: nil, attributes: [.posixPermissions: 0o600]) else {
                throw CocoaError(.fileWriteUnknown)
            }
            try data.write(to: URL(fileURLWithPath: temporary))
            try manager.setAttributes([.posixPermissions: 0o600], ofItemAtPath: temporary)
            guard rename(temporary, path) == 0 else { throw CocoaError(.fileWriteUnknown) }
        } catch {
            try? manager.removeItem(atPath: temporary)
            throw UsageError("cannot write \(path): \(error.localizedDescription)")
        }
    }
}
