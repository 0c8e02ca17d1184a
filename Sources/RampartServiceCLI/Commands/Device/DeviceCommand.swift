import Foundation
import RampartAppAttest
import RampartAttestClient
import RampartAttestSimulation
import RampartCLI
import RampartSecretStore
import RampartX509

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `rampart device init|register|request`: a command-line App Attest device, for trying a server by hand.
enum DeviceCommand: Command {
    static let name = "device"
    static let abstract =
        "a simulated App Attest or Android device: register a key with a server and send signed requests"

    static let initHelp = """
        USAGE: rampart device init DIR [--team-id T] [--bundle-id B] [--environment development|production] [--json]
               rampart device init DIR --android [--package NAME] [--json]

          Creates a saved simulated device in DIR (mode 0700): a simulated Apple App Attest CA (DIR/ca, its keys
          mode 0600) and the app it plays (DIR/device.json). Prints the root to trust, for
          `rampart serve --root DIR/ca/root.pem --team-id T --bundle-id B --environment E`. A folder that already
          holds a device is refused.

          --team-id T      the app's team id (default DEMO123456)
          --bundle-id B    the app's bundle id (default com.rampart.demo)
          --environment E  the keys' App Attest environment (default development)
          --json           {"directory","root","rootPath","teamId","bundleId","environment"}

          With --android, DIR holds a simulated Android device instead: a simulated Key Attestation CA (DIR/ca,
          its keys mode 0600) and the app's package name and signing-certificate digest (DIR/android.json). It
          prints the "android" object of a `rampart serve --config` file that trusts it (extraRoots names
          DIR/ca/root.pem: a test root, never for production).

          --android        a simulated Android device (Key Attestation) instead of App Attest
          --package NAME   the Android app's package name (default com.rampart.demo)
          --json           with --android: {"directory","platform","root","rootPath","packageName",
                           "signingCertificateDigest","android"}
        """

    static let registerHelp = """
        USAGE: rampart device register --dir DIR --server URL [-H 'Name: value']... [--json]

          Generates a new key, gets an attestation challenge (POST /v1/challenges {"purpose":"attestation"}),
          attests the key with DIR's CA and registers it (POST /v1/attestations {"keyId","attestationObject",
          "challenge"}); saves the key id, its private key and counter in DIR/key.json (mode 0600), replacing any
          earlier key. The server takes the subject from its own authentication: pass what it reads with -H (for
          example -H 'X-User-Id: alice' for `rampart serve --demo`, or -H 'Authorization: Bearer <JWT>').

          --dir DIR            the device folder (default $RAMPART_DEVICE_DIR)
          --server URL         the server's base URL, e.g. http://127.0.0.1:8080
          -H, --header 'N: v'  a header sent with every request (repeatable)
          --json               {"keyId","environment","server"}

          An Android device (init --android) generates a Keystore key with the attestation challenge, and registers
          its certificate chain instead (POST /v1/attestations {"platform":"android","certificateChain",
          "challenge"}); --json adds "platform":"android".
        """

    static let requestHelp = """
        USAGE: rampart device request --dir DIR --server URL METHOD TARGET [--data @FILE|@-|TEXT]
                 [-H 'Name: value']... [-i] [--json]

          Signs METHOD TARGET (path and query, as sent) and the body with DIR's key in the rampart-request-v1
          format (Rampart-Key-Id, Rampart-Challenge, Rampart-Assertion, Content-Digest), sends it, and prints the
          answer's body on standard output, like curl. The challenge is the Rampart-Next-Challenge kept from the
          previous answer, else a fresh one; the new counter and next challenge are saved in DIR/key.json. As an
          app's AttestedClient does, it attests a new key when the server answers unknownKey, keyBlocked or
          wrongSubject (the key is registered to another user: -H names someone else now) or there is no key yet,
          retries once with a fresh challenge after challengeUsed, challengeExpired, counterReplay or
          challengeMismatch, and waits out 429s (Retry-After, at most 30 s, 3 times).

          --data @FILE|@-|TEXT the body: a file's bytes, standard input, or the text itself (default: none);
                               sent with Content-Type: application/json unless -H sets one
          -H, --header 'N: v'  a header (repeatable); the app's own authentication goes here
          -i, --include        print the status line and the response headers before the body
          --json               {"status","headers","body","keyId","counter"}

          An Android device signs with Rampart-Signature (ECDSA P-256 with SHA-256 over the same client data)
          instead of Rampart-Assertion, and has no counter: its challenges are single-use, which is the replay
          guard. It retries once with a fresh challenge after challengeUsed, challengeExpired or
          challengeMismatch; it does not register a key by itself (run register).

          --ext-authz          (Android) send the request to /ext-authz followed by TARGET, as Envoy's ext_authz
                               check does, signing TARGET: the answer is the gateway's verdict
        """

    static var help: String {
        """
        USAGE: rampart device <init|register|request> [options]

        A command-line App Attest or Android device for trying a server by hand: `init` saves a simulated device
        (its own Apple CA, or with --android its own Key Attestation CA, whose root the server trusts), `register`
        attests a key through the server, `request` sends signed requests with it. Every secret file in the folder
        has mode 0600; one that others can read is refused.

        \(initHelp)

        \(registerHelp)

        \(requestHelp)

        \(exitCodes)

        EXAMPLE:
          rampart device init dev
          rampart serve --demo --root dev/ca/root.pem --team-id DEMO123456 --bundle-id com.rampart.demo \\
            --environment development &
          rampart device register --dir dev --server http://127.0.0.1:8080 -H 'X-User-Id: alice'
          rampart device request --dir dev --server http://127.0.0.1:8080 -H 'X-User-Id: alice' \\
            POST /v1/demo/points/use --data '{"amount":1000}'
          rampart device init android-dev --android --package com.example.app
          rampart device register --dir android-dev --server http://127.0.0.1:8080 -H 'X-User-Id: alice'
          rampart device request --dir android-dev --server http://127.0.0.1:8080 -H 'X-User-Id: alice' \\
            --ext-authz POST /api/points/use --data '{"amount":1}'
        """
    }

    static let exitCodes = """
        EXIT CODES:
          0  done (request: the server answered 2xx or 3xx)
          1  the server refused (register: the registration; request: a 4xx or 5xx answer, printed as received)
          2  bad usage, an unreadable or unsafe device folder, or a server that cannot be reached
        """

    static func help(forSubcommand name: String) -> String? {
        switch name {
        case "init": initHelp + "\n\n" + exitCodes
        case "register": registerHelp + "\n\n" + exitCodes
        case "request": requestHelp + "\n\n" + exitCodes
        default: nil
        }
    }

    static func run(_ arguments: inout Arguments, context: CommandContext) async throws -> ExitCode {
        guard let action = arguments.popFirstPositional() else {
            throw UsageError("name a subcommand: init, register or request")
        }
        do {
            switch action {
            case "init": return try initialize(&arguments, context: context)
            case "register": return try await register(&arguments, context: context)
            case "request": return try await request(&arguments, context: context)
            default: throw UsageError("unknown device subcommand '\(action)'; use init, register or request")
            }
        } catch let error as UsageError {
            context.printError("rampart device \(action): \(error.message) (see 'rampart device \(action) --help')")
            return .usage
        }
    }

    // MARK: init

    struct InitOutput: Encodable {
        let directory: String
        let root: String
        let rootPath: String
        let teamId: String
        let bundleId: String
        let environment: String
    }

    static func initialize(_ arguments: inout Arguments, context: CommandContext) throws -> ExitCode {
        let json = arguments.flag("--json")
        if arguments.flag("--android") {
            let packageName = try arguments.option("--package") ?? "com.rampart.demo"
            let positionals = try arguments.positionals()
            guard positionals.count == 1, let path = positionals.first else {
                throw UsageError("name the folder to create: rampart device init DIR --android")
            }
            return try AndroidDevice.initialize(path: path, packageName: packageName, json: json, context: context)
        }
        let teamID = try arguments.option("--team-id") ?? "DEMO123456"
        let bundleID = try arguments.option("--bundle-id") ?? "com.rampart.demo"
        let environment = try arguments.option("--environment") ?? "development"
        let positionals = try arguments.positionals()
        guard positionals.count == 1, let path = positionals.first else {
            throw UsageError("name the folder to create: rampart device init DIR")
        }
        guard AppAttestEnvironment(rawValue: environment) != nil else {
            throw UsageError("--environment must be production or development")
        }
        let folder = DeviceFolder(path)
        let simulator = try folder.create(
            app: .init(teamId: teamID, bundleId: bundleID, environment: environment), clock: context.now)
        let output = InitOutput(
            directory: folder.directory.path, root: simulator.rootCertificate.pemString, rootPath: folder.rootPath,
            teamId: teamID, bundleId: bundleID, environment: environment)
        if json {
            try context.printJSON(output)
        } else {
            context.print("simulated App Attest device in \(folder.directory.path)/ for \(teamID).\(bundleID)")
            context.print("trust its root: rampart serve --root \(folder.rootPath) --team-id \(teamID) \\")
            context.print("  --bundle-id \(bundleID) --environment \(environment)")
            context.print(output.root.hasSuffix("\n") ? String(output.root.dropLast()) : output.root)
        }
        return .success
    }

    // MARK: register and request

    /// The device folder, its simulated device with the saved key, and a client over it.
    struct Session {
        let folder: DeviceFolder
        let app: DeviceFolder.App
        let device: SimulatedAppAttestDevice
        let client: AttestedClient
        let server: URL
        /// The -H headers, sent with every request.
        let headers: [HTTPField]
        /// What HTTP authentication the server asked for, if it did.
        let authentication: AuthenticationChallengeRefusal

        /// The refusal to print when the server asked for HTTP authentication the request did not pass.
        func authenticationRefusal(_ command: String) -> String? {
            authentication.refusedChallenge.map { asked in
                "rampart device \(command): \(server.absoluteString) answered 401 and asks for \(asked) "
                    + "authentication, which the request did not pass; send it with --header 'Authorization: …' "
                    + "(check the user and password if you did)"
            }
        }

        /// Saves the client's current key, counter and next challenge.
        func save() async throws {
            guard let keyID = try? await client.keptKeyID(), let key = device.device(for: keyID) else {
                return
            }
            try folder.saveKey(
                .init(
                    keyId: keyID, privateKey: key.privateKeyPEM, counter: key.counter,
                    nextChallenge: await client.nextChallenge(for: keyID)))
        }
    }

    /// Where a command goes: the device folder, the server and the -H headers.
    struct Endpoint {
        let folder: DeviceFolder
        let server: URL
        let headers: [HTTPField]
    }

    static func endpoint(_ arguments: inout Arguments, context: CommandContext) throws -> Endpoint {
        guard let path = try arguments.option("--dir") ?? context.environment["RAMPART_DEVICE_DIR"] else {
            throw UsageError("name the device folder with --dir DIR (made by 'rampart device init DIR')")
        }
        let serverText = try arguments.requiredOption("--server")
        guard let server = URL(string: serverText), let scheme = server.scheme?.lowercased(),
            scheme == "http" || scheme == "https", server.host != nil
        else {
            throw UsageError("--server must be an http(s) URL such as http://127.0.0.1:8080")
        }
        let headers = try (arguments.options("-H") + arguments.options("--header")).map(parseHeader)
        return Endpoint(folder: DeviceFolder(path), server: server, headers: headers)
    }

    static func session(_ endpoint: Endpoint, context: CommandContext) throws -> Session {
        let (folder, server, headers) = (endpoint.folder, endpoint.server, endpoint.headers)
        let (app, simulator) = try folder.load(clock: context.now)
        guard let environment = AppAttestEnvironment(rawValue: app.environment) else {
            throw UsageError("\(folder.appPath) names an unknown environment '\(app.environment)'")
        }
        let device = SimulatedAppAttestDevice(
            simulator: simulator, teamID: app.teamId, bundleID: app.bundleId, environment: environment)
        let authentication = AuthenticationChallengeRefusal()
        let urlSession = URLSession(configuration: .ephemeral, delegate: authentication, delegateQueue: nil)
        let client = AttestedClient(
            transport: URLSessionTransport(baseURL: server, session: urlSession), device: device,
            secrets: Vault(backend: InMemoryBackend()), headers: { headers })
        return Session(
            folder: folder, app: app, device: device, client: client, server: server, headers: headers,
            authentication: authentication)
    }

    /// Restores the saved key into the session's device and client.
    static func restoreKey(_ session: Session) async throws {
        guard let key = try session.folder.loadKey() else { return }
        let restored: SimulatedDevice
        do {
            restored = try SimulatedDevice(
                teamID: session.app.teamId, bundleID: session.app.bundleId,
                environment: session.device.environment, privateKeyPEM: key.privateKey, counter: key.counter)
        } catch let error as AppAttestError {
            throw UsageError("\(session.folder.keyPath): \(error.reason); register a new key")
        }
        let keyID = session.device.add(restored)
        guard keyID == key.keyId else {
            throw UsageError(
                "\(session.folder.keyPath): the key id does not match its private key; register a new key")
        }
        try await session.client.keep(keyID: keyID)
        await session.client.keepNextChallenge(key.nextChallenge, for: keyID)
    }

    struct RegisterOutput: Encodable {
        let keyId: String
        let environment: String
        let server: String
    }

    static func register(_ arguments: inout Arguments, context: CommandContext) async throws -> ExitCode {
        let json = arguments.flag("--json")
        let endpoint = try endpoint(&arguments, context: context)
        try arguments.finish()
        if AndroidDevice.holdsDevice(endpoint.folder) {
            return try await AndroidDevice.register(endpoint, json: json, context: context)
        }
        let session = try session(endpoint, context: context)
        let keyID: String
        do {
            keyID = try await session.client.register()
        } catch let error as AttestedClientError where error.code == .registrationRefused {
            context.printError("rampart device register: \(error.reason)")
            return .failure
        } catch let error as AttestedClientError {
            if let refusal = session.authenticationRefusal("register") {
                context.printError(refusal)
                return .failure
            }
            throw UsageError(error.reason)
        }
        try await session.save()
        if json {
            try context.printJSON(
                RegisterOutput(
                    keyId: keyID, environment: session.app.environment, server: session.server.absoluteString))
        } else {
            context.print("registered key \(keyID) with \(session.server.absoluteString) (\(session.app.environment))")
            context.print("saved in \(session.folder.keyPath)")
        }
        return .success
    }

    struct RequestOutput: Encodable {
        let status: Int
        let headers: [String: String]
        let body: String
        let keyId: String
        let counter: UInt32
    }

    static func request(_ arguments: inout Arguments, context: CommandContext) async throws -> ExitCode {
        let json = arguments.flag("--json")
        let include = arguments.flag("-i") || arguments.flag("--include")
        let data = try arguments.option("--data")
        let extAuthz = arguments.flag("--ext-authz")
        let endpoint = try endpoint(&arguments, context: context)
        var headers: [HTTPField] = []
        let positionals = try arguments.positionals()
        guard positionals.count == 2 else {
            throw UsageError("name the METHOD and the TARGET (path and query), e.g. POST /v1/demo/points/use")
        }
        let method = positionals[0]
        let target = positionals[1]
        guard target.hasPrefix("/") else {
            throw UsageError("TARGET must be the path and query as sent, starting with '/' (not '\(target)')")
        }
        var body: [UInt8] = []
        if let data {
            body = try readData(data, context: context)
            if !endpoint.headers.contains(where: { $0.name.lowercased() == "content-type" }) {
                headers.append(HTTPField(name: "Content-Type", value: "application/json"))
            }
        }
        if AndroidDevice.holdsDevice(endpoint.folder) {
            guard
                let (answer, keyID) = try await AndroidDevice.request(
                    endpoint,
                    .init(method: method, target: target, headers: headers, body: body, extAuthz: extAuthz),
                    context: context)
            else { return .failure }
            return try printAnswer(answer, keyID: keyID, counter: 0, json: json, include: include, context: context)
        }
        guard !extAuthz else { throw UsageError("--ext-authz is for Android devices (init --android)") }
        let session = try session(endpoint, context: context)
        try await restoreKey(session)
        let answer: ServerAnswer
        do {
            answer = try await session.client.send(method, target, headers: headers, body: body)
        } catch let error as AttestedClientError where error.code == .registrationRefused {
            try await session.save()
            context.printError("rampart device request: \(error.reason)")
            return .failure
        } catch let error as AttestedClientError {
            try await session.save()
            if let refusal = session.authenticationRefusal("request") {
                context.printError(refusal)
                return .failure
            }
            throw UsageError(error.reason)
        }
        try await session.save()
        let keyID = (try? await session.client.keptKeyID()) ?? ""
        return try printAnswer(
            answer, keyID: keyID, counter: session.device.device(for: keyID)?.counter ?? 0, json: json,
            include: include, context: context)
    }

    /// Prints a request's answer as `request` does, and its exit code.
    static func printAnswer(
        _ answer: ServerAnswer, keyID: String, counter: UInt32, json: Bool, include: Bool, context: CommandContext
    ) throws -> ExitCode {
        let text = String(decoding: answer.body, as: UTF8.self)
        if json {
            try context.printJSON(
                RequestOutput(
                    status: answer.status, headers: answer.headers, body: text, keyId: keyID, counter: counter))
        } else {
            if include {
                var head =
                    "HTTP/1.1 \(answer.status) \(HTTPURLResponse.localizedString(forStatusCode: answer.status))\n"
                for (name, value) in answer.headers.sorted(by: { $0.key < $1.key }) { head += "\(name): \(value)\n" }
                context.standardOutput(head + "\n")
            }
            context.standardOutput(text)
        }
        guard answer.status < 400 else {
            let code = answer.errorCode.map { " \($0)" } ?? ""
            context.printError(
                "rampart device request: the server answered \(answer.status)\(code)"
                    + (answer.message.map { ": \($0)" } ?? ""))
            return .failure
        }
        return .success
    }

    /// `Name: value` → a header line.
    static func parseHeader(_ text: String) throws -> HTTPField {
        guard let colon = text.firstIndex(of: ":") else {
            throw UsageError("-H needs 'Name: value' (got '\(text)')")
        }
        let name = String(text[..<colon]).trimmingCharacters(in: .whitespaces)
        let value = String(text[text.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
        let token = CharacterSet(
            charactersIn: "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
        guard !name.isEmpty, name.unicodeScalars.allSatisfy(token.contains),
            !value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
        else {
            throw UsageError("-H '\(text)' is not a valid header line 'Name: value'")
        }
        return HTTPField(name: name, value: value)
    }

    /// `--data`: `@FILE`, `@-` (standard input) or the text itself.
    static func readData(_ data: String, context: CommandContext) throws -> [UInt8] {
        guard data.hasPrefix("@") else { return Array(data.utf8) }
        let path = String(data.dropFirst())
        if path == "-" { return Array(context.readStandardInput()) }
        guard let contents = FileManager.default.contents(atPath: path) else {
            throw UsageError("--data: cannot read \(path); check the path and permissions")
        }
        return Array(contents)
    }
}
