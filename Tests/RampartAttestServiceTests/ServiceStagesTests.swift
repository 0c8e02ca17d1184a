import RampartCrypto
import Testing

@testable import RampartAttestService

/// Serialized: profiling is process-wide, and one test turns it off.
@Suite(.serialized)
struct ServiceStagesTests {
    @Test("a stage's counter grows with the CPU spent in it, and /metrics shows every stage")
    func counts() {
        StageClock.isEnabled = true
        defer { StageClock.isEnabled = false }
        let before = StageClock.seconds(.cbor)
        var digest = [UInt8](repeating: 0, count: 32)
        // Sampled one section in eight: 400 sections of about 50 µs each are sure to be counted.
        for _ in 0..<400 {
            digest = StageClock.measure(.cbor) {
                var value = digest
                for _ in 0..<100 { value = SHA256.hash(value) }
                return value
            }
        }
        #expect(StageClock.seconds(.cbor) > before)
        let text = ServiceMetrics().prometheusText
        for stage in ServiceStage.allCases {
            #expect(text.contains("rampart_stage_cpu_seconds_total{stage=\"\(stage.name)\"} "))
        }
    }

    @Test("off (the default without RAMPART_STAGE_PROFILE=1): nothing is counted and /metrics has no stage lines")
    func off() {
        StageClock.isEnabled = false
        let before = StageClock.seconds(.cbor)
        for _ in 0..<400 {
            _ = StageClock.measure(.cbor) { SHA256.hash(Array(repeating: 1, count: 4096)) }
        }
        #expect(StageClock.seconds(.cbor) == before)
        #expect(!ServiceMetrics().prometheusText.contains("rampart_stage_cpu_seconds_total"))
    }

    @Test("a section that throws is still counted, and its error comes through")
    func throwing() {
        struct Failure: Error {}
        #expect(throws: Failure.self) {
            try StageClock.measureEvery(.store) { throw Failure() }
        }
    }
}
