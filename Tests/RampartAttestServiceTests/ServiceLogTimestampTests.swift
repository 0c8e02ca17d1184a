import Foundation
import Testing

@testable import RampartAttestService

struct ServiceLogTimestampTests {
    @Test(
        "timestamps are RFC 3339 UTC with milliseconds, zero-padded, across the range of years",
        arguments: [
            (0.0, "1970-01-01T00:00:00.000Z"),
            (1_796_154_537.0425, "2026-12-01T19:48:57.042Z"),
            (951_782_400.999, "2000-02-29T00:00:00.999Z"),
            (-1.5, "1969-12-31T23:59:58.500Z"),
            (253_402_300_799.0, "9999-12-31T23:59:59.000Z"),
            (253_402_300_800.0, "10000-01-01T00:00:00.000Z"),
            (Double.infinity, "1970-01-01T00:00:00.000Z"),
        ])
    func timestamp(seconds: Double, expected: String) {
        #expect(ServiceLog.timestamp(Date(timeIntervalSince1970: seconds)) == expected)
    }
}
