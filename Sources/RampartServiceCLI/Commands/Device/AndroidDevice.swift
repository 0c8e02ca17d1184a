import Foundation
import RampartAttestClient
import RampartAttestSimulation
import RampartCLI
import RampartCrypto
import RampartKeyAttestation
import RampartRequestSigning
import RampartX509

/// `rampart device init --android`, and `register` / `request` on the folder it makes: a simulated Android device
/// whose Keystore key is attested by a simulated Key Attestation CA, registered with `"platform": "android"` and
/// signing requests with `Rampart-Signature`.
///
/// ```
/// DIR/              mode 0700
///   android.json    {"packageName","signingCertificateDigest"}                     (0600)
///   ca/root.pem     the simulated CA's root, for the service's android.extraRoots
///   ca/android-ca.json  the root and intermediate certificates and keys            (0600)
///   key.json        {"keyId","privateKey","counter":0,"nextChallenge"}, after register (0600)
/// ```
enum AndroidDevice {
    /// What `android.json` holds: the simulated app.
    struct App: Codable, Equatable {
        var packageName: String
        /// SHA-256 of the app's (simulated) signing certificate, standard base64.
        var signingCertificateDigest: String
    }

    /// What `ca/android-ca.json` holds.
    struct CA: Codable {
        var rootCertificate: String
        var rootKey: String
        var intermediateCertificate: String
        var intermediateKey: String
    }

    static func appPath(_ folder: DeviceFolder) -> String {
        folder.directory.appendingPathComponent("android.json").path
    }
    static func caPath(_ folder: DeviceFolder) -> String {
        folder.caDirectory.appendingPathComponent("android-ca.json").path
    }

    /// Whether the folder holds an Android device.
    static func holdsDevice(_ folder: DeviceFolder) -> Bool { FileManager.default.fileExists(atPath: appPath(folder)) }

    /// The `"android"` object of a `rampart serve --config` file that trusts this device.
    struct Configuration: Encodable {
        let packageNames: [String]
        let signingCertificateDigests: [String]
        let extraRoots: [String]
    }

    struct InitOutput: Encodable {
        let directory: String
        let platform = "android"
        let root: String
        let rootPath: String
        let packageName: String
        let signingCertificateDigest: String
        let android: Configuration
    }

    // MARK: init

    static func initialize(path: String, packageName: String, json: Bool, context: CommandContext) throws -> ExitCode {
        let folder = DeviceFolder(path)
        let manager = FileManager.default
        if manager.fileExists(atPath: folder.appPath) || holdsDevice(folder) {
            throw UsageError(
                "\(folder.directory.path) already holds a device; use it, or remove the folder to start over")
        }
        guard !packageName.isEmpty, packageName.utf8.count <= 256 else {
            throw UsageError("--package must be the app's package name, e.g. com.example.app")
        }
        do {
            try manager.createDirectory(
                at: folder.caDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try manager.setAttributes([.posixPermissions: 0o700], ofItemAtPath: folder.directory.path)
        } catch {
            throw UsageError("cannot create \(folder.directory.path): \(error.localizedDescription)")
        }
        let keystore: SimulatedAndroidKeystore
        do {
            keystore = try SimulatedAndroidKeystore(clock: context.now)
        } catch {
            throw UsageError("cannot make the simulated Key Attestation CA: \(error)")
        }
        try folder.write(
            CA(
                rootCertificate: keystore.rootCertificate.pemString, rootKey: keystore.rootKey.pemRepresentation,
                intermediateCertificate: keystore.intermediateCertificate.pemString,
                intermediateKey: keystore.intermediateKey.pemRepresentation), to: caPath(folder))
        let root = keystore.rootCertificate.pemString
        guard manager.createFile(atPath: folder.rootPath, contents: Data(root.utf8)) else {
            throw UsageError("cannot write \(folder.rootPath)")
        }
        // A simulated signing certificate: the digest a real app's `apksigner verify --print-certs` would print.
        let digest = Data(SHA256.hash(Array("rampart simulated signing certificate \(packageName)".utf8)))
            .base64EncodedString()
        try folder.write(App(packageName: packageName, signingCertificateDigest: digest), to: appPath(folder))
        let configuration = Configuration(
            packageNames: [packageName], signingCertificateDigests: [digest], extraRoots: [folder.rootPath])
        if json {
            try context.printJSON(
                InitOutput(
                    directory: folder.directory.path, root: root, rootPath: folder.rootPath, packageName: packageName,
                    signingCertificateDigest: digest, android: configuration))
        } else {
            context.print("simulated Android device in \(folder.directory.path)/ for \(packageName)")
            context.print("trust it: rampart serve --config FILE, with FILE holding")
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            let object = String(decoding: try encoder.encode(["android": configuration]), as: UTF8.self)
            context.print("  " + object)
        }
        return .success
    }

    // MARK: register and request

    /// The device's app, its simulated Keystore and the saved key.
    struct Loaded {
        let app: App
        let keystore: SimulatedAndroidKeystore
        let device: SimulatedAndroidKeystore.Device
    }

    static func load(_ folder: DeviceFolder, context: CommandContext) throws -> Loaded {
        for path in [appPath(folder), caPath(folder)] { try DeviceFolder.checkPrivate(path) }
        let app: App = try folder.read(appPath(folder))
        let ca: CA = try folder.read(caPath(folder))
        guard let digest = Data(base64Encoded: app.signingCertificateDigest), digest.count == 32 else {
            throw UsageError("\(appPath(folder)): signingCertificateDigest is not a base64 SHA-256 digest")
        }
        let keystore: SimulatedAndroidKeystore
        do {
            keystore = try SimulatedAndroidKeystore(
                rootCertificate: Certificate(pemEncoded: ca.rootCertificate),
                rootKey: ECPrivateKey(pemRepresentation: ca.rootKey),
                intermediateCertificate: Certificate(pemEncoded: ca.intermediateCertificate),
                intermediateKey: ECPrivateKey(pemRepresentation: ca.intermediateKey), clock: context.now)
        } catch {
            throw UsageError("\(caPath(folder)) does not hold a usable CA; run 'rampart device init --android' again")
        }
        return Loaded(
            app: app, keystore: keystore,
            device: .init(packageName: app.packageName, signingCertificateDigests: [Array(digest)]))
    }

    /// Sends one request, or throws the usage error for a server that cannot be reached.
    static func send(
        _ transport: URLSessionTransport, _ server: URL, _ request: TransportRequest
    ) async throws -> ServerAnswer {
        do {
            return ServerAnswer(try await transport.send(request))
        } catch {
            throw UsageError(
                "could not reach \(server.absoluteString) (\(error)); check --server and that the service is running")
        }
    }

    static func json(_ object: [String: Any]) throws -> [UInt8] {
        Array(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
    }

    /// `POST /v1/challenges` for `purpose`, or the server's refusal printed and nil.
    static func challenge(
        _ purpose: String, _ endpoint: DeviceCommand.Endpoint, _ transport: URLSessionTransport,
        context: CommandContext, command: String
    ) async throws -> String? {
        let answer = try await send(
            transport, endpoint.server,
            TransportRequest(
                method: "POST", target: "/v1/challenges",
                headers: endpoint.headers + [HTTPField(name: "Content-Type", value: "application/json")],
                body: try json(["purpose": purpose])))
        guard answer.status == 200, let challenge = answer.field("challenge") else {
            context.printError(
                "rampart device \(command): the server answered \(answer.status) \(answer.errorCode ?? "") to "
                    + "POST /v1/challenges" + (answer.message.map { ": \($0)" } ?? ""))
            return nil
        }
        return challenge
    }

    struct RegisterOutput: Encodable {
        let keyId: String
        let platform = "android"
        let environment: String
        let server: String
    }

    static func register(
        _ endpoint: DeviceCommand.Endpoint, json: Bool, context: CommandContext
    ) async throws -> ExitCode {
        let loaded = try load(endpoint.folder, context: context)
        let transport = URLSessionTransport(baseURL: endpoint.server)
        guard
            let challenge = try await challenge(
                "attestation", endpoint, transport, context: context, command: "register")
        else { return .failure }
        // The key is generated with the challenge's UTF-8 bytes, as setAttestationChallenge(challenge.toByteArray()).
        let key = try loaded.keystore.generateKey(challenge: Array(challenge.utf8), device: loaded.device)
        let answer = try await send(
            transport, endpoint.server,
            TransportRequest(
                method: "POST", target: "/v1/attestations",
                headers: endpoint.headers + [HTTPField(name: "Content-Type", value: "application/json")],
                body: try Self.json([
                    "platform": "android", "challenge": challenge,
                    "certificateChain": key.certificateChainDER.map { Data($0).base64EncodedString() },
                ])))
        guard answer.status == 201, let keyID = answer.field("keyId") else {
            context.printError(
                "rampart device register: the server refused the key: \(answer.status) \(answer.errorCode ?? "")"
                    + (answer.message.map { ": \($0)" } ?? ""))
            return .failure
        }
        try endpoint.folder.saveKey(
            .init(keyId: keyID, privateKey: key.privateKey.pemRepresentation, counter: 0, nextChallenge: nil))
        let environment = answer.field("environment") ?? ""
        if json {
            try context.printJSON(
                RegisterOutput(keyId: keyID, environment: environment, server: endpoint.server.absoluteString))
        } else {
            context.print("registered Android key \(keyID) with \(endpoint.server.absoluteString) (\(environment))")
            context.print("saved in \(endpoint.folder.keyPath)")
        }
        return .success
    }

    /// The request to send: `METHOD TARGET` with its body, signed over TARGET; `extAuthz` sends it to
    /// `/ext-authz` + TARGET, as Envoy's check does.
    struct Outgoing {
        let method: String
        let target: String
        let headers: [HTTPField]
        let body: [UInt8]
        let extAuthz: Bool
    }

    static func request(
        _ endpoint: DeviceCommand.Endpoint, _ outgoing: Outgoing, context: CommandContext
    ) async throws -> (ServerAnswer, keyID: String)? {
        _ = try load(endpoint.folder, context: context)  // checks the folder's files and their modes
        guard var saved = try endpoint.folder.loadKey() else {
            throw UsageError(
                "\(endpoint.folder.directory.path) holds no key yet; run 'rampart device register --dir "
                    + "\(endpoint.folder.directory.path) --server \(endpoint.server.absoluteString)' first")
        }
        let privateKey: ECPrivateKey
        do {
            privateKey = try ECPrivateKey(pemRepresentation: saved.privateKey)
        } catch {
            throw UsageError("\(endpoint.folder.keyPath): the private key cannot be read; register a new key")
        }
        let transport = URLSessionTransport(baseURL: endpoint.server)
        let digest = RequestSignature.digestValue(of: outgoing.body)
        var answer: ServerAnswer?
        // A used or expired kept challenge gets one retry with a fresh one, as an app would.
        for attempt in 0..<2 {
            let kept = attempt == 0 ? saved.nextChallenge : nil
            saved.nextChallenge = nil
            guard
                let challenge =
                    try await kept.asyncOr({
                        try await Self.challenge("assertion", endpoint, transport, context: context, command: "request")
                    })
            else { return nil }
            let clientData: [UInt8]
            do {
                clientData = try RequestSignature.clientData(
                    method: outgoing.method, target: outgoing.target, challenge: challenge, digest: digest)
            } catch let error as RequestSigningError {
                throw UsageError(error.reason)
            }
            let signature = try privateKey.signature(for: clientData, digest: .sha256)
            let headers =
                endpoint.headers + outgoing.headers + [
                    HTTPField(name: RequestSignature.keyIDHeader, value: saved.keyId),
                    HTTPField(name: RequestSignature.challengeHeader, value: challenge),
                    HTTPField(name: "Rampart-Signature", value: Data(signature).base64EncodedString()),
                    HTTPField(name: RequestSignature.contentDigestHeader, value: "sha-256=:\(digest):"),
                ]
            let sent = try await send(
                transport, endpoint.server,
                TransportRequest(
                    method: outgoing.method, target: (outgoing.extAuthz ? "/ext-authz" : "") + outgoing.target,
                    headers: headers, body: outgoing.body))
            answer = sent
            saved.nextChallenge = sent.nextChallenge
            let retryable = ["challengeUsed", "challengeExpired", "challengeMismatch"]
            guard attempt == 0, kept != nil, let code = sent.errorCode, retryable.contains(code) else { break }
        }
        try endpoint.folder.saveKey(saved)
        guard let answer else { return nil }
        return (answer, saved.keyId)
    }
}

extension Optional where Wrapped == String {
    /// The value, or what `fallback` makes of nothing.
    fileprivate func asyncOr(_ fallback: () async throws -> String?) async throws -> String? {
        if let self { return self }
        return try await fallback()
    }
}
