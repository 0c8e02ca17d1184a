import Foundation
import TestSupport
import Testing

/// `scripts/quickstart-backend.sh --check`: the backend path of the README, as a new user runs it — rampart serve with
/// the example configuration, the example upstream and nginx with the example site, a simulated device registering
/// through nginx and signing a request — on ports of its own.
@Suite(
    .enabled(
        if: (NginxGateway.binary != nil && EchoUpstream.python != nil || Gateway.required) && ServeProcess.available,
        "needs nginx (apt-get install nginx; scripts/install-deps.sh), python3 and the rampart binary"))
struct QuickStartTests {
    @Test("the quick start plays the backend path: a signed request passes, unsigned and '..;' requests do not")
    func quickStartCheck() throws {
        let binary = try #require(ServeProcess.binary)
        var ports: [ReservedPort]? = try (0..<4).map { _ in try ReservedPort() }
        let numbers = ports?.map(\.port) ?? []
        var environment = ProcessInfo.processInfo.environment
        environment["RAMPART_BIN"] = binary.deletingLastPathComponent().path
        environment["QUICKSTART_DIR"] = ScratchDirectory.uniquePath("quickstart")
        environment["QUICKSTART_NGINX_PORT"] = String(numbers[0])
        environment["QUICKSTART_RAMPART_PORT"] = String(numbers[1])
        environment["QUICKSTART_ADMIN_PORT"] = String(numbers[2])
        environment["QUICKSTART_UPSTREAM_PORT"] = String(numbers[3])
        ports = nil  // released (closed) just before the script binds them
        _ = ports
        let result = try SpawnedProcess.run(
            "/bin/bash", [Gateway.packageRoot.appendingPathComponent("scripts/quickstart-backend.sh").path, "--check"],
            environment: environment, directory: Gateway.packageRoot.path)
        #expect(result.termination.status == 0, "stdout:\n\(result.text)\nstderr:\n\(result.errorText)")
        #expect(result.text.contains("ok  a signed request through nginx: 200"))
        #expect(result.text.contains("ok  '..;' towards a stricter route: 403"))
    }
}
