import Foundation
import FuzzSupport
import RampartHTTP

/// The connection gate's framing check (``RequestHead``) must never crash on any bytes, and must keep the promises
/// the gate relies on while bytes trickle in:
///
/// - a complete head ends with CRLF CRLF within the bytes given and the limit, and the bytes after it (a body) do not
///   change the verdict;
/// - every proper prefix of a complete head is `incomplete`: a head that will be well-framed is never refused or
///   called complete early, however the client splits it;
/// - a verdict of `tooLarge` only comes once more than the limit has arrived without an end of head;
/// - a complete head decodes (``RequestHead/decode(_:)``) to parts that hold what the router relies on, or is refused
///   with a reason: a token method, a visible-ASCII target, HTTP/1.0 or 1.1, field names lower-case tokens, values
///   without CR, LF or NUL, and a request path (``RequestPath``) without a NUL.
func check(_ bytes: [UInt8]) {
    let limit = 512
    let verdict = RequestHead.check(bytes, maximumByteCount: limit)
    guard case .complete(let count) = verdict else {
        if case .tooLarge = verdict { fuzzInvariant(bytes.count > limit, "tooLarge before the limit was reached") }
        return
    }
    fuzzInvariant(count >= 4 && count <= bytes.count && count <= limit, "a complete head outside the bytes or limit")
    fuzzInvariant(
        Array(bytes[(count - 4)..<count]) == [13, 10, 13, 10], "a complete head that does not end in CRLF CRLF")
    fuzzInvariant(
        RequestHead.check(bytes.prefix(count), maximumByteCount: limit) == .complete(byteCount: count),
        "the head alone is judged differently from the head with what follows it")
    for cut in stride(from: 0, to: count, by: max(1, count / 16)) {
        fuzzInvariant(
            RequestHead.check(bytes.prefix(cut), maximumByteCount: limit) == .incomplete,
            "a prefix of a well-framed head was not judged incomplete")
    }
    guard let head = try? RequestHead.decode(bytes[0..<count]) else { return }
    fuzzInvariant(!head.method.isEmpty && !head.target.isEmpty, "an empty method or target decoded")
    fuzzInvariant(
        head.target.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }, "a target with a space, control or non-ASCII byte")
    fuzzInvariant(head.minorVersion == 0 || head.minorVersion == 1, "a version other than HTTP/1.0 or 1.1")
    for (name, value) in head.fields {
        fuzzInvariant(
            !name.isEmpty && name.utf8.allSatisfy { RequestHead.isTokenCharacter($0) && !(0x41...0x5A).contains($0) },
            "a field name that is not a lower-case token")
        fuzzInvariant(!value.utf8.contains { $0 == 0 || $0 == 0x0D || $0 == 0x0A }, "a value with CR, LF or NUL")
    }
    fuzzInvariant(!RequestPath.decoded(head.target).utf8.contains(0), "a request path with a NUL")
}

/// The connection state machine over the same bytes, cut into pieces whose size the first byte picks, each request
/// answered at once: it never traps, dispatches one request at a time, acts on nothing after a close, and dispatches
/// no more requests than there are well-framed heads in the bytes.
func checkConnection(_ bytes: [UInt8]) {
    guard let first = bytes.first else { return }
    let step = Int(first % 32) + 1
    let start = ContinuousClock.now
    var machine = HTTPConnectionStateMachine(
        limits: .init(
            maximumHeadByteCount: 512, maximumBodyByteCount: 64, requestTimeout: .seconds(10),
            idleTimeout: .seconds(30)),
        peerAddress: "192.0.2.1", writer: ResponseWriter(),
        refusalResponse: { $0.response(HTTPServer.Configuration()) },
        at: start)
    var dispatched = 0
    var closed = false
    func perform(_ actions: [HTTPConnectionStateMachine.Action]) {
        var pending = actions
        while !pending.isEmpty {
            let action = pending.removeFirst()
            fuzzInvariant(!closed, "an action after a close")
            switch action {
            case .dispatch(let request):
                dispatched += 1
                fuzzInvariant(!machine.wantsBytes, "bytes wanted while a request is answered")
                fuzzInvariant(!request.method.isEmpty, "a request without a method")
                pending += machine.answerReady(HTTPResponse(status: 200), at: start)
            case .write(let written):
                fuzzInvariant(!written.isEmpty, "an empty write")
                pending += machine.bytesSent(written.count, at: start)
            case .close, .closeGracefully:
                closed = true
            }
        }
    }
    var offset = 1
    while offset < bytes.count, !closed {
        let end = min(offset + step, bytes.count)
        perform(machine.bytesReceived(bytes[offset..<end], at: start))
        offset = end
    }
    if !closed { perform(machine.tick(at: start + .seconds(60))) }
    fuzzInvariant(closed, "a connection neither closed nor timed out after its request time")
    fuzzInvariant(dispatched <= bytes.count / 16 + 1, "more requests dispatched than the bytes can frame")
}

#if FUZZING
/// libFuzzer's per-input hook.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzRequestHeadTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = FuzzInput.bytes(data, size)
    check(bytes)
    checkConnection(bytes)
    return 0
}

/// The process entry point under `-DFUZZING` (see `FuzzInput.runLibFuzzer`).
@_cdecl("FuzzRequestHead_main")
func fuzzRequestHeadMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzInput.runLibFuzzer(argc, argv, fuzzRequestHeadTestOneInput)
}
#else
@main
enum FuzzRequestHeadReplay {
    static func main() {
        exit(
            FuzzInput.replay(Array(CommandLine.arguments.dropFirst())) {
                check($0)
                checkConnection($0)
            })
    }
}
#endif
