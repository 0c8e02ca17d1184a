import Foundation
import RampartAppAttest
import RampartAttestService
import RampartLoadReport
import RampartRequestSigning
import Testing

@testable import rampart_load

struct LoadResponseParserTests {
    private func parse(_ text: String, closed: Bool = false) throws -> LoadResponseParser.Outcome {
        try LoadResponseParser.parse(Array(text.utf8), closed: closed)
    }

    @Test("a Content-Length answer: status, the Rampart fields, body, bytes consumed")
    func contentLength() throws {
        let text = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nRampart-Next-Challenge: abc\r\n\r\n{}NEXT"
        guard case .response(let response, let consumed) = try parse(text) else {
            Issue.record("expected an answer")
            return
        }
        #expect(response.status == 200)
        #expect(response.nextChallenge == "abc")
        #expect(response.rampartError == nil)
        #expect(response.body == Array("{}".utf8))
        #expect(response.keepAlive)
        #expect(consumed == text.utf8.count - 4)
    }

    @Test("field names match in any case, values lose their whitespace, repeated fields join with ', '")
    func fields() throws {
        let text =
            "HTTP/1.1  401 Unauthorized\r\nX-Other: a:b\r\nrAmPaRt-ErRoR: \t badSignature \r\n"
            + "RAMPART-NEXT-CHALLENGE:n1\r\nrampart-next-challenge:  n2\r\nCONTENT-LENGTH: 1\r\n"
            + "Connection: Keep-Alive, CLOSE\r\n\r\nx"
        guard case .response(let response, let consumed) = try parse(text) else {
            Issue.record("expected an answer")
            return
        }
        #expect(response.status == 401)
        #expect(response.rampartError == "badSignature")
        #expect(response.nextChallenge == "n1, n2")
        #expect(response.body == Array("x".utf8))
        #expect(!response.keepAlive)
        #expect(consumed == text.utf8.count)
    }

    @Test("HTTP/1.0 keeps the connection only with Connection: keep-alive; 304 and HEAD answers have no body")
    func keepAliveAndBodiless() throws {
        guard
            case .response(let old, let consumed) = try parse(
                "HTTP/1.0 304 Not Modified\r\nconnection: KEEP-ALIVE\r\nContent-Length: 3\r\n\r\nabc")
        else {
            Issue.record("expected an answer")
            return
        }
        #expect(old.keepAlive && old.body.isEmpty)
        #expect(
            consumed == "HTTP/1.0 304 Not Modified\r\nconnection: KEEP-ALIVE\r\nContent-Length: 3\r\n\r\n".utf8.count)
        let head = Array("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\n".utf8)
        guard case .response(let answer, let taken) = try LoadResponseParser.parse(head, headRequest: true) else {
            Issue.record("expected an answer")
            return
        }
        #expect(answer.body.isEmpty && taken == head.count)
        guard case .response(let informational, _) = try parse("HTTP/1.1 100 Continue\r\n\r\n") else {
            Issue.record("expected an answer")
            return
        }
        #expect(informational.status == 100)
    }

    @Test("a chunked answer with trailers ends after them")
    func chunkedTrailers() throws {
        let text = "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, Chunked\r\n\r\n 2 \r\nab\r\n0\r\nX-T: 1\r\n\r\nNEXT"
        guard case .response(let response, let consumed) = try parse(text) else {
            Issue.record("expected an answer")
            return
        }
        #expect(response.body == Array("ab".utf8))
        #expect(consumed == text.utf8.count - 4)
        #expect(try parse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX-T: 1\r\n") == .incomplete)
    }

    @Test("a chunked answer is reassembled")
    func chunked() throws {
        let text = "HTTP/1.1 401 Unauthorized\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2;x=1\r\nde\r\n0\r\n\r\n"
        guard case .response(let response, let consumed) = try parse(text) else {
            Issue.record("expected an answer")
            return
        }
        #expect(response.status == 401)
        #expect(response.body == Array("abcde".utf8))
        #expect(consumed == text.utf8.count)
    }

    @Test("incomplete heads and bodies wait for more bytes")
    func incomplete() throws {
        #expect(try parse("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n") == .incomplete)
        #expect(try parse("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nab") == .incomplete)
        #expect(try parse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nab") == .incomplete)
    }

    @Test("Connection: close and HTTP/1.0 end keep-alive; a body without length ends at the close")
    func connectionClose() throws {
        guard
            case .response(let closing, _) = try parse(
                "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")
        else {
            Issue.record("expected an answer")
            return
        }
        #expect(!closing.keepAlive)
        #expect(try parse("HTTP/1.0 200 OK\r\n\r\nabc") == .incomplete)
        guard case .response(let old, _) = try parse("HTTP/1.0 200 OK\r\n\r\nabc", closed: true) else {
            Issue.record("expected an answer")
            return
        }
        #expect(old.body == Array("abc".utf8))
        #expect(!old.keepAlive)
    }

    @Test("204 has no body even with bytes after the head")
    func noContent() throws {
        guard case .response(let response, let consumed) = try parse("HTTP/1.1 204 No Content\r\n\r\nHTTP/1.1") else {
            Issue.record("expected an answer")
            return
        }
        #expect(response.body.isEmpty)
        #expect(consumed == "HTTP/1.1 204 No Content\r\n\r\n".utf8.count)
    }

    @Test(
        "malformed answers are errors that say what was wrong",
        arguments: [
            ("SMTP 220 hello\r\n\r\n", "not an HTTP/1.x status line: SMTP 220 hello"),
            ("HTTP/1.1\r\n\r\n", "not an HTTP/1.x status line: HTTP/1.1"),
            ("HTTP/1.1 20 OK\r\n\r\n", "not an HTTP/1.x status line"),
            ("HTTP/1.1 2000 OK\r\n\r\n", "not an HTTP/1.x status line"),
            ("HTTP/1.1 2x0 OK\r\n\r\n", "not an HTTP/1.x status line"),
            ("HTTP/1.1 099 OK\r\n\r\n", "not an HTTP/1.x status line"),
            ("HTTP/1.1 600 OK\r\n\r\n", "not an HTTP/1.x status line"),
            ("HTTP/2 200 OK\r\n\r\n", "not an HTTP/1.x status line"),
            ("HTTP/1.1 200 OK\r\nno colon\r\n\r\n", "a header line without ':'"),
            ("HTTP/1.1 200 OK\r\nContent-Length: 1\r\nno colon\r\n\r\n", "a header line without ':'"),
            ("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", "an unusable Content-Length: -1"),
            ("HTTP/1.1 200 OK\r\nContent-Length: 1\r\ncontent-length: 1\r\n\r\n", "an unusable Content-Length: 1, 1"),
            ("HTTP/1.1 200 OK\r\nContent-Length: 16777217\r\n\r\n", "an unusable Content-Length: 16777217"),
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "an unusable chunk size: zz"),
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1000001\r\n", "an unusable chunk size: 1000001"),
        ])
    func malformed(text: String, message: String) {
        #expect {
            _ = try parse(text)
        } throws: { error in
            "\(error)".contains(message)
        }
    }

    @Test(
        "a close before a whole answer is an error that says where",
        arguments: [
            ("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nab", "the server closed the connection inside the body"),
            ("HTTP/1.1 200", "the server closed the connection before a whole answer"),
            (
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nab",
                "the server closed the connection inside a chunked body"
            ),
        ])
    func closedEarly(text: String, message: String) {
        #expect {
            _ = try parse(text, closed: true)
        } throws: { error in
            "\(error)" == message
        }
    }

    @Test("a head past 64 KiB without its end is refused; one just under it waits for more")
    func headLimit() throws {
        let long = "HTTP/1.1 200 OK\r\nX-Pad: " + String(repeating: "a", count: LoadResponseParser.maximumHeadByteCount)
        #expect {
            _ = try parse(long)
        } throws: { error in
            "\(error)" == "the answer's head is over 64 KiB"
        }
        // "\r\n" is one Character: cut the bytes.
        let under = Array(long.utf8.prefix(LoadResponseParser.maximumHeadByteCount))
        #expect(try LoadResponseParser.parse(under) == .incomplete)
    }
}

struct LoadOptionsTests {
    @Test("defaults: two round trips through the Envoy shape, one key per worker (at least 16)")
    func defaults() throws {
        let options = try #require(
            try LoadOptions.parse(["--server", "http://localhost:8080/", "--simulator", "/tmp/ca"]))
        #expect(options.servers == [try LoadServerAddress("http://127.0.0.1:8080")])
        #expect(options.flow == .twoRoundTrips)
        #expect(options.requestPath == "/ext-authz/api/points/use")
        #expect(options.keyCount == 16)
        var wide = options
        wide.concurrency = 64
        #expect(wide.keyCount == 64)
        wide.gateway = .direct
        #expect(wide.requestPath == "/api/points/use")
        // One event loop per 128 workers, at most one per core, never more than the workers.
        let cores = ProcessInfo.processInfo.activeProcessorCount
        #expect(options.threads == nil)
        #expect(wide.loopCount == 1)
        wide.concurrency = 256
        #expect(wide.loopCount == min(2, cores))
        wide.concurrency = 4096
        #expect(wide.loopCount == cores)
        wide.threads = 3
        #expect(wide.loopCount == 3)
        wide.concurrency = 2
        #expect(wide.loopCount == 2)
    }

    @Test("every option is read")
    func everyOption() throws {
        let options = try #require(
            try LoadOptions.parse([
                "--server", "http://127.0.0.1:1", "--server", "http://127.0.0.1:2", "--admin", "http://127.0.0.1:3",
                "--server-pid", "42", "--database-process", "postgres", "--simulator", "/tmp/ca", "--team-id", "T",
                "--bundle-id", "B", "--keys", "5", "--concurrency", "3", "--threads", "2", "--seconds", "1.5",
                "--warmup", "0",
                "--flow", "one-round-trip", "--gateway", "direct", "--target", "/v1/demo/points/use",
                "--subject-header", "X-User", "--body", "{}",
            ]))
        #expect(options.servers.map(\.port) == [1, 2])
        #expect(options.admins.map(\.port) == [3])
        #expect(options.serverPIDs == [42])
        #expect(options.databaseProcess == "postgres")
        #expect(options.teamID == "T" && options.bundleID == "B")
        #expect(options.keyCount == 5 && options.concurrency == 3)
        #expect(options.threads == 2 && options.loopCount == 2)
        #expect(options.seconds == 1.5 && options.warmup == 0)
        #expect(options.flow == .oneRoundTrip && options.gateway == .direct)
        #expect(options.requestPath == "/v1/demo/points/use")
        #expect(options.subjectHeader == "X-User" && options.body == "{}")
        #expect(try LoadOptions.parse(["--help"]) == nil)
    }

    @Test(
        "bad arguments are refused with what to do",
        arguments: [
            (["--simulator", "/tmp/ca"], "--server URL is required"),
            (["--server", "http://127.0.0.1:1"], "--simulator DIR is required"),
            (["--server", "https://127.0.0.1:1"], "must be an http:// URL"),
            (["--server", "http://127.0.0.1"], "needs a port"),
            (["--server", "http://example.com:80"], "IPv4 address or localhost"),
            (["--concurrency", "0"], "--concurrency must be a whole number in 1...4096"),
            (["--threads", "0"], "--threads must be a whole number in 1...256 (got 0)"),
            (["--seconds", "900"], "--seconds must be a number in 0.1...600.0"),
            (["--flow", "three"], "--flow must be two-round-trips or one-round-trip"),
            (["--gateway", "nginx"], "--gateway must be envoy or direct"),
            (["--target", "api"], "--target must be a path starting with '/'"),
            (["--keys"], "--keys needs a value"),
            (["--frobnicate"], "unknown argument '--frobnicate'"),
        ])
    func refused(arguments: [String], message: String) {
        #expect {
            _ = try LoadOptions.parse(arguments)
        } throws: { error in
            "\(error)".contains(message)
        }
    }
}

struct LoadSamplerTests {
    @Test("/proc/PID/stat: utime + stime after the last ')' of the command name")
    func statLine() throws {
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        let line = "1234 (rampart (x) y) S 1 1234 1234 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 9 0 1 2 3"
        #expect(LoadSampler.cpuSeconds(statLine: line) == 300 / ticks)
        #expect(LoadSampler.cpuSeconds(statLine: "garbage") == nil)
        #expect(try #require(LoadSampler.cpuSeconds(pid: getpid())) >= 0)
        #expect(LoadSampler.commandName(pid: getpid()) != nil)
    }

    @Test("/metrics: samples by name and labels; the stage counters by stage")
    func metrics() {
        let text = """
            # HELP rampart_stage_cpu_seconds_total x
            rampart_stage_cpu_seconds_total{stage="ecdsa"} 1.5
            rampart_stage_cpu_seconds_total{stage="store"} 0.25
            rampart_verdicts_total{kind="assertion",reason="accepted"} 12
            """
        let samples = LoadSampler.metrics(text)
        #expect(samples["rampart_verdicts_total{kind=\"assertion\",reason=\"accepted\"}"] == 12)
        #expect(LoadSampler.stageSeconds(samples) == ["ecdsa": 1.5, "store": 0.25])
    }

    @Test("percentiles are nearest-rank")
    func percentiles() {
        let values = (1...100).map(Double.init)
        #expect(LoadRun.percentile(values, 0.5) == 50)
        #expect(LoadRun.percentile(values, 0.99) == 99)
        #expect(LoadRun.percentile(values, 1) == 100)
        #expect(LoadRun.percentile([], 0.5) == 0)
    }
}

/// Both flows against a real `AttestationServer` on loopback (in this process): keys register, every protected
/// request is allowed, the one-round-trip flow fetches challenges only for each key's first request.
@Suite(.serialized)
struct LoadFlowTests {
    private static func withServer(
        _ body: (LoadOptions, AttestationServer) throws -> Void
    ) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rampart-load-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try AppAttestSimulator(keptIn: folder)
        var configuration = ServiceConfiguration()
        configuration.listen = "127.0.0.1:0"
        configuration.adminListen = "127.0.0.1:0"
        configuration.database = "sqlite::memory:"
        configuration.teamId = "BENCH12345"
        configuration.bundleId = "com.rampart.bench"
        configuration.environment = "development"
        configuration.root = folder.appendingPathComponent("root.pem").path
        configuration.subject = .header("X-User-Id")
        configuration.demo = true
        configuration.limits = RequestLimits(
            challengesPerAddressPerMinute: 0, challengesPerSubjectPerMinute: 0, failuresPerAddressPerMinute: 0)
        configuration.connectionsPerAddress = 0
        let server = try AttestationServer(configuration: configuration, verifier: try configuration.makeVerifier())
        var options = LoadOptions()
        options.servers = [try LoadServerAddress("http://127.0.0.1:\(server.port)")]
        options.admins = [try LoadServerAddress("http://127.0.0.1:\(server.adminPort)")]
        options.serverPIDs = [getpid()]
        options.simulator = folder.path
        options.concurrency = 2
        options.keys = 3
        options.seconds = 0.4
        options.warmup = 0.1
        do {
            try body(options, server)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    @Test("two round trips: a challenge per protected request, all allowed", arguments: LoadGateway.allCases)
    func twoRoundTrips(gateway: LoadGateway) async throws {
        try await Self.withServer { options, _ in
            var options = options
            options.gateway = gateway
            if gateway == .direct { options.target = "/v1/demo/points/use" }
            let report = try LoadRun.run(options)
            #expect(report.keys == 3)
            #expect(report.protectedRequests > 0)
            #expect(report.refused == 0, "\(report.refusedByCode)")
            #expect(report.errors == 0, "\(report.firstError ?? "")")
            #expect(report.challengeRequests == report.protectedRequests)
            #expect(report.connectionsOpened <= 2 + 3, "connections are kept alive")
            #expect(report.serverCPUMicrosecondsPerRequest != nil)
        }
    }

    @Test("one round trip: the next challenge of each answer signs the next request")
    func oneRoundTrip() async throws {
        try await Self.withServer { options, _ in
            var options = options
            options.flow = .oneRoundTrip
            let report = try LoadRun.run(options)
            #expect(report.protectedRequests > 3)
            #expect(report.refused == 0, "\(report.refusedByCode)")
            #expect(report.errors == 0, "\(report.firstError ?? "")")
            // Each key fetched a challenge for its first request, in the warm-up or the window.
            #expect(report.challengeRequests <= 3)
        }
    }

    @Test("an unknown key is refused, and the refusal names its Rampart-Error code")
    func refusedByCode() async throws {
        try await Self.withServer { options, _ in
            let simulator = try AppAttestSimulator(keptIn: URL(fileURLWithPath: options.simulator ?? ""))
            let app = LoadApp(options: options, simulator: simulator)
            let connection = LoadConnection(options.servers[0])
            var key = LoadKey(subject: "registered", teamID: options.teamID, bundleID: options.bundleID)
            try app.register(key, on: connection)
            let allowed = try app.protectedRequest(&key, on: connection)
            #expect(allowed == LoadApp.Outcome(status: 200, code: nil, fetchedChallenge: true))
            #expect(key.nextChallenge != nil)
            var stranger = LoadKey(subject: "stranger", teamID: options.teamID, bundleID: options.bundleID)
            let unknown = try app.protectedRequest(&stranger, on: connection)
            #expect(unknown == LoadApp.Outcome(status: 401, code: "unknownKey", fetchedChallenge: true))
            #expect(stranger.nextChallenge == nil)
        }
    }
}

struct LoadEncodingTests {
    @Test("base64 matches Foundation's for every length of a block and a half")
    func base64() {
        for count in 0...67 {
            let bytes = (0..<count).map { _ in UInt8.random(in: 0...255) }
            var output = Array("x".utf8)
            LoadBase64.append(bytes, to: &output)
            #expect(output == Array(("x" + Data(bytes).base64EncodedString()).utf8), "\(count) bytes")
        }
    }

    @Test(
        "the challenge body: the service's exact shape is scanned, any other JSON goes through JSONValue",
        arguments: [
            (#"{"challenge":"q-1_Z","expiresAt":"2026-12-01T15:00:00Z"}"#, "q-1_Z", true),
            (#"{"challenge":"a b+/=","expiresAt":""}"#, "a b+/=", true),
            (#"{ "challenge": "spaced", "expiresAt": "x" }"#, "spaced", false),
            (#"{"expiresAt":"x","challenge":"reordered"}"#, "reordered", false),
            (#"{"challenge":"a\/b","expiresAt":"x"}"#, "a/b", false),
            (#"{"challenge":"only"}"#, "only", false),
            (#"{"challenge":"","expiresAt":"x"}"#, "", false),
        ])
    func challengeBody(text: String, challenge: String, exact: Bool) {
        #expect(LoadChallengeBody.challenge(in: Array(text.utf8)) == challenge)
        #expect((LoadChallengeBody.exactChallenge(in: Array(text.utf8)) != nil) == exact)
    }

    @Test(
        "a body without a string challenge has none",
        arguments: [
            #"{"challenge":"a","expiresAt":"x"} "# + "trailing",
            #"{"challenge":"a","expiresAt":"x"}}"#,
            #"{"challenge":5,"expiresAt":"x"}"#,
            #"{"challenge":"a","challenge":"b"}"#,
            #"["challenge"]"#,
            "",
        ])
    func noChallenge(text: String) {
        #expect(LoadChallengeBody.challenge(in: Array(text.utf8)) == nil)
    }

    @Test("a challenge answer that is not a 200 with a challenge names its status and Rampart-Error")
    func challengeRefused() {
        let refused = LoadResponse(
            status: 429, rampartError: "rateLimited", nextChallenge: nil, body: [], keepAlive: true)
        #expect {
            _ = try LoadApp.challenge(from: refused)
        } throws: { error in
            "\(error)" == "POST /v1/challenges answered 429 rateLimited instead of a challenge"
        }
        let empty = LoadResponse(
            status: 200, rampartError: nil, nextChallenge: nil, body: Array("{}".utf8), keepAlive: true)
        #expect {
            _ = try LoadApp.challenge(from: empty)
        } throws: { error in
            "\(error)" == "POST /v1/challenges answered 200  instead of a challenge"
        }
    }

    @Test("the request bytes: the challenge request and the signed request, fields in the app's order")
    func requestBytes() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rampart-load-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        var options = LoadOptions()
        options.simulator = folder.path
        let app = LoadApp(options: options, simulator: try AppAttestSimulator(keptIn: folder))
        let server = try LoadServerAddress("http://127.0.0.1:8080")
        var key = LoadKey(subject: "user-1", teamID: options.teamID, bundleID: options.bundleID)
        let requests = LoadRequestBytes(key: key, server: server, app: app)
        #expect(
            String(decoding: requests.challenge, as: UTF8.self)
                == "POST /v1/challenges HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nX-User-Id: user-1\r\n"
                + "Content-Type: application/json\r\nContent-Length: 23\r\n\r\n{\"purpose\":\"assertion\"}")
        var signed: [UInt8] = Array("stale".utf8)
        try app.writeSignedRequest(&key, challenge: "c-1", requests: requests, into: &signed)
        let text = String(decoding: signed, as: UTF8.self)
        let lines = text.components(separatedBy: "\r\n")
        #expect(lines.count == 11)
        #expect(lines[0] == "POST /ext-authz/api/points/use HTTP/1.1")
        #expect(lines[1] == "Host: 127.0.0.1:8080")
        #expect(lines[2] == "X-User-Id: user-1")
        #expect(lines[3] == "Content-Type: application/json")
        #expect(lines[4] == "Rampart-Key-Id: \(key.keyID)")
        #expect(lines[5] == "Rampart-Challenge: c-1")
        let assertion = try #require(Data(base64Encoded: String(lines[6].dropFirst("Rampart-Assertion: ".count))))
        #expect(lines[6].hasPrefix("Rampart-Assertion: ") && assertion.count > 64)
        #expect(lines[7] == "Content-Digest: \(app.contentDigest)")
        #expect(lines[8] == "Content-Length: 12")
        #expect(lines[9] == "" && lines[10] == #"{"amount":1}"#)
        // A fresh assertion each time (the counter moves on), and a challenge the signed text refuses is not sent.
        var again: [UInt8] = []
        try app.writeSignedRequest(&key, challenge: "c-1", requests: requests, into: &again)
        #expect(again != signed)
        #expect(throws: RequestSigningError.self) {
            try app.writeSignedRequest(&key, challenge: "c\r\nX-Injected: 1", requests: requests, into: &again)
        }
    }
}

/// A loopback HTTP server for the event loop's failure paths: each connection on its own thread, each request
/// (head plus `Content-Length` body) answered with what `answer(connection, request, head)` returns, or the
/// connection closed when it returns nil.
private final class ScriptedServer: Sendable {
    /// What the server does with one request.
    enum Reply {
        /// Sends these bytes and reads the next request.
        case answer(String)
        /// Sends these bytes and closes the connection.
        case answerAndClose(String)
    }

    let port: UInt16
    private let listener: Int32

    init(answer: @escaping @Sendable (_ connection: Int, _ request: Int, _ head: String) -> Reply?) throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, length) == 0 && listen(listener, 16) == 0 && getsockname(listener, $0, &length) == 0
            }
        }
        guard listener >= 0, bound else { throw LoadError("the scripted server could not listen") }
        self.listener = listener
        port = UInt16(bigEndian: address.sin_port)
        Thread.detachNewThread {
            var connection = 0
            while true {
                let socket = accept(listener, nil, nil)
                guard socket >= 0 else { return }
                let number = connection
                connection += 1
                Thread.detachNewThread { Self.serve(socket, number, answer) }
            }
        }
    }

    private static func serve(
        _ socket: Int32, _ connection: Int, _ answer: @Sendable (Int, Int, String) -> Reply?
    ) {
        defer { close(socket) }
        var buffer: [UInt8] = []
        var scratch = [UInt8](repeating: 0, count: 4096)
        var request = 0
        while true {
            while LoadResponseParser.find("\r\n\r\n", in: buffer) == nil {
                let count = scratch.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
                guard count > 0 else { return }
                buffer += scratch[0..<count]
            }
            let headEnd = LoadResponseParser.find("\r\n\r\n", in: buffer) ?? 0
            let head = String(decoding: buffer[..<headEnd], as: UTF8.self)
            let length =
                head.components(separatedBy: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
            while buffer.count < headEnd + 4 + length {
                let count = scratch.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
                guard count > 0 else { return }
                buffer += scratch[0..<count]
            }
            buffer.removeFirst(headEnd + 4 + length)
            let text: String
            var last = false
            switch answer(connection, request, head) {
            case nil: return
            case .answer(let answer): text = answer
            case .answerAndClose(let answer):
                text = answer
                last = true
            }
            request += 1
            let bytes = Array(text.utf8)
            guard bytes.withUnsafeBytes({ send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == bytes.count,
                !last
            else { return }
        }
    }

    /// Stops accepting (the connections end when the client closes them).
    func stop() { shutdown(listener, Int32(SHUT_RDWR)) }

    deinit { close(listener) }

    static let challenge = Reply.answer(
        "HTTP/1.1 200 OK\r\nContent-Length: 40\r\n\r\n" + #"{"challenge":"c-1","expiresAt":"later!"}"#)
    static let allowed = Reply.answer("HTTP/1.1 200 OK\r\nRampart-Next-Challenge: n-1\r\nContent-Length: 0\r\n\r\n")
}

/// ``LoadEventLoop`` on its own: the answers it counts, its retry on a kept-alive connection closed under it, and
/// the failures it counts.
@Suite(.serialized)
struct LoadEventLoopTests {
    private static func run(
        port: UInt16, flow: LoadFlow = .twoRoundTrips, workers: Int = 1, seconds: Double = 0.3, body: String? = nil
    ) throws -> LoadTally {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rampart-load-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        var options = LoadOptions()
        options.simulator = folder.path
        options.flow = flow
        if let body { options.body = body }
        let server = try LoadServerAddress("http://127.0.0.1:\(port)")
        options.servers = [server]
        let app = LoadApp(options: options, simulator: try AppAttestSimulator(keptIn: folder))
        let now = ContinuousClock.now
        let loop = try LoadEventLoop(app: app, start: now, end: now + .milliseconds(Int(seconds * 1000)))
        for worker in 0..<workers {
            loop.addWorker(
                server: server,
                keys: (0..<2).map {
                    LoadKey(subject: "w\(worker)-\($0)", teamID: options.teamID, bundleID: options.bundleID)
                })
        }
        try loop.run()
        return loop.tally
    }

    @Test("answers are checked and counted: allowed, refused by Rampart-Error code or status, challenges fetched")
    func counted() throws {
        let server = try ScriptedServer { _, request, head in
            if head.hasPrefix("POST /v1/challenges ") { return ScriptedServer.challenge }
            // Anything but the signed request with the challenge just issued fails the run (errors == 0 below).
            guard head.contains("\r\nRampart-Challenge: c-1\r\nRampart-Assertion: ") else { return nil }
            switch request / 2 % 3 {
            case 0: return ScriptedServer.allowed
            case 1:
                return .answer("HTTP/1.1 401 Unauthorized\r\nRampart-Error: badSignature\r\nContent-Length: 0\r\n\r\n")
            default: return .answer("HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n")
            }
        }
        defer { server.stop() }
        let tally = try Self.run(port: server.port, workers: 3)
        #expect(tally.errors == 0, "\(tally.firstError ?? "")")
        #expect(tally.allowed > 0)
        #expect(tally.refusedByCode["badSignature", default: 0] > 0)
        #expect(tally.refusedByCode["status-403", default: 0] > 0)
        #expect(tally.latencies.count == tally.allowed + tally.refusedByCode.values.reduce(0, +))
        #expect(tally.challengeRequests == tally.latencies.count)
        #expect(tally.connectionsOpened == 3)
    }

    @Test("one round trip: the answer's next challenge signs the key's next request")
    func nextChallenge() throws {
        let server = try ScriptedServer { _, _, head in
            if head.hasPrefix("POST /v1/challenges ") { return ScriptedServer.challenge }
            let expected = head.contains("Rampart-Challenge: c-1\r\n") || head.contains("Rampart-Challenge: n-1\r\n")
            return expected ? ScriptedServer.allowed : nil
        }
        defer { server.stop() }
        let tally = try Self.run(port: server.port, flow: .oneRoundTrip)
        #expect(tally.errors == 0, "\(tally.firstError ?? "")")
        #expect(tally.allowed > 2)
        // Each of the two keys fetched one challenge, for its first request.
        #expect(tally.challengeRequests == 2)
    }

    @Test("a request larger than the socket's buffer is sent in parts, on EPOLLOUT")
    func partialSends() throws {
        let server = try ScriptedServer { _, _, head in
            if head.hasPrefix("POST /v1/challenges ") { return ScriptedServer.challenge }
            return head.hasSuffix("\r\nContent-Length: 16777226") ? ScriptedServer.allowed : nil
        }
        defer { server.stop() }
        // 16 MiB and 10 bytes: more than loopback's largest send buffer (tcp_wmem's 4 MiB by default).
        let body = #"{"pad":""# + String(repeating: "a", count: 16 << 20) + #""}"#
        let tally = try Self.run(port: server.port, seconds: 0.5, body: body)
        #expect(tally.errors == 0, "\(tally.firstError ?? "")")
        #expect(tally.allowed > 0)
    }

    @Test("a kept-alive connection closed under a request is retried once on a new connection")
    func retried() throws {
        // The first connection answers one protected request (two exchanges), then closes without answering.
        let server = try ScriptedServer { connection, request, head in
            if connection == 0 && request == 2 { return nil }
            return head.hasPrefix("POST /v1/challenges ") ? ScriptedServer.challenge : ScriptedServer.allowed
        }
        defer { server.stop() }
        let tally = try Self.run(port: server.port)
        #expect(tally.errors == 0, "\(tally.firstError ?? "")")
        #expect(tally.allowed > 1)
        #expect(tally.connectionsOpened == 2)
    }

    @Test(
        "a protected request that fails is counted with its error, and the worker tries again after 10 ms",
        arguments: [
            (nil, "the server closed the connection without answering"),
            ("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nab", "the server closed the connection inside the body"),
            ("HTTP/1.1 200 OK\r\n", "the server closed the connection before a whole answer"),
            ("HTTP/1.1 200 OK\r\nno colon\r\n\r\n", "a header line without ':'"),
            (
                "HTTP/1.1 500 Internal\r\nContent-Length: 0\r\n\r\n",
                "POST /v1/challenges answered 500  instead of a challenge"
            ),
        ])
    func failed(answer: String?, message: String) throws {
        let server = try ScriptedServer { _, _, _ in answer.map { .answerAndClose($0) } }
        defer { server.stop() }
        let tally = try Self.run(port: server.port, seconds: 0.2)
        #expect(tally.firstError == message)
        #expect(tally.errors >= 2)
        #expect(tally.latencies.isEmpty)
        // A failed exchange on a new connection is not retried; the 10 ms pause bounds the attempts.
        #expect(tally.connectionsOpened <= tally.errors + 1)
        #expect(tally.errors <= 25)
    }

    @Test("a server that refuses connections: every protected request is an error naming it")
    func unreachable() throws {
        let server = try ScriptedServer { _, _, _ in nil }
        let port = server.port
        server.stop()
        let tally = try Self.run(port: port, seconds: 0.1)
        #expect(
            tally.firstError?.hasPrefix("cannot connect to http://127.0.0.1:\(port): ") == true,
            "\(tally.firstError ?? "")")
        #expect(tally.errors >= 2)
        #expect(tally.connectionsOpened == 0)
    }
}
