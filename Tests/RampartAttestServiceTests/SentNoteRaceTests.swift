import Foundation
import Synchronization
import Testing

@testable import RampartAttestService

/// The race ``ConnectionLoop``'s notes are built for, made to happen every time: a task writes its whole answer, the
/// client reads it and sends its next request, and the loop sees that request's edge (while the connection is still
/// being answered, so it reads nothing) before the task's `sent` note arrives. The loop must ask for that note to wake
/// it; if it did not, the next request would wait for the loop's tick, made ten minutes long here, longer than the
/// client waits for its answer (two minutes, for a loaded CI machine), so that a lost wake-up fails the test instead
/// of costing 50 ms.
@Suite(.serialized)
struct SentNoteRaceTests {
    /// Holds back the first answer's `sent` note until the test has sent the next request and the loop has asked to
    /// be woken by `sent` notes; later notes go at once.
    final class HeldNote: Sendable {
        let nextRequestSent = DispatchSemaphore(value: 0)
        let calls = Atomic<Int>(0)
        let loopAskedToBeWoken = Atomic<Bool>(false)
        let heldLoop = Mutex<ConnectionLoop?>(nil)

        func beforeSentNote(_ loop: ConnectionLoop) {
            guard calls.add(1, ordering: .relaxed).oldValue == 0 else { return }
            heldLoop.withLock { $0 = loop }
            guard nextRequestSent.wait(timeout: .now() + 60) == .success else { return }
            // The loop records the edge and asks for `sent` notes before it next waits; poll for that (bounded).
            let deadline = Date().addingTimeInterval(60)
            while !loop.asksToBeWokenBySentNotes, Date() < deadline { usleep(1_000) }
            loopAskedToBeWoken.store(loop.asksToBeWokenBySentNotes, ordering: .relaxed)
        }
    }

    @Test("a sent note that comes after the connection's next request wakes the loop, which then answers it")
    func sentNoteAfterNextRequest() async throws {
        let held = HeldNote()
        let server = HTTPServer(
            configuration: .init(host: "127.0.0.1", port: 0), responder: EchoResponder(),
            hooks: ConnectionLoop.TestHooks(tickMilliseconds: 600_000, beforeSentNote: held.beforeSentNote))
        try server.start()
        defer { server.stop() }
        let port = try #require(server.port)
        let (first, second) = await RawHTTP.onThread { () -> (Int?, Int?) in
            guard let socket = RawHTTP.connectedSocket(port: port, timeoutSeconds: 120) else { return (nil, nil) }
            defer { close(socket) }
            RawHTTP.sendAll(socket, Array("GET /a HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
            let first = RawHTTP.receiveOne(socket)?.status
            RawHTTP.sendAll(socket, Array("GET /b HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
            held.nextRequestSent.signal()
            return (first, RawHTTP.receiveOne(socket)?.status)
        }
        #expect(first == 200)
        #expect(second == 200)
        // The race took place: the loop had asked for the note before it came, and the note woke it.
        let askedToBeWoken = held.loopAskedToBeWoken.load(ordering: .relaxed)
        #expect(askedToBeWoken)
        let loop = try #require(held.heldLoop.withLock { $0 })
        let wakes = loop.sentNoteWakes.load(ordering: .relaxed)
        #expect(wakes >= 1)
    }
}
