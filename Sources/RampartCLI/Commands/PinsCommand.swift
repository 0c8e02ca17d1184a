import Foundation
import RampartX509

/// `rampart pins FILE...`: the subject, issuer and SPKI pin of every certificate in PEM or DER files.
public enum PinsCommand: Command {
    /// `pins`.
    public static let name = "pins"
    /// One line for `rampart --help`.
    public static let abstract = "print subject, issuer and SPKI SHA-256 pin of each certificate in PEM/DER files"
    /// The `--help` text.
    public static let help = """
        USAGE: rampart pins [--json] FILE...

        Reads each FILE (PEM with one or more CERTIFICATE blocks, or one DER certificate; '-' is standard input)
        and prints, for every certificate in file order, its index, subject (s:), issuer (i:) and pin: the base64
        SHA-256 of its SubjectPublicKeyInfo exactly as it appears in the certificate (the NSPinnedDomains
        SPKI-SHA256-BASE64 value, TrustKit's public key hash, OkHttp's sha256/ pin). Names print as
        `openssl x509 -noout -subject -nameopt oneline,-space_eq` prints them.

        OPTIONS:
          --json      print an array of {"index", "subject", "issuer", "notBefore", "notAfter", "keyType",
                      "spkiSHA256"} instead
          -h, --help  show this help

        EXIT CODES:
          0  every file held certificates and they were printed
          2  bad usage, or a file that cannot be read or is not a certificate (one line on stderr names it)

        EXAMPLE:
          rampart pins Examples/sample-chain.pem
           0 s:CN=sample.rampart.example
             i:C=GB, O=Rampart Sample, CN=Rampart Sample Intermediate CA
             pin-sha256: dF4bEw9PSpf0oxUs4mipD2+mFb7sUCB36MmGK3w0dVw=
           ...
          rampart pins --json chain.pem | jq -r '.[0].spkiSHA256'
        """

    /// One certificate in the `--json` output.
    struct Entry: Encodable {
        let index: Int
        let subject: String
        let issuer: String
        let notBefore: Date
        let notAfter: Date
        let keyType: String
        let spkiSHA256: String
    }

    /// Runs the command.
    ///
    /// - Parameters:
    ///   - arguments: The arguments after `pins`.
    ///   - context: Streams and input.
    /// - Returns: `.success`, or `.usage` when a file is unreadable or not a certificate.
    /// - Throws: ``UsageError`` for bad usage.
    public static func run(_ arguments: inout Arguments, context: CommandContext) async throws -> ExitCode {
        let json = arguments.flag("--json")
        let files = try arguments.positionals()
        guard !files.isEmpty else { throw UsageError("give at least one certificate file") }
        var certificates: [Certificate] = []
        for file in files {
            let bytes: [UInt8]
            if file == "-" {
                bytes = Array(context.readStandardInput())
            } else {
                guard let data = FileManager.default.contents(atPath: file) else {
                    context.printError("rampart pins: \(file): cannot read the file; check the path and permissions")
                    return .usage
                }
                bytes = Array(data)
            }
            do {
                certificates += try Certificate.parseAll(bytes)
            } catch let error as X509Error {
                context.printError("rampart pins: \(file): not a certificate file: \(error)")
                return .usage
            }
        }
        if json {
            try context.printJSON(
                certificates.enumerated().map { index, certificate in
                    Entry(
                        index: index,
                        subject: certificate.subject.description,
                        issuer: certificate.issuer.description,
                        notBefore: certificate.notBefore,
                        notAfter: certificate.notAfter,
                        keyType: certificate.publicKeyDescription,
                        spkiSHA256: certificate.spkiSHA256)
                })
        } else {
            for (index, certificate) in certificates.enumerated() {
                let number = String(index)
                context.print(
                    String(repeating: " ", count: max(0, 2 - number.count)) + number + " s:\(certificate.subject)")
                context.print("   i:\(certificate.issuer)")
                context.print("   pin-sha256: \(certificate.spkiSHA256)")
            }
        }
        return .success
    }
}
