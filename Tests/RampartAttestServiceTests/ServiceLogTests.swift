import Foundation
import RampartAttestService
import Synchronization
import Testing

/// Issue 14 item 4: access logs leave the request path (a bounded queue, one writer, batches), and the lines stay
/// what they were.
struct ServiceLogTests {
    /// Collects batches from the writer thread; `gate` makes the first batch wait until the test lets it go.
    final class Batches: Sendable {
        let received = Mutex<[String]>([])
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let holdFirst: Bool
        init(holdFirst: Bool = false) { self.holdFirst = holdFirst }

        func append(_ batch: String) {
            let first = received.withLock { state -> Bool in
                state.append(batch)
                return state.count == 1
            }
            if holdFirst && first {
                entered.signal()
                release.wait()
            }
        }

        var lines: [String] { received.withLock { $0 }.flatMap { $0.split(separator: "\n").map(String.init) } }
    }

    static func event(_ index: Int, message: String? = nil) -> ServiceLog.Event {
        ServiceLog.Event(
            time: "2026-12-01T11:53:09.743Z", level: "info", event: "request", route: "/healthz", method: "GET",
            status: 200, code: nil, policy: "open", keyFingerprint: "0a1b2c3d", durationMs: Double(index) / 8,
            message: message)
    }

    @Test("a buffered log writes nothing on the request path, then every line, in order, at flush")
    func buffered() {
        let batches = Batches()
        let log = ServiceLog.buffered(sink: batches.append, flushIntervalSeconds: 60)
        for index in 0..<100 { log.write(Self.event(index)) }
        #expect(batches.lines.isEmpty)
        log.flush()
        #expect(batches.lines.count == 100)
        #expect(batches.lines.first?.contains(#""durationMs":0.0,"#) == true)
        #expect(batches.lines.last?.contains(#""durationMs":12.375,"#) == true)
        #expect(batches.received.withLock { $0.count } == 1, "one batch, one write")
    }

    @Test("a buffered log also writes on its own, within the flush interval")
    func periodic() async throws {
        let batches = Batches()
        let log = ServiceLog.buffered(sink: batches.append, flushIntervalSeconds: 0.05)
        log.write(Self.event(1))
        for _ in 0..<100 where batches.lines.isEmpty { try await Task.sleep(for: .milliseconds(20)) }
        #expect(batches.lines.count == 1)
    }

    @Test("a full queue drops lines and counts them; it never blocks or grows")
    func dropsWhenFull() {
        let batches = Batches(holdFirst: true)
        let log = ServiceLog.buffered(sink: batches.append, capacity: 4, flushIntervalSeconds: 60)
        let before = ServiceLog.droppedLineCount
        log.write(Self.event(0))
        log.write(Self.event(1))  // half full: the writer takes both and is held in the sink
        batches.entered.wait()
        for index in 2..<12 { log.write(Self.event(index)) }
        #expect(ServiceLog.droppedLineCount - before == 6)
        batches.release.signal()
        log.flush()
        #expect(batches.lines.count == 6)
        let metrics = ServiceMetrics().prometheusText
        #expect(metrics.contains("rampart_log_lines_dropped_total \(ServiceLog.droppedLineCount)"))
    }

    @Test("lines are the JSON JSONEncoder wrote before (keys sorted, slashes unescaped), escapes included")
    func sameJSON() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        for event in [
            Self.event(3), Self.event(5, message: "quote \" backslash \\ newline \n tab \t bell \u{7} é /path"),
            ServiceLog.Event(time: "t", level: "warning", event: "listening", message: "http://127.0.0.1:8080"),
        ] {
            let lines = Mutex<[String]>([])
            ServiceLog(sink: { line in lines.withLock { $0.append(line) } }).write(event)
            let line = try #require(lines.withLock { $0.first })
            let expected = String(decoding: try encoder.encode(event), as: UTF8.self)
            let parsed = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? NSDictionary
            let parsedExpected = try JSONSerialization.jsonObject(with: Data(expected.utf8)) as? NSDictionary
            #expect(parsed == parsedExpected, "\(line) vs \(expected)")
            #expect(line.contains("/") == expected.contains("/"))
        }
    }
}
