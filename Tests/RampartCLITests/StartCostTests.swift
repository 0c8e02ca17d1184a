import Foundation
import RampartCLI
import RampartServiceCLI
import Testing

/// The `rampart` users run maps only the libraries its light commands use, and hands serve, routes, demo and device to
/// `rampart-service` with the command line unchanged.
struct StartCostTests {
    /// The built `rampart` and `rampart-service`, or nil when the tests run without them.
    static let binaries: (rampart: String, service: String)? = {
        guard let directory = DocExampleTests.rampartDirectory else { return nil }
        let rampart = directory.appendingPathComponent("rampart").path
        let service = directory.appendingPathComponent("rampart-service").path
        guard FileManager.default.isExecutableFile(atPath: service) else { return nil }
        return (rampart, service)
    }()

    @Test(
        "rampart needs neither libpq, libsecret, libcurl nor GnuTLS; rampart-service has libpq, and no HTTP library")
    func libraries() throws {
        let binaries = try #require(Self.binaries, "build rampart and rampart-service first")
        let light = try Shell.run("ldd \(Shell.quote(binaries.rampart))").output
        for library in ["libpq", "libsecret", "libcurl", "libgnutls", "libglib", "libmicrohttpd"] {
            #expect(!light.contains(library), "rampart maps \(library) at start")
        }
        let service = try Shell.run("ldd \(Shell.quote(binaries.service))").output
        #expect(service.contains("libpq"))
        // The server's HTTP/1.1 is its own event loop (one parser for every byte a client sends).
        #expect(!service.contains("libmicrohttpd"))
    }

    @Test("rampart --help lists every command as RampartCLI does, serve and demo included")
    func sameHelp() throws {
        let binaries = try #require(Self.binaries, "build rampart and rampart-service first")
        let help = try Shell.run("\(Shell.quote(binaries.rampart)) --help").output
        #expect(help == Rampart.help + "\n")
    }

    @Test("each forwarder in rampart has the name, abstract and place of the command rampart-service runs")
    func forwardersMatch() {
        #expect(Rampart.commands.map { $0.name } == RampartService.commands.map { $0.name })
        #expect(Rampart.commands.map { $0.abstract } == RampartService.commands.map { $0.abstract })
        let forwarded = Rampart.commands.filter { $0 is any ForwardedCommand.Type }.map { $0.name }
        #expect(forwarded == ["device", "serve", "routes", "demo"])
        #expect(!RampartService.commands.contains { $0 is any ForwardedCommand.Type })
    }

    @Test("rampart serve and demo run in rampart-service: same help, same errors, same exit codes")
    func forwarded() throws {
        let binaries = try #require(Self.binaries, "build rampart and rampart-service first")
        let rampart = Shell.quote(binaries.rampart)
        #expect(try Shell.run("\(rampart) serve --help").output == ServeCommand.help + "\n")
        #expect(try Shell.run("\(rampart) help demo").output == DemoCommand.help + "\n")
        let refused = try Shell.run("\(rampart) serve --bogus 2>&1")
        #expect(refused.status == 2)
        #expect(refused.output == "rampart serve: unknown option --bogus (see 'rampart serve --help')\n")
    }
}
