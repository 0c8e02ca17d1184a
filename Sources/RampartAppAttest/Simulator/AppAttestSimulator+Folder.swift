public import Foundation
import RampartCrypto
import RampartX509

extension AppAttestSimulator {
    /// The files a kept certificate authority consists of, in its folder.
    static let folderFiles = (
        root: "root.pem", intermediate: "intermediate.pem", intermediateKey: "intermediate-key.pem",
        receiptSigner: "receipt-signer.pem", receiptSignerKey: "receipt-signer-key.pem"
    )

    /// Loads the certificate authority kept in `directory`, or creates one and keeps it there.
    ///
    /// A server trusts one simulator root (`rampart serve --root DIR/root.pem`); keeping the CA in a folder lets every
    /// later simulation be accepted by that server without restarting it. The folder holds `root.pem`,
    /// `intermediate.pem`, `receipt-signer.pem` and the two signing keys `intermediate-key.pem` and
    /// `receipt-signer-key.pem` (unencrypted PKCS#8, mode 0600; the folder is created with mode 0700). The root's
    /// private key is not kept: nothing is signed with it after the intermediate exists.
    ///
    /// - Warning: The kept keys sign attestations the folder's root vouches for. It is a test CA: never trust its
    ///   root in production.
    ///
    /// - Parameters:
    ///   - directory: The folder; created when missing. An empty folder gets a new CA.
    ///   - clock: The time attestations and receipts are made at.
    /// - Throws: ``AppAttestError/Code/invalidArgument`` when the folder holds only some of the files, a file is
    ///   not what it should be, or the folder cannot be written; ``AppAttestError/Code/openSSLFailure`` when making
    ///   a new CA fails.
    public init(keptIn directory: URL, clock: @escaping @Sendable () -> Date = { Date() }) throws {
        let files = Self.folderFiles
        let names = [
            files.root, files.intermediate, files.intermediateKey, files.receiptSigner, files.receiptSignerKey,
        ]
        let manager = FileManager.default
        let present = names.filter { manager.fileExists(atPath: directory.appendingPathComponent($0).path) }
        if present.isEmpty {
            self = try AppAttestSimulator(clock: clock)
            try keep(in: directory)
            return
        }
        guard present.count == names.count else {
            let missing = names.filter { !present.contains($0) }
            throw AppAttestError.invalidArgument(
                "the simulator folder \(directory.path) lacks \(missing.joined(separator: ", ")); "
                    + "restore it, or empty the folder to make a new CA (servers trusting the old root must then "
                    + "be given the new one)")
        }
        func text(_ name: String) throws -> String {
            let path = directory.appendingPathComponent(name).path
            guard let data = manager.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
                throw AppAttestError.invalidArgument("cannot read \(path); check its permissions")
            }
            return text
        }
        func certificate(_ name: String) throws -> Certificate {
            do {
                return try Certificate(pemEncoded: try text(name))
            } catch let error as AppAttestError {
                throw error
            } catch {
                throw AppAttestError.invalidArgument(
                    "\(directory.appendingPathComponent(name).path) is not a PEM certificate: \(error)")
            }
        }
        func key(_ name: String) throws -> ECPrivateKey {
            do {
                return try ECPrivateKey(pemRepresentation: try text(name))
            } catch let error as AppAttestError {
                throw error
            } catch {
                throw AppAttestError.invalidArgument(
                    "\(directory.appendingPathComponent(name).path) is not a PKCS#8 EC private key: \(error)")
            }
        }
        let intermediate = try certificate(files.intermediate)
        let intermediateKey = try key(files.intermediateKey)
        let signer = try certificate(files.receiptSigner)
        let signerKey = try key(files.receiptSignerKey)
        guard intermediate.spkiSHA256 == Self.spkiSHA256(of: intermediateKey),
            signer.spkiSHA256 == Self.spkiSHA256(of: signerKey)
        else {
            throw AppAttestError.invalidArgument(
                "the keys in \(directory.path) do not match its certificates; empty the folder to make a new CA")
        }
        self.init(
            rootCertificate: try certificate(files.root), intermediateCertificate: intermediate,
            intermediateKey: intermediateKey, receiptSignerCertificate: signer, receiptSignerKey: signerKey,
            clock: clock)
    }

    /// Writes this CA's certificates and signing keys to `directory` (see ``init(keptIn:clock:)``).
    ///
    /// - Parameter directory: The folder; created with mode 0700 when missing.
    /// - Throws: ``AppAttestError/Code/invalidArgument`` when the folder or a file cannot be written.
    public func keep(in directory: URL) throws {
        let files = Self.folderFiles
        let manager = FileManager.default
        let contents: [(String, String, Int)] = [
            (files.root, rootCertificate.pemString, 0o644),
            (files.intermediate, intermediateCertificate.pemString, 0o644),
            (files.receiptSigner, receiptSignerCertificate.pemString, 0o644),
            (files.intermediateKey, intermediateKey.pemRepresentation, 0o600),
            (files.receiptSignerKey, receiptSignerKey.pemRepresentation, 0o600),
        ]
        do {
            try manager.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            for (name, text, mode) in contents {
                let path = directory.appendingPathComponent(name).path
                // Create with the final mode, so a key is never readable by others, even for a moment.
                guard manager.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: mode]) else {
                    throw CocoaError(.fileWriteUnknown)
                }
                try Data((text.hasSuffix("\n") ? text : text + "\n").utf8).write(to: URL(fileURLWithPath: path))
            }
        } catch {
            throw AppAttestError.invalidArgument(
                "cannot write the simulator's CA to \(directory.path): \(error.localizedDescription)")
        }
    }

    private static func spkiSHA256(of key: ECPrivateKey) -> String {
        Data(SHA256.hash(key.publicKey.derRepresentation)).base64EncodedString()
    }
}
