import Foundation
import RampartLoadReport
import Testing

/// `rampart-load`'s JSON, the contract `rampart-bench service` and scripts read: the exact keys, and a round trip.
struct LoadReportTests {
    static let full = LoadReport(
        flow: "two-round-trips", gateway: "envoy", servers: 2, concurrency: 64, keys: 64, seconds: 3,
        protectedRequests: 12_001, allowed: 11_998, refused: 3, refusedByCode: ["counterReplay": 2, "status-500": 1],
        errors: 1, firstError: "the server closed the connection without answering", challengeRequests: 12_001,
        requestsPerSecond: 3999, latencyMs: .init(p50: 15.5, p90: 19.75, p99: 27.25, max: 31.5),
        connectionsOpened: 65, serverCPUMicrosecondsPerRequest: 371.5,
        stageCPUMicrosecondsPerRequest: ["cbor": 6.25, "ecdsa": 92.5, "json": 14, "store": 93.5],
        databaseCPUMicrosecondsPerRequest: 433.5, clientCPUMicrosecondsPerRequest: 81.25)

    /// `full` as rampart-load prints it (keys sorted, as before the type was shared).
    static let fullJSON =
        #"{"allowed":11998,"challengeRequests":12001,"clientCPUMicrosecondsPerRequest":81.25,"concurrency":64,"#
        + #""connectionsOpened":65,"databaseCPUMicrosecondsPerRequest":433.5,"errors":1,"#
        + #""firstError":"the server closed the connection without answering","flow":"two-round-trips","#
        + #""gateway":"envoy","keys":64,"latencyMs":{"max":31.5,"p50":15.5,"p90":19.75,"p99":27.25},"#
        + #""protectedRequests":12001,"refused":3,"refusedByCode":{"counterReplay":2,"status-500":1},"#
        + #""requestsPerSecond":3999,"seconds":3,"serverCPUMicrosecondsPerRequest":371.5,"servers":2,"#
        + #""stageCPUMicrosecondsPerRequest":{"cbor":6.25,"ecdsa":92.5,"json":14,"store":93.5}}"#

    @Test(
        "every field under its key, sorted; the text decodes back to the same report and re-encodes to the same bytes")
    func roundTrip() throws {
        #expect(try Self.full.jsonText() == Self.fullJSON)
        let decoded = try JSONDecoder().decode(LoadReport.self, from: Data(Self.fullJSON.utf8))
        #expect(decoded == Self.full)
        #expect(try decoded.jsonText() == Self.fullJSON)
    }

    @Test("measurements that were not asked for (no --server-pid, --admin, --database-process) are left out")
    func absentMeasurements() throws {
        var report = Self.full
        report.firstError = nil
        report.serverCPUMicrosecondsPerRequest = nil
        report.stageCPUMicrosecondsPerRequest = nil
        report.databaseCPUMicrosecondsPerRequest = nil
        let text = try report.jsonText()
        for key in [
            "firstError", "serverCPUMicrosecondsPerRequest", "stageCPUMicrosecondsPerRequest",
            "databaseCPUMicrosecondsPerRequest",
        ] {
            #expect(!text.contains("\"\(key)\""), "\(key) in \(text)")
        }
        #expect(try JSONDecoder().decode(LoadReport.self, from: Data(text.utf8)) == report)
    }

    @Test("a report missing a field rampart-load always prints is refused, naming the field")
    func missingField() throws {
        let text = Self.fullJSON.replacingOccurrences(of: #""keys":64,"#, with: "")
        #expect {
            _ = try JSONDecoder().decode(LoadReport.self, from: Data(text.utf8))
        } throws: { error in
            guard case DecodingError.keyNotFound(let key, _) = error else { return false }
            return key.stringValue == "keys"
        }
    }

    @Test("the flows' names, as --flow takes them")
    func flowNames() {
        #expect(LoadFlow.allCases.map(\.rawValue) == ["two-round-trips", "one-round-trip"])
        #expect(LoadFlow.names == "two-round-trips or one-round-trip")
    }
}
