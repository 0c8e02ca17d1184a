import Foundation
import TestSupport
import Testing

/// How `rampart serve` treats signals: SIGHUP is logged and ignored, SIGTERM drains and exits 0.
struct ServeSignalTests {
    @Test(
        "SIGHUP does not kill the service: it keeps answering, then SIGTERM stops it cleanly",
        .enabled(if: ServeProcess.available, "needs the rampart binary (swift build)"))
    func hangUp() async throws {
        let server = try await ServeProcess.start(
            ServeProcess.subjectHeader + [
                "--db", "sqlite:" + temporarySQLitePath(), "--team-id", "ABCDE12345", "--bundle-id", "com.example.app",
            ])
        let request = Array("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8)
        #expect(await RawHTTP.exchange(port: server.port, request)?.status == 200)
        server.process.signal(SIGHUP)
        server.process.signal(SIGHUP)
        try await Task.sleep(for: .milliseconds(300))
        #expect(server.process.isRunning)
        #expect(await RawHTTP.exchange(port: server.port, request)?.status == 200)
        #expect(await server.stop() == 0)
    }
}
