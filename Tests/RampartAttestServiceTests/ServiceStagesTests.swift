import RampartCrypto
import Testing

@testable import RampartAttestService

struct ServiceStagesTests {
    @Test("a stage's counter grows with the CPU spent in it, and /metrics shows every stage")
    func counts() {
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

    @Test("a section that throws is still counted, and its error comes through")
    func throwing() {
        struct Failure: Error {}
        #expect(throws: Failure.self) {
            try StageClock.measureEvery(.store) { throw Failure() }
        }
    }
}
