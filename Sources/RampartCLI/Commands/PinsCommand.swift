import Foundation
import RampartCrypto
import RampartX509

/// `rampart pins FILE...`: the subject, issuer and SPKI pin of every certificate in PEM or DER files, and the pin of
/// a public or private key file (the backup pin Apple and TrustKit ask for).
public enum PinsCommand: Command {
    /// `pins`.
    public static let name = "pins"
    /// One line for `rampart --help`.
    public static let abstract =
        "print subject, issuer and SPKI SHA-256 pin of each certificate (or key) in PEM/DER files"
    /// The `--help` text.
    public static let help = """
        USAGE: rampart pins [--json] FILE...

        Reads each FILE (PEM with one or more CERTIFICATE blocks, or one DER certificate; '-' is standard input)
        and prints, for every certificate in file order, its index, subject (s:), issuer (i:) and pin: the base64
        SHA-256 of its SubjectPublicKeyInfo exactly as it appears in the certificate (the NSPinnedDomains
        SPKI-SHA256-BASE64 value, TrustKit's public key hash, OkHttp's sha256/ pin). Names print as
        `openssl x509 -noout -subject -nameopt oneline,-space_eq` prints them.

        A FILE may instead hold a key, for the backup pin of a key not yet in any certificate: a PUBLIC KEY
        (SubjectPublicKeyInfo, PEM or DER; the pin hashes its bytes as given) or a PRIVATE KEY (PKCS#8, PEM or DER;
        the pin hashes the SubjectPublicKeyInfo of its public key as OpenSSL encodes it, EC points uncompressed) of
        a type Rampart supports: EC P-256/384/521, RSA, Ed25519. A key prints as ` k:FILE (TYPE)` and its pin.
        Convert other private key forms first: openssl pkey -in KEY -out key.pem.

        OPTIONS:
          --json      print an array of {"index", "subject", "issuer", "notBefore", "notAfter", "keyType",
                      "spkiSHA256"} instead ({"index", "key", "keyType", "spkiSHA256"} for a key)
          -h, --help  show this help

        EXIT CODES:
          0  every file held certificates and they were printed
          2  bad usage, or a file that cannot be read or holds neither a certificate nor a key (one line on stderr
             names it)

        EXAMPLE:
          rampart pins Examples/sample-chain.pem
           0 s:CN=sample.rampart.example
             i:C=GB, O=Rampart Sample, CN=Rampart Sample Intermediate CA
             pin-sha256: buOnlnVtN4+DN2Zdn8oQeKJJbFJW5+FO9URLHSlnkUQ=
           ...
          rampart pins --json chain.pem | jq -r '.[0].spkiSHA256'
        """

    /// One certificate (or key) in the `--json` output.
    struct Entry: Encodable {
        let index: Int
        var key: String? = nil
        var subject: String? = nil
        var issuer: String? = nil
        var notBefore: Date? = nil
        var notAfter: Date? = nil
        let keyType: String
        let spkiSHA256: String
    }

    /// What a file holds: certificates, or one key's SubjectPublicKeyInfo.
    enum Item {
        case certificate(Certificate)
        case key(file: String, type: String, spki: [UInt8])
    }

    /// The SubjectPublicKeyInfo of a PUBLIC KEY (as given) or PKCS#8 PRIVATE KEY (derived), or nil.
    static func keyInfo(label: String?, der: [UInt8]) -> (type: String, spki: [UInt8])? {
        if label == nil || label == "PUBLIC KEY", let key = try? PublicKey(spkiDER: der) {
            return (describe(key.derRepresentation), der)
        }
        guard label == nil || label == "PRIVATE KEY" else { return nil }
        let spki: [UInt8]
        if let key = try? ECPrivateKey(pkcs8DERRepresentation: der) {
            spki = key.publicKey.derRepresentation
        } else if let key = try? RSAPrivateKey(pkcs8DERRepresentation: der) {
            spki = key.publicKey.derRepresentation
        } else if der.count == ed25519PKCS8Prefix.count + 32, der.starts(with: ed25519PKCS8Prefix),
            let key = try? Ed25519PrivateKey(rawRepresentation: der.suffix(32))
        {
            spki = key.publicKey.derRepresentation
        } else {
            return nil
        }
        return (describe(spki), spki)
    }

    /// An unencrypted Ed25519 PKCS#8 key without attributes or public key (RFC 8410 section 7): this prefix, then the
    /// 32-byte seed.
    static let ed25519PKCS8Prefix: [UInt8] = [
        0x30, 0x2E, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
    ]

    /// `EC P-256`, `RSA 2048`, … of a SubjectPublicKeyInfo, read as a certificate's key is.
    static func describe(_ spki: [UInt8]) -> String {
        guard let node = try? DER.parse(spki), node.children.count == 2,
            let algorithm = node.children.first, let oid = try? algorithm.children.first?.objectIdentifierValue(),
            let bits = try? node.children[1].bitStringValue()
        else { return "key" }
        return Certificate.describePublicKey(
            algorithm: oid, parameters: algorithm.children.dropFirst().first, key: bits.bytes)
    }

    /// The certificates or the key a file holds, or nil when it holds neither.
    static func items(in bytes: [UInt8], file: String) -> [Item]? {
        if let certificates = try? Certificate.parseAll(bytes), !certificates.isEmpty {
            return certificates.map(Item.certificate)
        }
        if bytes.first == 0x30 {
            return keyInfo(label: nil, der: bytes).map { [.key(file: file, type: $0.type, spki: $0.spki)] }
        }
        guard let text = String(validating: bytes, as: UTF8.self), let blocks = try? PEMDocument.parseAll(text),
            blocks.count == 1, let block = blocks.first,
            let info = keyInfo(label: block.label, der: block.derBytes)
        else { return nil }
        return [.key(file: file, type: info.type, spki: info.spki)]
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
        var collected: [Item] = []
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
            if let found = items(in: bytes, file: file) {
                collected += found
                continue
            }
            do {
                _ = try Certificate.parseAll(bytes)
                context.printError("rampart pins: \(file): holds no certificate and no supported key")
            } catch let error as X509Error {
                context.printError(
                    "rampart pins: \(file): not a certificate or key file: \(error) (keys: PUBLIC KEY or PKCS#8 "
                        + "PRIVATE KEY, EC P-256/384/521, RSA or Ed25519)")
            }
            return .usage
        }
        if json {
            try context.printJSON(
                collected.enumerated().map { index, item in
                    switch item {
                    case .certificate(let certificate):
                        Entry(
                            index: index, subject: certificate.subject.description,
                            issuer: certificate.issuer.description, notBefore: certificate.notBefore,
                            notAfter: certificate.notAfter, keyType: certificate.publicKeyDescription,
                            spkiSHA256: certificate.spkiSHA256)
                    case .key(let file, let type, let spki):
                        Entry(
                            index: index, key: file, keyType: type,
                            spkiSHA256: Data(SHA256.hash(spki)).base64EncodedString())
                    }
                })
        } else {
            for (index, item) in collected.enumerated() {
                let number = String(index)
                let padded = String(repeating: " ", count: max(0, 2 - number.count)) + number
                switch item {
                case .certificate(let certificate):
                    context.print(padded + " s:\(certificate.subject)")
                    context.print("   i:\(certificate.issuer)")
                    context.print("   pin-sha256: \(certificate.spkiSHA256)")
                case .key(let file, let type, let spki):
                    context.print(padded + " k:\(file) (\(type))")
                    context.print("   pin-sha256: \(Data(SHA256.hash(spki)).base64EncodedString())")
                }
            }
        }
        return .success
    }
}
