import Foundation
import RampartChainVerification

// rampart-limbo [--policy apple|webpki] < limbo.json > results.json: evaluates every testcase of an x509-limbo suite
// with Rampart's ChainVerifier under the policy (apple by default, as for every command; the suite's expectations
// are the Web PKI's, which --policy webpki follows) and writes upstream's result JSON. Exit 0 when the suite was read and every case answered; 2 on bad usage or when the input is not a
// limbo suite.
var policy = ChainPolicy.apple
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    guard argument == "--policy", let name = arguments.popFirst(), let named = ChainPolicy(name: name) else {
        FileHandle.standardError.write(
            Data("rampart-limbo: usage: rampart-limbo [--policy apple|webpki] < limbo.json > results.json\n".utf8))
        exit(2)
    }
    policy = named
}
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
let results = suite.testcases.map { LimboHarness.evaluate($0, policy: policy) }
let encoder = JSONEncoder()
encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
do {
    FileHandle.standardOutput.write(try encoder.encode(LimboResult(results: results)))
    FileHandle.standardOutput.write(Data("\n".utf8))
} catch {
    FileHandle.standardError.write(Data("rampart-limbo: cannot encode the results (\(error))\n".utf8))
    exit(2)
}
