import Foundation
import RampartAttestService
import Synchronization
import Testing

/// Issue 14 item 4: connections stay open between requests, and every request on them, pipelined or not, still
/// passes the event loop's framing check; nothing it has not framed reaches the responder.
@Suite(.serialized)
struct KeepAliveTests {
    /// Answers like ``EchoResponder`` and records each request it sees (`METHOD path bodyCount`).
    final class RecordingResponder: HTTPResponder {
        let seen = Mutex<[String]>([])

        func respond(to request: HTTPRequest) async -> HTTPResponse {
            let line = "\(request.method) \(request.path) \(request.body.count)"
            seen.withLock { $0.append(line) }
            return HTTPResponse(status: 200, headers: ["Content-Type": "text/plain"], body: Array(line.utf8))
        }
    }

    func withServer(
        requestTimeoutSeconds: Double = 10, connectionTimeoutSeconds: Int = 30,
        _ body: (UInt16, RecordingResponder) async throws -> Void
    ) async throws {
        let responder = RecordingResponder()
        let server = HTTPServer(
            configuration: .init(
                host: "127.0.0.1", port: 0, maximumBodyByteCount: 1024, requestTimeoutSeconds: requestTimeoutSeconds,
                connectionTimeoutSeconds: connectionTimeoutSeconds),
            responder: responder)
        try server.start()
        defer { server.stop() }
        try await body(try #require(server.port), responder)
    }

    /// Runs blocking socket work on its own thread (see ``RawHTTP/exchange(port:_:timeoutSeconds:source:)``).
    func onThread<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T { await RawHTTP.onThread(work) }

    @Test("three requests one after another on one connection are all answered, and it stays open")
    func sequential() async throws {
        try await withServer { port, responder in
            let statuses = await onThread { () -> [Int] in
                guard let socket = RawHTTP.connectedSocket(port: port) else { return [] }
                defer { close(socket) }
                var statuses: [Int] = []
                for index in 0..<3 {
                    RawHTTP.sendAll(socket, Array("GET /r\(index) HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
                    guard let answer = RawHTTP.receiveOne(socket) else { break }
                    statuses.append(answer.headers["connection"] == "close" ? -answer.status : answer.status)
                }
                return statuses
            }
            #expect(statuses == [200, 200, 200])
            #expect(responder.seen.withLock { $0 } == ["GET /r0 0", "GET /r1 0", "GET /r2 0"])
        }
    }

    @Test("a badly framed request sent later on a kept-alive connection is 400 and closes it")
    func badSecondRequestLater() async throws {
        for bad in [
            "GET /b HTTP/1.1\nHost: x\n\n", "GET /b HTTP/1.1\r\nHost: x\r\nX-A: a\r\n b\r\n\r\n",
            "GET /b HTTP/1.1\r\nHost : x\r\n\r\n",
            "POST /b HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab",
            "GET /b HTTP/1.1\r\nX-A: a\u{0}b\r\n\r\n",
        ] {
            try await withServer { port, responder in
                let (first, second, closed) = await onThread { () -> (Int?, RawHTTP.Response?, Bool) in
                    guard let socket = RawHTTP.connectedSocket(port: port) else { return (nil, nil, false) }
                    defer { close(socket) }
                    RawHTTP.sendAll(socket, Array("GET /a HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
                    let first = RawHTTP.receiveOne(socket)?.status
                    RawHTTP.sendAll(socket, Array(bad.utf8))
                    let second = RawHTTP.receiveOne(socket)
                    return (first, second, RawHTTP.receiveAll(socket).isEmpty)
                }
                #expect(first == 200)
                #expect(second?.status == 400, "\(bad.debugDescription)")
                #expect(second?.body.contains(#""error":"malformedRequest""#) == true)
                #expect(second?.headers["connection"] == "close")
                #expect(closed)
                #expect(responder.seen.withLock { $0 } == ["GET /a 0"])
            }
        }
    }

    struct Smuggling: CustomTestStringConvertible, Sendable {
        let name: String
        let bytes: String
        /// The statuses answered, in order, before the connection closes.
        let statuses: [Int]
        /// What the responder saw.
        let seen: [String]
        var testDescription: String { name }
    }

    static let smuggling: [Smuggling] = [
        .init(
            name: "CL.TE: Content-Length and Transfer-Encoding together",
            bytes: "POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 6\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"
                + "GET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n",
            statuses: [400], seen: []),
        .init(
            name: "TE.CL: Transfer-Encoding first",
            bytes: "POST /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 4\r\n\r\n5c\r\n"
                + "GET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n0\r\n\r\n",
            statuses: [400], seen: []),
        .init(
            name: "a good request, then one with two Content-Lengths hiding a third",
            bytes: "GET /a HTTP/1.1\r\nHost: x\r\n\r\n"
                + "POST /b HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nContent-Length: 37\r\n\r\n"
                + "GET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n",
            statuses: [200, 400], seen: ["GET /a 0"]),
        .init(
            name: "a body that is a head is a body: the bytes after it are the next request",
            bytes: "POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 35\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n"
                + "GET /c HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
            statuses: [200, 200], seen: ["POST /a 35", "GET /c 0"]),
        .init(
            name: "a body shorter than sent: the rest is framed as a head, and refused",
            bytes:
                "POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nabGET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n",
            statuses: [200, 400], seen: ["POST /a 5"]),
        .init(
            name: "an obs-folded head between two good ones: nothing after it is answered",
            bytes: "GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\nX-A: 1\r\n\tGET /smuggled\r\n\r\n"
                + "GET /c HTTP/1.1\r\nHost: x\r\n\r\n",
            statuses: [200, 400], seen: ["GET /a 0"]),
        .init(
            name: "a bare-LF head hidden after a good one in one write",
            bytes: "GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /smuggled HTTP/1.1\nHost: x\n\n",
            statuses: [200, 400], seen: ["GET /a 0"]),
        .init(
            name: "requests after Connection: close are not answered",
            bytes: "GET /a HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n",
            statuses: [200], seen: ["GET /a 0"]),
        .init(
            name: "a chunked request after a good one is 411 and ends the connection",
            bytes: "GET /a HTTP/1.1\r\nHost: x\r\n\r\nPOST /b HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "24\r\nGET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n\r\n0\r\n\r\n",
            statuses: [200, 411], seen: ["GET /a 0"]),
        .init(
            name: "an oversized head after a good one is 431 and ends the connection",
            bytes: "GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nX-Big: "
                + String(repeating: "a", count: HTTPServer.Configuration.defaultMaximumHeadByteCount) + "\r\n\r\n",
            statuses: [200, 431], seen: ["GET /a 0"]),
        .init(
            name: "an oversized body announced after a good one is 413 and ends the connection",
            bytes: "GET /a HTTP/1.1\r\nHost: x\r\n\r\nPOST /b HTTP/1.1\r\nHost: x\r\nContent-Length: 99999\r\n\r\n"
                + "GET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n",
            statuses: [200, 413], seen: ["GET /a 0"]),
    ]

    @Test(
        "request smuggling through pipelining is refused; the responder sees only framed requests", arguments: smuggling
    )
    func pipelined(_ attempt: Smuggling) async throws {
        try await withServer { port, responder in
            let answers = await RawHTTP.exchangeAll(port: port, Array(attempt.bytes.utf8))
            #expect(answers.map(\.status) == attempt.statuses)
            #expect(responder.seen.withLock { $0 } == attempt.seen)
            #expect(answers.last?.headers["connection"] == "close")
        }
    }

    @Test("many pipelined requests are answered in order")
    func manyPipelined() async throws {
        try await withServer { port, responder in
            var bytes = ""
            for index in 0..<50 { bytes += "GET /p\(index) HTTP/1.1\r\nHost: x\r\n\r\n" }
            bytes += "GET /last HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
            let answers = await RawHTTP.exchangeAll(port: port, Array(bytes.utf8))
            #expect(answers.count == 51)
            #expect(answers.map(\.body) == (0..<50).map { "GET /p\($0) 0" } + ["GET /last 0"])
            #expect(responder.seen.withLock { $0.count } == 51)
        }
    }

    @Test("a later request's head trickled past the request time is 408, after the earlier answer")
    func laterHeadDeadline() async throws {
        try await withServer(requestTimeoutSeconds: 1) { port, responder in
            let (first, second) = await onThread { () -> (Int?, RawHTTP.Response?) in
                guard let socket = RawHTTP.connectedSocket(port: port, timeoutSeconds: 5) else { return (nil, nil) }
                defer { close(socket) }
                RawHTTP.sendAll(socket, Array("GET /a HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
                let first = RawHTTP.receiveOne(socket)?.status
                // Idle between requests is not the request time: wait past it before starting the next one.
                Thread.sleep(forTimeInterval: 1.3)
                RawHTTP.sendAll(socket, Array("GET /b HTTP/1.1\r\n".utf8))
                for line in 0..<30 {
                    Thread.sleep(forTimeInterval: 0.1)
                    RawHTTP.sendAll(socket, Array("X-\(line): 1\r\n".utf8))
                }
                return (first, RawHTTP.receiveOne(socket))
            }
            #expect(first == 200)
            #expect(second?.status == 408)
            #expect(second?.body.contains(#""error":"requestTimeout""#) == true)
            #expect(responder.seen.withLock { $0 } == ["GET /a 0"])
        }
    }

    /// Answers after `delay`, like a slow store.
    struct SlowResponder: HTTPResponder {
        let delay: Duration
        func respond(to request: HTTPRequest) async -> HTTPResponse {
            try? await Task.sleep(for: delay)
            return HTTPResponse(status: 200, body: Array("late".utf8))
        }
    }

    /// CPU seconds used so far by the event-loop thread of the server on `port` (named `http:<port>`; other suites'
    /// servers run in the same process at the same time); nil when no such thread exists.
    static func loopCPUSeconds(port: UInt16) -> Double? {
        // Listing /proc/self/task can fail while the parallel suites start and end threads: list it again then.
        for _ in 0..<20 {
            if let seconds = loopCPUSecondsOnce(port: port) { return seconds }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return nil
    }

    private static func loopCPUSecondsOnce(port: UInt16) -> Double? {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        var ticks: Int?
        for task in tasks {
            let comm = (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)) ?? ""
            guard comm.trimmingCharacters(in: .newlines) == "http:\(port)",
                let stat = try? String(contentsOfFile: "/proc/self/task/\(task)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { continue }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            // After the command: state is field 3, utime 14 and stime 15 (proc(5)).
            guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else { continue }
            ticks = (ticks ?? 0) + user + system
        }
        return ticks.map { Double($0) / Double(sysconf(Int32(_SC_CLK_TCK))) }
    }

    @Test(
        "every event-loop thread is named http:PORT as soon as its server has started (40 servers, one after another)")
    func loopThreadsNamed() throws {
        // Foundation's Thread.name setter drops the name when the new thread runs before start() has stored its
        // handle; the loop names itself with pthread_setname_np.
        for _ in 0..<40 {
            let server = HTTPServer(
                configuration: .init(host: "127.0.0.1", port: 0), responder: SlowResponder(delay: .seconds(1)))
            try server.start()
            defer { server.stop() }
            let port = try #require(server.port)
            #expect(Self.loopCPUSeconds(port: port) != nil, "no event-loop thread named http:\(port)")
        }
    }

    @Test("a client that resets while its request is being answered costs the event loop no spinning")
    func resetWhileAnswering() async throws {
        let server = HTTPServer(
            configuration: .init(host: "127.0.0.1", port: 0), responder: SlowResponder(delay: .seconds(1)))
        try server.start()
        defer { server.stop() }
        let port = try #require(server.port)
        let before = try #require(Self.loopCPUSeconds(port: port), "no event-loop thread named http:\(port)")
        let sent = await onThread { () -> Bool in
            guard let socket = RawHTTP.connectedSocket(port: port) else { return false }
            RawHTTP.sendAll(socket, Array("GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\nHost: x\n\n".utf8))
            Thread.sleep(forTimeInterval: 0.2)
            // SO_LINGER 0: close sends a reset.
            var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
            setsockopt(socket, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
            close(socket)
            return true
        }
        #expect(sent)
        try await Task.sleep(for: .milliseconds(1200))
        let used = try #require(Self.loopCPUSeconds(port: port)) - before
        #expect(used < 0.5, "the event loop used \(used) s of CPU in 1.2 s")
        #expect(await RawHTTP.request(port: port, "GET", "/healthz")?.status == 200)
    }

    @Test("an idle kept-alive connection is closed after the connection timeout")
    func idleTimeout() async throws {
        try await withServer(connectionTimeoutSeconds: 1) { port, _ in
            let (first, closedAfter) = await onThread { () -> (Int?, Double) in
                guard let socket = RawHTTP.connectedSocket(port: port, timeoutSeconds: 6) else { return (nil, 0) }
                defer { close(socket) }
                RawHTTP.sendAll(socket, Array("GET /a HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
                let first = RawHTTP.receiveOne(socket)?.status
                let start = Date()
                _ = RawHTTP.receiveAll(socket)
                return (first, Date().timeIntervalSince(start))
            }
            #expect(first == 200)
            #expect(closedAfter > 0.5 && closedAfter < 5, "closed after \(closedAfter) s")
        }
    }
}
