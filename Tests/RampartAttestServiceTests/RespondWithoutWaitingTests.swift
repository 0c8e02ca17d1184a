import Foundation
import RampartAttestService
import RampartCrypto
import RampartRequestSigning
import Testing

/// `ServiceRouter.respondWithoutWaiting(to:)`: the HTTP loop's way to answer a challenge on its own thread, with the
/// same answers as `respond(to:)`.
struct RespondWithoutWaitingTests {
    let router: ServiceRouter
    let admin: ServiceRouter

    init(sealingKeys: ChallengeSealingKeys? = nil) throws {
        let service = AttestationService(
            store: try SQLiteAttestationStore(path: temporarySQLitePath()), verifier: FakeVerifier(),
            sealingKeys: sealingKeys)
        router = ServiceRouter(service: service, subjectSource: .header(subjectHeader))
        admin = ServiceRouter(service: service, listener: .admin)
    }

    static func challengeRequest(
        _ json: String = #"{"purpose":"assertion"}"#, subject: String? = "alice"
    )
        -> HTTPRequest
    {
        HTTPRequest(
            method: "POST", path: "/v1/challenges", headers: subject.map { [subjectHeader: $0] } ?? [:],
            body: Array(json.utf8))
    }

    static func code(_ response: HTTPResponse?) -> String? {
        guard let response, case .object(let fields)? = try? JSONValue(parsing: response.body),
            case .string(let code)? = fields["error"]
        else { return nil }
        return code
    }

    @Test("with the key kept in the store: nil until the first challenge has read it, then answered at once")
    func storedKeyLoadsFirst() async throws {
        #expect(router.respondWithoutWaiting(to: Self.challengeRequest()) == nil)
        let first = await router.respond(to: Self.challengeRequest())
        #expect(first.status == 200)
        let atOnce = try #require(router.respondWithoutWaiting(to: Self.challengeRequest()))
        #expect(atOnce.status == 200)
        guard case .object(let fields)? = try? JSONValue(parsing: atOnce.body),
            case .string(let challenge)? = fields["challenge"], case .string? = fields["expiresAt"]
        else {
            Issue.record("not a challenge: \(atOnce.bodyText)")
            return
        }
        #expect(challenge.utf8.count == 104)
        #expect(atOnce.headers["Content-Type"] == first.headers["Content-Type"])
    }

    @Test("with configured keys: answered at once from the first request")
    func configuredKeys() throws {
        let keyed = try RespondWithoutWaitingTests(sealingKeys: ChallengeSealingKeys(keys: [SymmetricKey()]))
        #expect(keyed.router.respondWithoutWaiting(to: Self.challengeRequest())?.status == 200)
    }

    @Test(
        "refusals at once are those of respond(to:), with their status, code and Rampart-Error",
        arguments: [
            (#"{"purpose":"assertion"}"#, nil as String?, "subjectRequired"),
            (#"{"purpose":"assertion","subject":"bob"}"#, "alice", "invalidField"),
            (#"{"purpose":"nothing"}"#, "alice", "invalidField"),
            (#"{"purpose":"assertion","extra":1}"#, "alice", "invalidField"),
            ("{", "alice", "invalidJSON"),
        ])
    func refusals(json: String, subject: String?, code: String) async throws {
        let keyed = try RespondWithoutWaitingTests(sealingKeys: ChallengeSealingKeys(keys: [SymmetricKey()]))
        let request = Self.challengeRequest(json, subject: subject)
        let atOnce = try #require(keyed.router.respondWithoutWaiting(to: request))
        let awaited = await keyed.router.respond(to: request)
        #expect(Self.code(atOnce) == code)
        #expect(atOnce.status == awaited.status)
        #expect(atOnce.body == awaited.body)
        #expect(atOnce.headers["Rampart-Error"] == code)
    }

    @Test("a router whose log writes synchronously waits (its sink may block); a buffered log does not")
    func synchronousLogWaits() async throws {
        let service = AttestationService(
            store: try SQLiteAttestationStore(path: temporarySQLitePath()), verifier: FakeVerifier(),
            sealingKeys: try ChallengeSealingKeys(keys: [SymmetricKey()]))
        let synchronous = ServiceRouter(
            service: service, subjectSource: .header(subjectHeader), log: ServiceLog(sink: { _ in }))
        #expect(synchronous.respondWithoutWaiting(to: Self.challengeRequest()) == nil)
        #expect(await synchronous.respond(to: Self.challengeRequest()).status == 200)
        let buffered = ServiceRouter(
            service: service, subjectSource: .header(subjectHeader), log: .buffered(sink: { _ in }))
        #expect(buffered.respondWithoutWaiting(to: Self.challengeRequest())?.status == 200)
    }

    @Test("everything else waits: other routes and methods, and the internal listener's challenges")
    func othersWait() throws {
        let keyed = try RespondWithoutWaitingTests(sealingKeys: ChallengeSealingKeys(keys: [SymmetricKey()]))
        #expect(keyed.router.respondWithoutWaiting(to: HTTPRequest(method: "GET", path: "/v1/challenges")) == nil)
        #expect(keyed.router.respondWithoutWaiting(to: HTTPRequest(method: "GET", path: "/healthz")) == nil)
        let attestation = HTTPRequest(method: "POST", path: "/v1/attestations", body: Array("{}".utf8))
        #expect(keyed.router.respondWithoutWaiting(to: attestation) == nil)
        let internalChallenge = HTTPRequest(
            method: "POST", path: "/v1/challenges", body: Array(#"{"purpose":"assertion","subject":"a"}"#.utf8))
        #expect(keyed.admin.respondWithoutWaiting(to: internalChallenge) == nil)
    }
}
