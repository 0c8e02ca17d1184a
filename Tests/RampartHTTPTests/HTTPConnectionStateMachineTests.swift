import Foundation
import Testing

@testable import RampartHTTP

/// The connection state machine without a socket: events in, actions out, time given by the test.
struct HTTPConnectionStateMachineTests {
    typealias Machine = HTTPConnectionStateMachine
    typealias Action = HTTPConnectionStateMachine.Action

    static let start = ContinuousClock.now

    static func machine(unsentByteLimit: Int = 256 * 1024) -> Machine {
        Machine(
            limits: .init(
                maximumHeadByteCount: 1024, maximumBodyByteCount: 64, requestTimeout: .seconds(10),
                idleTimeout: .seconds(30), unsentByteLimit: unsentByteLimit),
            peerAddress: "192.0.2.1", writer: ResponseWriter(),
            refusalResponse: { $0.response(HTTPServer.Configuration()) }, at: start)
    }

    static func at(_ seconds: Double) -> ContinuousClock.Instant { start + .milliseconds(Int(seconds * 1000)) }

    static func requests(_ actions: [Action]) -> [String] {
        actions.compactMap {
            guard case .dispatch(let request) = $0 else { return nil }
            return "\(request.method) \(request.path) \(request.body.count)"
        }
    }

    /// The status line and the `Connection` field of each write.
    static func writes(_ actions: [Action]) -> [String] {
        actions.compactMap {
            guard case .write(let bytes) = $0 else { return nil }
            let text = String(decoding: bytes, as: UTF8.self)
            let status = text.split(separator: "\r\n").first.map(String.init) ?? ""
            return text.contains("\r\nConnection: close\r\n") ? status + " (close)" : status
        }
    }

    static func ok(_ body: String = "ok") -> HTTPResponse { HTTPResponse(status: 200, body: Array(body.utf8)) }

    @Test("a request in pieces is dispatched once whole; nothing is read while it is answered; the answer is written")
    func oneRequest() {
        var machine = Self.machine()
        #expect(machine.bytesReceived(Array("POST /a HTTP/1.1\r\nHo".utf8), at: Self.at(0)).isEmpty)
        #expect(machine.bytesReceived(Array("st: x\r\nContent-Length: 3\r\n\r\nab".utf8), at: Self.at(0)).isEmpty)
        let dispatched = machine.bytesReceived(Array("c".utf8), at: Self.at(0))
        #expect(Self.requests(dispatched) == ["POST /a 3"])
        guard case .dispatch(let request)? = dispatched.first else { return }
        #expect(request.remoteAddress == "192.0.2.1")
        #expect(request.headers["host"] == "x")
        #expect(!machine.wantsBytes)
        let answered = machine.answerReady(Self.ok(), at: Self.at(1))
        #expect(Self.writes(answered) == ["HTTP/1.1 200 OK"])
        #expect(answered.count == 1)
        #expect(machine.wantsBytes)
        #expect(machine.phase == .head)
    }

    @Test("pipelined requests are dispatched one at a time, in order, each after the answer before it")
    func pipelined() {
        var machine = Self.machine()
        let bytes =
            "GET /1 HTTP/1.1\r\nHost: x\r\n\r\nGET /2 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\nGET /3 HTTP/1.1\r\n"
        #expect(Self.requests(machine.bytesReceived(Array(bytes.utf8), at: Self.at(0))) == ["GET /1 0"])
        let second = machine.answerReady(Self.ok(), at: Self.at(0))
        #expect(Self.writes(second) == ["HTTP/1.1 200 OK"])
        #expect(Self.requests(second) == ["GET /2 0"])
        // The client asked to close: the third request is never read.
        let last = machine.answerReady(Self.ok(), at: Self.at(0))
        #expect(Self.writes(last) == ["HTTP/1.1 200 OK (close)"])
        #expect(last.last == .closeGracefully)
        #expect(Self.requests(last).isEmpty)
        #expect(machine.phase == .closing)
    }

    @Test("a badly framed head is refused with its 400, written last, and the connection closes gracefully")
    func malformed() {
        var machine = Self.machine()
        let actions = machine.bytesReceived(Array("GET /a HTTP/1.1\nHost: x\n\n".utf8), at: Self.at(0))
        #expect(Self.writes(actions) == ["HTTP/1.1 400 Bad Request (close)"])
        #expect(actions.last == .closeGracefully)
        #expect(Self.requests(actions).isEmpty)
        #expect(!machine.wantsBytes)
        // Bytes that still come are not read.
        #expect(machine.bytesReceived(Array("GET /b HTTP/1.1\r\nHost: x\r\n\r\n".utf8), at: Self.at(0)).isEmpty)
    }

    @Test(
        "refusals before the body is read: 413 over the cap, 411 chunked, 400 both framings, 431 head, 505 version",
        arguments: [
            ("POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 65\r\n\r\n", "HTTP/1.1 413 Content Too Large (close)"),
            (
                "POST /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n",
                "HTTP/1.1 411 Length Required (close)"
            ),
            (
                "POST /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 1\r\n\r\n",
                "HTTP/1.1 400 Bad Request (close)"
            ),
            (
                "GET /a HTTP/1.1\r\nX: " + String(repeating: "a", count: 1100),
                "HTTP/1.1 431 Request Header Fields Too Large (close)"
            ),
            ("GET /a HTTP/2.0\r\nHost: x\r\n\r\n", "HTTP/1.1 505 HTTP Version Not Supported (close)"),
        ])
    func refusedBeforeTheBody(head: String, answer: String) {
        var machine = Self.machine()
        let actions = machine.bytesReceived(Array(head.utf8), at: Self.at(0))
        #expect(Self.writes(actions) == [answer])
        #expect(actions.last == .closeGracefully)
    }

    @Test("a head not whole within the request time is 408; a late body cuts the connection")
    func requestTimeout() {
        var head = Self.machine()
        _ = head.bytesReceived(Array("GET /a HTTP/1.1\r\n".utf8), at: Self.at(1))
        #expect(head.tick(at: Self.at(9.9)).isEmpty)
        let late = head.tick(at: Self.at(10))
        #expect(Self.writes(late) == ["HTTP/1.1 408 Request Timeout (close)"])
        #expect(late.last == .closeGracefully)
        var body = Self.machine()
        _ = body.bytesReceived(Array("POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nab".utf8), at: Self.at(1))
        #expect(body.tick(at: Self.at(10)) == [.close])
    }

    @Test("a later request's time runs from its own first byte, not from the idle time before it")
    func laterRequestTime() {
        var machine = Self.machine()
        _ = machine.bytesReceived(Array("GET /a HTTP/1.1\r\nHost: x\r\n\r\n".utf8), at: Self.at(0))
        _ = machine.answerReady(Self.ok(), at: Self.at(0))
        _ = machine.bytesSent(1024, at: Self.at(0))
        #expect(machine.tick(at: Self.at(20)).isEmpty)
        _ = machine.bytesReceived(Array("GET /b HTTP/1.1\r\n".utf8), at: Self.at(20))
        #expect(machine.tick(at: Self.at(29)).isEmpty)
        #expect(Self.writes(machine.tick(at: Self.at(30))) == ["HTTP/1.1 408 Request Timeout (close)"])
    }

    @Test("an idle connection is closed after the idle timeout; one whose client reads nothing, too")
    func idle() {
        var idle = Self.machine()
        _ = idle.bytesReceived(Array("GET /a HTTP/1.1\r\nHost: x\r\n\r\n".utf8), at: Self.at(0))
        let answer = idle.answerReady(Self.ok(), at: Self.at(0))
        guard case .write(let bytes)? = answer.first else { return }
        _ = idle.bytesSent(bytes.count, at: Self.at(0))
        #expect(idle.tick(at: Self.at(29)).isEmpty)
        #expect(idle.tick(at: Self.at(30)) == [.close])
        var stalled = Self.machine()
        _ = stalled.bytesReceived(Array("GET /a HTTP/1.1\r\nHost: x\r\n\r\n".utf8), at: Self.at(0))
        _ = stalled.answerReady(Self.ok(), at: Self.at(0))
        _ = stalled.bytesSent(1, at: Self.at(5))
        #expect(stalled.tick(at: Self.at(34)).isEmpty)
        #expect(stalled.tick(at: Self.at(35)) == [.close])
    }

    @Test("past the unsent-byte limit no further request is read until the client has taken some answers")
    func unreadAnswers() {
        var machine = Self.machine(unsentByteLimit: 100)
        let two = "GET /1 HTTP/1.1\r\nHost: x\r\n\r\nGET /2 HTTP/1.1\r\nHost: x\r\n\r\n"
        _ = machine.bytesReceived(Array(two.utf8), at: Self.at(0))
        let big = machine.answerReady(Self.ok(String(repeating: "a", count: 200)), at: Self.at(0))
        #expect(Self.requests(big).isEmpty)
        #expect(!machine.wantsBytes)
        #expect(machine.bytesSent(100, at: Self.at(0)).isEmpty)
        #expect(Self.requests(machine.bytesSent(machine.unsentByteCount, at: Self.at(0))) == ["GET /2 0"])
    }

    @Test("Expect: 100-continue is answered before the body arrives, not when the body came with the head")
    func expectContinue() {
        var waiting = Self.machine()
        let head = "POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\n"
        #expect(Self.writes(waiting.bytesReceived(Array(head.utf8), at: Self.at(0))) == ["HTTP/1.1 100 Continue"])
        #expect(Self.requests(waiting.bytesReceived(Array("ab".utf8), at: Self.at(0))) == ["POST /a 2"])
        var whole = Self.machine()
        let actions = whole.bytesReceived(Array((head + "ab").utf8), at: Self.at(0))
        #expect(Self.writes(actions).isEmpty)
        #expect(Self.requests(actions) == ["POST /a 2"])
    }

    @Test("the client's end closes at once mid-request; while answering it changes nothing")
    func peerClosed() {
        var reading = Self.machine()
        _ = reading.bytesReceived(Array("GET /a HTTP/1.1\r\n".utf8), at: Self.at(0))
        #expect(reading.peerClosed(at: Self.at(0)) == [.closeGracefully])
        #expect(reading.tick(at: Self.at(60)).isEmpty)
        var answering = Self.machine()
        _ = answering.bytesReceived(Array("GET /a HTTP/1.1\r\nHost: x\r\n\r\n".utf8), at: Self.at(0))
        #expect(answering.peerClosed(at: Self.at(0)).isEmpty)
    }

    @Test("at stop, a request being answered gets its answer with Connection: close; an idle connection closes now")
    func stop() {
        var answering = Self.machine()
        _ = answering.bytesReceived(Array("GET /a HTTP/1.1\r\nHost: x\r\n\r\n".utf8), at: Self.at(0))
        #expect(answering.stop(at: Self.at(1)).isEmpty)
        let answer = answering.answerReady(Self.ok(), at: Self.at(1))
        #expect(Self.writes(answer) == ["HTTP/1.1 200 OK (close)"])
        #expect(answer.last == .closeGracefully)
        var idle = Self.machine()
        #expect(idle.stop(at: Self.at(1)) == [.close])
        var unsent = Self.machine()
        _ = unsent.bytesReceived(Array("GET /a HTTP/1.1\r\nHost: x\r\n\r\n".utf8), at: Self.at(0))
        _ = unsent.answerReady(Self.ok(), at: Self.at(0))
        #expect(unsent.stop(at: Self.at(1)) == [.closeGracefully])
    }

    @Test("an answer that comes when none is awaited is dropped")
    func unexpectedAnswer() {
        var machine = Self.machine()
        #expect(machine.answerReady(Self.ok(), at: Self.at(0)).isEmpty)
        #expect(machine.phase == .head)
    }
}
