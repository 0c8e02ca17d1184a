import Foundation
import FuzzSupport
import RampartPinning

/// Reading a pin configuration (property list, TrustKit, Android XML, OkHttp source or JSON, detected from the
/// content) must never crash; an accepted one must survive writing as JSON and reading back unchanged; whatever
/// another format writes must read back with the same domains and pins; merging its NSPinnedDomains into the input
/// (as `pinset --merge-into` does) must write a property list that merging into again leaves byte for byte the same;
/// host lookups on it must not crash either.
func check(_ bytes: [UInt8]) {
    guard let configuration = try? PinConfiguration(contentsOf: Data(bytes)) else { return }
    if let json = try? configuration.jsonData() {
        let again = try? PinConfiguration(contentsOf: json)
        fuzzInvariant(again?.policies == configuration.policies, "a configuration does not round-trip through JSON")
    }
    if let plist = try? configuration.plistData() {
        let again = try? PinConfiguration(contentsOf: plist)
        fuzzInvariant(again?.policies == configuration.policies, "a configuration does not round-trip through plist")
    }
    if let merged = try? configuration.plistData(mergingInto: Data(bytes)) {
        let again = try? configuration.plistData(mergingInto: merged)
        fuzzInvariant(again == merged, "merging the same pins into a merged property list changes it")
    }
    for format in [PinConfiguration.Format.trustKit, .okHttp, .android] {
        guard let export = try? configuration.export(as: format) else { continue }
        let again = try? PinConfiguration(contentsOf: export.data)
        fuzzInvariant(again != nil, "a configuration written as \(format) does not read back")
        fuzzInvariant(
            again?.policies.map { Set($0.allPins) } == configuration.policies.map { Set($0.allPins) }
                && again?.policies.map(\.domain) == configuration.policies.map(\.domain),
            "a configuration written as \(format) reads back with other domains or pins")
    }
    for policy in configuration.policies {
        _ = configuration.policy(for: policy.domain)
        _ = configuration.policy(for: "a." + policy.domain)
    }
}

#if FUZZING
/// libFuzzer's per-input hook.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzPinConfigurationTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    check(FuzzInput.bytes(data, size))
    return 0
}

/// The process entry point under `-DFUZZING` (see `FuzzInput.runLibFuzzer`).
@_cdecl("FuzzPinConfiguration_main")
func fuzzPinConfigurationMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzInput.runLibFuzzer(argc, argv, fuzzPinConfigurationTestOneInput)
}
#else
@main
enum FuzzPinConfigurationReplay {
    static func main() { exit(FuzzInput.replay(Array(CommandLine.arguments.dropFirst()), check)) }
}
#endif
