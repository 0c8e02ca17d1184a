import Foundation
import RampartAttestClient
import RampartCrypto
import RampartRequestSigning

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
        var tokens = 0
        var tokenAnswers: [TransportResponse] = []
        /// With ``subjects``: the `Authorization` each challenge was issued to and each key was registered by.
        var challengeSubjects: [String: String] = [:]
        var keySubjects: [String: String] = [:]
        var nextChallenges = 0
    }

    let state = Locked(State())
    /// How long a signed request takes to answer (to let concurrent sends overlap if nothing orders them).
    let signedDelay: UInt64

    /// When true, the server binds challenges and keys to the request's `Authorization` (the subject), as
    /// `rampart serve` does: a challenge of another subject is `challengeMismatch`, a key of another subject
    /// `wrongSubject`, and every allowed answer carries a next challenge.
    let subjects: Bool
    /// The server's clock, for `POST /v1/tokens` (`expiresAt` = now + ``tokenLifetime``, and the `Date` header).
    let now: Locked<Date>
    /// The lifetime of the tokens `POST /v1/tokens` issues.
    let tokenLifetime: TimeInterval

    init(
        signedDelay: UInt64 = 0, subjects: Bool = false, now: Date = Date(timeIntervalSince1970: 1_796_126_400),
        tokenLifetime: TimeInterval = 900
    ) {
        self.signedDelay = signedDelay
        self.subjects = subjects
        self.now = Locked(now)
        self.tokenLifetime = tokenLifetime
    }

    var requests: [TransportRequest] { state.withLock { $0.requests } }

    /// The requests that were neither challenges nor attestations.
    var signedRequests: [TransportRequest] {
        requests.filter { $0.target != "/v1/challenges" && $0.target != "/v1/attestations" }
    }

    /// The requests to routes of the app (neither challenges, attestations nor tokens).
    var appRequests: [TransportRequest] { signedRequests.filter { $0.target != "/v1/tokens" } }

    func queueTokenAnswers(_ answers: TransportResponse...) { state.withLock { $0.tokenAnswers += answers } }

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
        let subject = request.header("Authorization") ?? ""
        switch request.target {
        case "/v1/challenges":
            return state.withLock { state in
                state.requests.append(request)
                if !state.challengeAnswers.isEmpty { return state.challengeAnswers.removeFirst() }
                state.challenges += 1
                state.challengeSubjects["c\(state.challenges)"] = subject
                return Self.json(200, #"{"challenge":"c\#(state.challenges)","expiresAt":"2026-12-01T12:00:00Z"}"#)
            }
        case "/v1/attestations":
            return state.withLock { state in
                state.requests.append(request)
                state.attestations += 1
                if let body = try? JSONValue(parsing: request.body), case .object(let fields) = body,
                    case .string(let keyID)? = fields["keyId"]
                {
                    state.keySubjects[keyID] = subject
                }
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
                if subjects, let refusal = Self.subjectRefusal(request, subject: subject, state: &state) {
                    return refusal
                }
                if request.target == "/v1/tokens", request.header("Rampart-Key-Id") != nil {
                    return token(&state)
                }
                if !state.signedAnswers.isEmpty { return state.signedAnswers.removeFirst() }
                guard subjects else { return Self.allow() }
                state.nextChallenges += 1
                state.challengeSubjects["n\(state.nextChallenges)"] = subject
                return Self.allow(next: "n\(state.nextChallenges)")
            }
        }
    }

    /// `rampart serve`'s subject checks of a signed request: its challenge, then its key.
    static func subjectRefusal(
        _ request: TransportRequest, subject: String, state: inout State
    ) -> TransportResponse? {
        guard let challenge = request.header("Rampart-Challenge"), let keyID = request.header("Rampart-Key-Id") else {
            return nil
        }
        guard let issuedTo = state.challengeSubjects.removeValue(forKey: challenge) else {
            return refusal(409, "challengeUsed")
        }
        guard issuedTo == subject else { return refusal(409, "challengeMismatch") }
        guard state.keySubjects[keyID] == subject else { return refusal(403, "wrongSubject") }
        return nil
    }

    /// `POST /v1/tokens`: `t1`, `t2`, … valid for ``tokenLifetime`` from the server's ``now``, with its `Date`.
    func token(_ state: inout State) -> TransportResponse {
        if !state.tokenAnswers.isEmpty { return state.tokenAnswers.removeFirst() }
        state.tokens += 1
        let now = self.now.withLock { $0 }
        let formatter = ISO8601DateFormatter()
        let date = DateFormatter()
        date.locale = Locale(identifier: "en_US_POSIX")
        date.timeZone = TimeZone(identifier: "GMT")
        date.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let expiry = formatter.string(from: now.addingTimeInterval(tokenLifetime))
        return Self.json(
            200, #"{"expiresAt":"\#(expiry)","token":"t\#(state.tokens)"}"#, headers: ["Date": date.string(from: now)])
    }
}
