import Dispatch
import Foundation
import FuzzSupport
import RampartAppAttest
import RampartAttestService
import RampartRequestSigning
import Synchronization

/// The service's HTTP API must answer any body on any route without crashing, never with a 5xx for bad input (a 503
/// would mean the store failed, which an in-memory store does not), and every error answer must be a JSON
/// `{"error","message"}` body. The first byte picks the route; the rest is the body (and, for the key route, the
/// path).
let router: ServiceRouter = {
    do {
        let service = AttestationService(
            store: try SQLiteAttestationStore(path: ":memory:"),
            verifier: AppAttestVerifierAdapter(
                try AppAttestVerifier(teamID: "FUZZ123456", bundleID: "com.rampart.fuzz", environment: .production)))
        return ServiceRouter(service: service)
    } catch {
        fatalError("the fuzz harness could not start: \(error)")
    }
}()

let routes: [(String, String)] = [
    ("POST", "/v1/challenges"), ("POST", "/v1/attestations"), ("POST", "/v1/assertions"),
    ("POST", "/v1/demo/points/use"), ("POST", "/v1/demo/points/balance"), ("GET", "/v1/keys/"),
    ("GET", "/healthz"), ("DELETE", "/v1/challenges"),
]

/// Holds the router's answer while the fuzzer's thread waits.
final class Answer: Sendable {
    let response = Mutex<HTTPResponse?>(nil)
    let done = DispatchSemaphore(value: 0)
}

func check(_ bytes: [UInt8]) {
    guard let selector = bytes.first else { return }
    let (method, basePath) = routes[Int(selector) % routes.count]
    let rest = Array(bytes.dropFirst())
    let path = basePath.hasSuffix("/") ? basePath + String(decoding: rest.prefix(64), as: UTF8.self) : basePath
    let request = HTTPRequest(method: method, path: path, body: rest)
    let answer = Answer()
    Task {
        let response = await router.respond(to: request)
        answer.response.withLock { $0 = response }
        answer.done.signal()
    }
    answer.done.wait()
    guard let response = answer.response.withLock({ $0 }) else { return fuzzInvariant(false, "no answer") }
    fuzzInvariant(response.status < 500, "a \(response.status) for bad input: \(response.bodyText)")
    if response.status >= 400 {
        let parsed = try? JSONValue(parsing: response.body)
        guard case .object(let fields)? = parsed, case .string? = fields["error"], case .string? = fields["message"]
        else { return fuzzInvariant(false, "an error answer is not {\"error\",\"message\"}: \(response.bodyText)") }
    }
}

#if FUZZING
/// libFuzzer's per-input hook.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzServiceRouterTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    check(FuzzInput.bytes(data, size))
    return 0
}

/// The process entry point under `-DFUZZING` (see `FuzzInput.runLibFuzzer`).
@_cdecl("FuzzServiceRouter_main")
func fuzzServiceRouterMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzInput.runLibFuzzer(argc, argv, fuzzServiceRouterTestOneInput)
}
#else
@main
enum FuzzServiceRouterReplay {
    static func main() { exit(FuzzInput.replay(Array(CommandLine.arguments.dropFirst()), check)) }
}
#endif
