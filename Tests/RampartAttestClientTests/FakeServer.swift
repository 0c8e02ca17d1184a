import Foundation
import RampartAttestClient
import RampartCrypto

/// A scripted server: answers challenges (`c1`, `c2`, …) and attestations itself, and signed requests from a queue,
/// recording every request as the client sent it.
final class FakeServer: AttestedClientTransport {
    struct State {
        var requests: [TransportRequest] = []
        var challenges = 0
        var attestations = 0
        var signedAnswers: [TransportResponse] = []
        var challengeAnswers: [TransportResponse] = []
        var inFlight = 0
        var mostInFlight = 0
    }

    let state = Locked(State())
    /// How long a signed request takes to answer (to let concurrent sends overlap if nothing orders them).
    let signedDelay: UInt64

    init(signedDelay: UInt64 = 0) { self.signedDelay = signedDelay }

    var requests: [TransportRequest] { state.withLock { $0.requests } }

    /// The requests that were neither challenges nor attestations.
    var signedRequests: [TransportRequest] {
        requests.filter { $0.target != "/v1/challenges" && $0.target != "/v1/attestations" }
    }

    /// `METHOD target` of every request, in order.
    var lines: [String] { requests.map { "\($0.method) \($0.target)" } }

    func queue(_ answers: TransportResponse...) { state.withLock { $0.signedAnswers += answers } }

    func queueChallengeAnswers(_ answers: TransportResponse...) {
        state.withLock { $0.challengeAnswers += answers }
    }

    static func json(_ status: Int, _ text: String, headers: [String: String] = [:]) -> TransportResponse {
        TransportResponse(status: status, headers: headers, body: Array(text.utf8))
    }

    static func refusal(_ status: Int, _ code: String, headers: [String: String] = [:]) -> TransportResponse {
        json(status, #"{"error":"\#(code)","message":"refused"}"#, headers: headers)
    }

    static func allow(next: String? = nil) -> TransportResponse {
        json(200, #"{"ok":true}"#, headers: next.map { ["Rampart-Next-Challenge": $0] } ?? [:])
    }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        switch request.target {
        case "/v1/challenges":
            return state.withLock { state in
                state.requests.append(request)
                if !state.challengeAnswers.isEmpty { return state.challengeAnswers.removeFirst() }
                state.challenges += 1
                return Self.json(200, #"{"challenge":"c\#(state.challenges)","expiresAt":"2026-12-01T12:00:00Z"}"#)
            }
        case "/v1/attestations":
            return state.withLock { state in
                state.requests.append(request)
                state.attestations += 1
                return Self.json(201, #"{"keyId":"k","environment":"development"}"#)
            }
        default:
            state.withLock { state in
                state.requests.append(request)
                state.inFlight += 1
                state.mostInFlight = max(state.mostInFlight, state.inFlight)
            }
            if signedDelay > 0 { try await Task.sleep(nanoseconds: signedDelay) }
            return state.withLock { state in
                state.inFlight -= 1
                return state.signedAnswers.isEmpty ? Self.allow() : state.signedAnswers.removeFirst()
            }
        }
    }
}
