import Foundation
import TestSupport
import Testing

/// `rampart serve` with its two listeners, as a process: operator routes and metrics only on the admin port, behind
/// the token from `--operator-token-file`.
@Suite(.serialized)
struct AdminListenerTests {
    @Test(
        "rampart serve: /metrics and /v1/keys are 404 on the public port, and need the token on the admin port",
        .enabled(if: ServeProcess.available, "needs the rampart binary (swift build)"))
    func twoListeners() async throws {
        let token = "Zq8m3Lk1Xw9v7Tn5Rb2Yc4Hd6Gf0Js8P"
        let file = ScratchFile.write(token + "\n")
        let server = try await ServeProcess.start(
            ServeProcess.subjectHeader + [
                "--db", "sqlite:" + temporarySQLitePath(), "--team-id", "ABCDE12345", "--bundle-id", "com.example.app",
                "--operator-token-file", file,
            ])
        #expect(server.adminPort != server.port)
        let key = "/v1/keys/" + String(repeating: "A", count: 43)
        for path in ["/metrics", key] {
            let hidden = try #require(await RawHTTP.request(port: server.port, "GET", path))
            #expect(hidden.status == 404)
            #expect(hidden.body.contains(#""error":"notFound""#))
            let withToken = try #require(
                await RawHTTP.request(port: server.port, "GET", path, headers: ["Authorization": "Bearer \(token)"]))
            #expect(withToken.status == 404)
            let refused = try #require(await RawHTTP.request(port: server.adminPort, "GET", path))
            #expect(refused.status == 401)
            #expect(refused.body.contains(#""error":"unauthorized""#))
            let empty = try #require(
                await RawHTTP.request(port: server.adminPort, "GET", path, headers: ["Authorization": "Bearer "]))
            #expect(empty.status == 401)
        }
        let metrics = try #require(
            await RawHTTP.request(
                port: server.adminPort, "GET", "/metrics", headers: ["Authorization": "Bearer \(token)"]))
        #expect(metrics.status == 200)
        let unknown = try #require(
            await RawHTTP.request(port: server.adminPort, "GET", key, headers: ["Authorization": "Bearer \(token)"]))
        #expect(unknown.status == 404)
        #expect(unknown.body.contains(#""error":"keyNotFound""#))
        #expect(try #require(await RawHTTP.request(port: server.adminPort, "GET", "/healthz")).status == 200)
        #expect(try #require(await RawHTTP.request(port: server.port, "GET", "/healthz")).status == 200)
        let challenge = try #require(
            await RawHTTP.request(
                port: server.adminPort, "POST", "/v1/challenges",
                body: Array(#"{"purpose":"assertion","subject":"a"}"#.utf8),
                headers: ["Authorization": "Bearer \(token)", "Content-Type": "application/json"]))
        #expect(challenge.status == 200)
        let unauthenticated = try #require(
            await RawHTTP.request(
                port: server.adminPort, "POST", "/v1/challenges", json: #"{"purpose":"assertion","subject":"a"}"#))
        #expect(unauthenticated.status == 401)
        #expect(await server.stop() == 0)
    }
}

/// Temporary files for command-line tests.
enum ScratchFile {
    /// Writes `text` to a new temporary file and returns its path.
    static func write(_ text: String) -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("rampart-\(UUID().uuidString)").path
        _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
        return path
    }
}
