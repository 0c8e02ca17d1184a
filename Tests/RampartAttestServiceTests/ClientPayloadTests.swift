import Foundation
import RampartAppAttest
import RampartAttestClient
import RampartAttestSimulation
import RampartRequestSigning
import RampartVault
import Testing

/// The app side refuses, before any request, a payload the service would refuse for an inexact number.
struct ClientPayloadTests {
    @Test("prepare(payload:) with a number whose canonical form is another number is invalidPayload, sending nothing")
    func inexactPayload() async throws {
        let client = AttestedClient(
            transport: URLSessionTransport(baseURL: URL(fileURLWithPath: "/nonexistent")),
            device: SimulatedAppAttestDevice(
                simulator: try AppAttestSimulator(), teamID: "ABCDE12345", bundleID: "com.example.app",
                environment: .development),
            secrets: Vault(backend: InMemoryBackend()), subject: "alice")
        for number in [2e18, 9_007_199_254_740_992, -1.5e20] {
            let error = await #expect(throws: AttestedClientError.self) {
                try await client.prepare(payload: .object(["toAccount": .number(number)]))
            }
            #expect(error?.code == .invalidPayload)
            #expect(error?.reason.contains("'toAccount'") == true)
        }
    }
}
