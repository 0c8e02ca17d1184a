import Foundation

// rampart-limbo < limbo.json > results.json: evaluates every testcase of an x509-limbo suite with Rampart's
// ChainVerifier and writes upstream's result JSON. Exit 0 when the suite was read and every case answered; 2 when
// the input is not a limbo suite.
let input = FileHandle.standardInput.readDataToEndOfFile()
let suite: LimboSuite
do {
    guard input.count <= LimboHarness.maximumSuiteByteCount else {
        throw LimboHarness.InputError("the suite is larger than \(LimboHarness.maximumSuiteByteCount) bytes")
    }
    suite = try JSONDecoder().decode(LimboSuite.self, from: input)
    guard suite.version == 1 else { throw LimboHarness.InputError("schema version \(suite.version); expected 1") }
} catch {
    FileHandle.standardError.write(
        Data("rampart-limbo: stdin is not an x509-limbo suite (\(error)); pipe limbo.json in\n".utf8))
    exit(2)
}
let results = suite.testcases.map(LimboHarness.evaluate)
let encoder = JSONEncoder()
encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
do {
    FileHandle.standardOutput.write(try encoder.encode(LimboResult(results: results)))
    FileHandle.standardOutput.write(Data("\n".utf8))
} catch {
    FileHandle.standardError.write(Data("rampart-limbo: cannot encode the results (\(error))\n".utf8))
    exit(2)
}
