import Foundation
import RampartAppAttest
import RampartAttestSimulation
import RampartCrypto
import RampartRequestSigning
import Synchronization
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The pieces of a gateway test: the package's files, a child process with a scratch directory, free ports, the
/// echo upstream (`docs/examples/upstream.py`) and `rampart serve` with the docs' configuration.
enum Gateway {
    /// The package root, from this file's path.
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Whether a missing gateway fails the gateway tests instead of skipping them: `RAMPART_REQUIRE_GATEWAYS=1`,
    /// which CI sets (`.ci/run`) after scripts/install-deps.sh installed nginx and Caddy.
    static var required: Bool { ProcessInfo.processInfo.environment["RAMPART_REQUIRE_GATEWAYS"] == "1" }

    /// A file of `docs/examples/`.
    static func example(_ name: String) throws -> String {
        try String(
            contentsOf: packageRoot.appendingPathComponent("docs/examples").appendingPathComponent(name),
            encoding: .utf8)
    }

    /// `text` with each key replaced by its value; throws when a key is not in the text (the docs changed).
    static func substitute(_ text: String, _ replacements: KeyValuePairs<String, String>) throws -> String {
        var result = text
        for (key, value) in replacements {
            guard result.contains(key) else {
                throw ServeProcessError("the example no longer contains '\(key)'; update the gateway test with it")
            }
            result = result.replacingOccurrences(of: key, with: value)
        }
        return result
    }

    /// The first executable named `name` on `PATH` (or in /usr/sbin, /usr/bin), or nil.
    static func executable(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let directories = path.split(separator: ":").map(String.init) + ["/usr/sbin", "/usr/bin", "/sbin"]
        return directories.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// A TCP port on 127.0.0.1 that was free a moment ago (bound to port 0, then closed), for a child that must be
    /// told its port in a configuration file.
    static func freePort() throws -> UInt16 {
        try ReservedPort().port
    }

    /// Starts a child on a free port and waits until it listens there, trying three ports (the free port may be
    /// taken between picking and binding it); throws the last attempt's error.
    ///
    /// `launch` writes the child's configuration for the port it is given and starts it.
    static func startListening(
        _ name: String, _ launch: (UInt16) throws -> ChildProcess
    ) async throws -> (child: ChildProcess, port: UInt16) {
        var lastError: any Error = ServeProcessError("\(name) did not start")
        for _ in 0..<3 {
            let port = try freePort()
            let child = try launch(port)
            do {
                try await child.wait { isListening(port) }
                return (child, port)
            } catch {
                lastError = error
                await child.stop()
            }
        }
        throw lastError
    }

    /// Whether something accepts connections on 127.0.0.1:`port`.
    static func isListening(_ port: UInt16) -> Bool {
        guard let socket = RawHTTP.connectedSocket(port: port, timeoutSeconds: 1) else { return false }
        close(socket)
        return true
    }
}

/// The helper processes still running, killed when the test process exits, however its tests ended.
private let runningChildren: Mutex<Set<pid_t>> = {
    atexit {
        for pid in runningChildren.withLock({ $0 }) { kill(pid, SIGKILL) }
    }
    return Mutex([])
}()

/// A gateway, upstream or other helper process the test started, with its own scratch directory; stopped with
/// SIGTERM (then SIGKILL) when the test ends, and killed at the latest when the test process exits.
final class ChildProcess: Sendable {
    let process: SpawnedProcess
    let directory: URL
    let name: String

    /// Starts `executable` with `arguments` in a fresh scratch directory; standard output and error go to
    /// `stdout.log` and `stderr.log` there.
    init(
        _ name: String, executable: String, arguments: [String], environment: [String: String] = [:],
        directory: URL? = nil
    ) throws {
        self.name = name
        let directory =
            directory ?? URL(fileURLWithPath: ScratchDirectory.uniquePath(name), isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        self.directory = directory
        var inherited = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("RAMPART_") }
        inherited["HOME"] = directory.path
        inherited["XDG_DATA_HOME"] = directory.appendingPathComponent("data").path
        inherited["XDG_CONFIG_HOME"] = directory.appendingPathComponent("config").path
        process = try SpawnedProcess(
            executable, arguments: arguments, environment: inherited.merging(environment) { $1 },
            directory: directory.path, standardOutput: .file(directory.appendingPathComponent("stdout.log").path),
            standardError: .file(directory.appendingPathComponent("stderr.log").path))
        let pid = process.pid
        runningChildren.withLock { _ = $0.insert(pid) }
    }

    /// What the process wrote to standard error so far (for failure messages).
    var stderr: String {
        (try? String(contentsOf: directory.appendingPathComponent("stderr.log"), encoding: .utf8)) ?? ""
    }

    /// What the process wrote to standard output so far.
    var stdout: String {
        (try? String(contentsOf: directory.appendingPathComponent("stdout.log"), encoding: .utf8)) ?? ""
    }

    /// Waits until `ready` holds (polling every 50 ms), for at most `seconds`; throws with the process's stderr when
    /// it exits or the time runs out.
    func wait(seconds: Double = 15, until ready: @Sendable @escaping () -> Bool) async throws {
        let process = process
        let ok: Bool = await withCheckedContinuation { continuation in
            Thread {
                let deadline = Date().addingTimeInterval(seconds)
                while Date() < deadline, process.isRunning {
                    if ready() { return continuation.resume(returning: true) }
                    usleep(50_000)
                }
                continuation.resume(returning: false)
            }.start()
        }
        guard ok else {
            let state =
                process.isRunning ? "did not become ready within \(seconds) s" : "\(process.wait())"
            throw ServeProcessError("\(name) \(state)\nstderr:\n\(stderr)")
        }
    }

    /// Sends `signal` and waits up to 5 s for the exit, then SIGKILL.
    func stop(signal: Int32 = SIGTERM) async {
        await process.stop(signal: signal, within: 5)
        let pid = process.pid
        runningChildren.withLock { _ = $0.remove(pid) }
    }
}

/// The echo upstream of `docs/examples/upstream.py`: answers each request with its method, target, headers, body
/// and body digest as JSON, after the Rampart-Verified-Digest check the docs ask of an upstream.
struct EchoUpstream {
    let child: ChildProcess
    let port: UInt16

    static var python: String? { Gateway.executable("python3") }

    static func start() async throws -> EchoUpstream {
        guard let python else { throw ServeProcessError("python3 is not installed") }
        let script = Gateway.packageRoot.appendingPathComponent("docs/examples/upstream.py").path
        let child = try ChildProcess("upstream", executable: python, arguments: [script, "0"])
        try await child.wait { child.stdout.contains("\n") }
        guard let port = UInt16(child.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw ServeProcessError("upstream.py printed no port: \(child.stdout) \(child.stderr)")
        }
        return EchoUpstream(child: child, port: port)
    }

    /// The request the upstream saw, from its JSON answer.
    struct Seen {
        let method: String
        let target: String
        let headers: [String: String]
        let body: [UInt8]
        let bodyDigest: String

        init?(_ response: RawHTTP.Response) {
            guard let object = try? JSONSerialization.jsonObject(with: Data(response.body.utf8)) as? [String: Any],
                let method = object["method"] as? String, let target = object["target"] as? String,
                let headers = object["headers"] as? [String: String], let body = object["body"] as? String,
                let bytes = Data(base64Encoded: body), let digest = object["bodyDigest"] as? String
            else { return nil }
            self.method = method
            self.target = target
            self.headers = headers
            self.body = Array(bytes)
            self.bodyDigest = digest
        }
    }
}

/// `rampart serve` with `docs/examples/rampart.json` (the simulator's root, a scratch SQLite store, development
/// environment, and limits raised so that a test's many deliberate failures from one address are not rate limited;
/// the connection limits are the example's, so a burst through a gateway meets them as a deployment would).
enum GatewayService {
    static let teamID = "ABCDE12345"
    static let bundleID = "com.example.app"

    /// The configuration file the tests give `rampart serve`: the docs' one with `overrides` merged in.
    static func configuration(overrides: [String: Any] = [:]) throws -> String {
        let text = try Gateway.example("rampart.json")
        guard var object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            throw ServeProcessError("docs/examples/rampart.json is not a JSON object")
        }
        object["database"] = "sqlite:" + ScratchDirectory.uniquePath("gateway.db")
        object["limits"] = [
            "challengesPerAddressPerMinute": 100_000, "challengesPerSubjectPerMinute": 100_000,
            "failuresPerAddressPerMinute": 100_000,
        ]
        object["riskBlockThreshold"] = 1000
        for (key, value) in overrides { object[key] = value }
        let path = ScratchDirectory.uniquePath("rampart.json")
        try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
            .write(to: URL(fileURLWithPath: path))
        return path
    }

    static func start(simulator: AppAttestSimulator, overrides: [String: Any] = [:]) async throws -> ServeChild {
        let root = try ServeProcess.writeRoot(of: simulator)
        return try await ServeChild.start([
            "--config", try configuration(overrides: overrides), "--root", root, "--team-id", teamID, "--bundle-id",
            bundleID, "--environment", "development",
        ])
    }
}

/// `rampart serve --listen 127.0.0.1:0 --admin-listen 127.0.0.1:0 --json` as a ``ChildProcess``, so that a failure to
/// start says why (its standard error).
struct ServeChild {
    let child: ChildProcess
    let port: UInt16
    let adminPort: UInt16

    static func start(_ arguments: [String]) async throws -> ServeChild {
        guard let binary = ServeProcess.binary else { throw ServeProcessError("the rampart binary was not built") }
        let child = try ChildProcess(
            "serve", executable: binary.path,
            arguments: ["serve", "--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0", "--json"] + arguments)
        try await child.wait { child.stdout.contains("}") }
        let text = child.stdout
        guard let port = ServeProcess.port(named: "listening", in: text),
            let adminPort = ServeProcess.port(named: "admin", in: text)
        else {
            throw ServeProcessError("no ports in rampart serve's startup line: \(child.stdout)\n\(child.stderr)")
        }
        return ServeChild(child: child, port: port, adminPort: adminPort)
    }

    func stop() async { await child.stop() }
}

/// An app that signs requests with a simulated App Attest key, written against the wire format alone
/// (``RequestSignature``), the way any client would implement `docs/request-signature.md`.
final class SigningApp: @unchecked Sendable {
    let device: SimulatedAppAttestDevice
    /// Headers every request of this app carries (the user's authentication at the proxy).
    let authentication: [String: String]
    private(set) var keyID = ""

    init(simulator: AppAttestSimulator, authentication: [String: String]) {
        device = SimulatedAppAttestDevice(
            simulator: simulator, teamID: GatewayService.teamID, bundleID: GatewayService.bundleID,
            environment: .development)
        self.authentication = authentication
    }

    /// A request through `port`, with the app's authentication headers and `headers`.
    func send(
        port: UInt16, _ method: String, _ target: String, body: [UInt8] = [], headers: [String: String] = [:]
    ) async throws -> RawHTTP.Response {
        let all = authentication.merging(headers) { $1 }
        guard let response = await RawHTTP.request(port: port, method, target, body: body, headers: all) else {
            throw ServeProcessError("no answer from 127.0.0.1:\(port) to \(method) \(target)")
        }
        return response
    }

    /// `POST /v1/challenges {"purpose": purpose}` through `port`; the challenge.
    func challenge(port: UInt16, purpose: String = "assertion") async throws -> String {
        let answer = try await send(
            port: port, "POST", "/v1/challenges", body: Array(#"{"purpose":"\#(purpose)"}"#.utf8),
            headers: ["Content-Type": "application/json"])
        guard answer.status == 200,
            let object = try? JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any],
            let challenge = object["challenge"] as? String
        else { throw ServeProcessError("challenge request answered \(answer.status): \(answer.body)") }
        return challenge
    }

    /// Generates a key and registers it through `port` (challenge, attestation).
    func register(port: UInt16) async throws {
        let challenge = try await challenge(port: port, purpose: "attestation")
        let keyID = try await device.generateKey()
        let object = try await device.attestKey(keyID, clientDataHash: SHA256.hash(Array(challenge.utf8)))
        let body = try JSONSerialization.data(withJSONObject: [
            "keyId": keyID, "attestationObject": Data(object).base64EncodedString(), "challenge": challenge,
        ])
        let answer = try await send(
            port: port, "POST", "/v1/attestations", body: Array(body), headers: ["Content-Type": "application/json"])
        guard answer.status == 201 else {
            throw ServeProcessError("registration answered \(answer.status): \(answer.body)")
        }
        self.keyID = keyID
    }

    /// The four signature headers for `method target` with `body` over `challenge`.
    func signatureHeaders(
        method: String, target: String, body: [UInt8], challenge: String
    ) async throws -> [String: String] {
        let digest = RequestSignature.digestValue(of: body)
        let hash = try RequestSignature.clientDataHash(
            method: method, target: target, challenge: challenge, digest: digest)
        let assertion = try await device.generateAssertion(keyID, clientDataHash: hash)
        return [
            RequestSignature.keyIDHeader: keyID, RequestSignature.challengeHeader: challenge,
            RequestSignature.assertionHeader: Data(assertion).base64EncodedString(),
            RequestSignature.contentDigestHeader: RequestSignature.contentDigest(of: body),
        ]
    }
}

/// What a test sends: a signed request, and what is changed after signing.
struct SignedRequest {
    var method: String
    var target: String
    var body: [UInt8]
    var headers: [String: String]
}
