// Process-spawning test support is Linux's: the tests that run on Apple platforms (RampartCryptoTests,
// RampartRequestSigningTests) start no child process, and SpawnedProcess uses glibc's posix_spawn extensions.
#if os(Linux)

public import Foundation

/// A throw-away public-key infrastructure made with the `openssl` command-line tool, reproducing the certificate
/// chains of badssl.com locally (expired, wrong host, self-signed, untrusted root, …) with fixed validity dates so that
/// tests inject the validation time.
///
/// Every certificate is EC P-256 with SHA-256 and follows RFC 5280 strictly (key identifiers, critical
/// basicConstraints), so only the fault each one is built to carry makes it fail; the leaves are valid for two years,
/// within the 825 days iOS accepts (ChainPolicy.apple). The files live in a fresh
/// temporary directory: `<name>.pem` (certificate), `<name>.key` (PKCS#8 key) and `<name>-chain.pem` (what a server
/// presents: the certificate followed by its intermediates).
public final class TestPKI: Sendable {
    /// A time when every certificate meant to be valid is valid: 2026-06-01T00:00:00Z.
    public static let validationTime = Date(timeIntervalSince1970: 1_780_272_000)

    /// The PKI of this test process, generated on first use (about a second).
    public static let shared: Result<TestPKI, any Error> = Result { try TestPKI() }

    /// The directory holding the files.
    public let directory: URL

    /// The leaf names and what each one carries.
    public static let leaves: [(name: String, fault: String)] = [
        ("good", "valid for good.rampart.test, *.good.rampart.test and 127.0.0.1"),
        ("expired", "expired at 2021-01-01"),
        ("notyet", "valid from 2030-01-01"),
        ("wronghost", "valid only for *.badssl.rampart.test"),
        ("cnonly", "CN=good.rampart.test and no subjectAltName"),
        ("selfsigned", "self-signed"),
        ("untrusted", "issued by a root that is not trusted"),
        ("notaca", "issued by a certificate that is not a CA"),
        ("clientauth", "extendedKeyUsage clientAuth only"),
        ("other", "good.rampart.test from a different, trusted CA"),
    ]

    private init() throws {
        let base = URL(fileURLWithPath: ScratchDirectory.uniquePath("pki"))
        try FileManager.default.createDirectory(
            at: base.appendingPathComponent("newcerts"), withIntermediateDirectories: true)
        directory = base
        try Data().write(to: base.appendingPathComponent("index.txt"))
        try Data("1000\n".utf8).write(to: base.appendingPathComponent("serial"))
        let config = """
            [ ca ]
            default_ca = test
            [ test ]
            database = \(base.path)/index.txt
            new_certs_dir = \(base.path)/newcerts
            serial = \(base.path)/serial
            default_md = sha256
            policy = anything
            unique_subject = no
            copy_extensions = none
            [ anything ]
            commonName = optional
            organizationName = optional
            [ req ]
            distinguished_name = dn
            [ dn ]

            """
        try Data(config.utf8).write(to: base.appendingPathComponent("ca.cnf"))

        let caExtensions = "basicConstraints = critical, CA:true\nkeyUsage = critical, keyCertSign, cRLSign\n"
        try issue(
            "root", subject: "/O=Rampart Tests/CN=Rampart Test Root", issuer: nil, from: "2020", to: "2040",
            extensions: caExtensions)
        try issue(
            "intermediate", subject: "/O=Rampart Tests/CN=Rampart Test Intermediate", issuer: "root",
            from: "2020", to: "2035",
            extensions: caExtensions.replacingOccurrences(of: "CA:true", with: "CA:true, pathlen:0"))
        try issue(
            "untrustedroot", subject: "/O=Untrusted/CN=Untrusted Root", issuer: nil, from: "2020", to: "2040",
            extensions: caExtensions)
        try issue(
            "otherroot", subject: "/O=Other CA/CN=Other Root", issuer: nil, from: "2020", to: "2040",
            extensions: caExtensions)
        try issue(
            "otherintermediate", subject: "/O=Other CA/CN=Other Intermediate", issuer: "otherroot",
            from: "2020", to: "2035", extensions: caExtensions)
        try issue(
            "fakeca", subject: "/O=Rampart Tests/CN=Not A CA", issuer: "intermediate", from: "2020",
            to: "2035", extensions: "basicConstraints = critical, CA:false\n")

        func leaf(_ san: String, eku: String = "serverAuth") -> String {
            "basicConstraints = critical, CA:false\nkeyUsage = critical, digitalSignature\n"
                + "extendedKeyUsage = \(eku)\n" + (san.isEmpty ? "" : "subjectAltName = \(san)\n")
        }
        let good = "DNS:good.rampart.test, DNS:*.good.rampart.test, IP:127.0.0.1"
        try issue(
            "good", subject: "/CN=good.rampart.test", issuer: "intermediate", from: "2025", to: "2027",
            extensions: leaf(good), chain: ["intermediate"])
        try issue(
            "expired", subject: "/CN=expired.rampart.test", issuer: "intermediate", from: "2020",
            to: "2021", extensions: leaf("DNS:expired.rampart.test"), chain: ["intermediate"])
        try issue(
            "notyet", subject: "/CN=notyet.rampart.test", issuer: "intermediate", from: "2030", to: "2031",
            extensions: leaf("DNS:notyet.rampart.test"), chain: ["intermediate"])
        try issue(
            "wronghost", subject: "/CN=*.badssl.rampart.test", issuer: "intermediate", from: "2025",
            to: "2027", extensions: leaf("DNS:*.badssl.rampart.test"), chain: ["intermediate"])
        try issue(
            "cnonly", subject: "/CN=good.rampart.test", issuer: "intermediate", from: "2025", to: "2027",
            extensions: leaf(""), chain: ["intermediate"])
        try issue(
            "selfsigned", subject: "/CN=selfsigned.rampart.test", issuer: nil, from: "2025", to: "2027",
            extensions: leaf("DNS:selfsigned.rampart.test"), chain: [])
        try issue(
            "untrusted", subject: "/CN=untrusted.rampart.test", issuer: "untrustedroot", from: "2025",
            to: "2027", extensions: leaf("DNS:untrusted.rampart.test"), chain: ["untrustedroot"])
        try issue(
            "notaca", subject: "/CN=notaca.rampart.test", issuer: "fakeca", from: "2025", to: "2027",
            extensions: leaf("DNS:notaca.rampart.test"), chain: ["fakeca", "intermediate"])
        try issue(
            "clientauth", subject: "/CN=clientauth.rampart.test", issuer: "intermediate", from: "2025",
            to: "2027", extensions: leaf("DNS:clientauth.rampart.test", eku: "clientAuth"),
            chain: ["intermediate"])
        try issue(
            "other", subject: "/CN=good.rampart.test", issuer: "otherintermediate", from: "2025", to: "2027",
            extensions: leaf(good), chain: ["otherintermediate"])
    }

    /// The path of a file in the PKI directory, e.g. `good-chain.pem` or `root.pem`.
    ///
    /// - Parameter file: The file name.
    /// - Returns: The absolute path.
    public func path(_ file: String) -> String { directory.appendingPathComponent(file).path }

    /// The PEM text of a file.
    ///
    /// - Parameter file: The file name, e.g. `root.pem`.
    /// - Returns: Its contents.
    /// - Throws: A file error.
    public func text(_ file: String) throws -> String { try String(contentsOfFile: path(file), encoding: .utf8) }

    /// The DER of the certificate `<name>.pem`.
    ///
    /// - Parameter name: The certificate name, e.g. `good`.
    /// - Returns: The DER bytes.
    /// - Throws: A file or decoding error.
    public func der(_ name: String) throws -> [UInt8] {
        let body = try text("\(name).pem").split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        guard let data = Data(base64Encoded: body) else { throw PKIError(message: "\(name).pem is not PEM") }
        return Array(data)
    }

    private func issue(
        _ name: String,
        subject: String,
        issuer: String?,
        from: String,
        to: String,
        extensions: String,
        chain: [String]? = nil
    ) throws {
        var all = extensions + "subjectKeyIdentifier = hash\n"
        if issuer != nil { all += "authorityKeyIdentifier = keyid:always\n" }
        try Data("[ x ]\n\(all)".utf8).write(to: directory.appendingPathComponent("\(name).ext"))
        try openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", path("\(name).key")])
        try openssl([
            "req", "-new", "-config", path("ca.cnf"), "-key", path("\(name).key"), "-subj", subject,
            "-out", path("\(name).csr"),
        ])
        var arguments = [
            "ca", "-config", path("ca.cnf"), "-batch", "-notext", "-preserveDN", "-in", path("\(name).csr"),
            "-out", path("\(name).pem"), "-startdate", "\(from)0101000000Z", "-enddate", "\(to)0101000000Z",
            "-extfile", path("\(name).ext"), "-extensions", "x",
        ]
        if let issuer {
            arguments += ["-cert", path("\(issuer).pem"), "-keyfile", path("\(issuer).key")]
        } else {
            arguments += ["-selfsign", "-keyfile", path("\(name).key")]
        }
        try openssl(arguments)
        if let chain {
            var text = try self.text("\(name).pem")
            for link in chain { text += try self.text("\(link).pem") }
            try Data(text.utf8).write(to: directory.appendingPathComponent("\(name)-chain.pem"))
        }
    }

    private func openssl(_ arguments: [String]) throws {
        let result = try SpawnedProcess.run("/usr/bin/openssl", arguments)
        guard result.termination == .exited(0) else {
            throw PKIError(message: "openssl \(arguments.first ?? "") failed: \(result.errorText)")
        }
    }
}

/// The test PKI could not be generated.
public struct PKIError: Error, CustomStringConvertible {
    /// What failed.
    public let message: String
    /// The message.
    public var description: String { message }

    /// Creates the error.
    ///
    /// - Parameter message: What failed.
    public init(message: String) { self.message = message }
}

#endif
