import RampartX509

/// The app that asked for the key, as the Android OS (not the secure hardware) reports it
/// (`AttestationApplicationId`, carried DER-encoded in an OCTET STRING under tag 709):
///
/// ```
/// AttestationApplicationId ::= SEQUENCE {
///     package_infos  SET OF AttestationPackageInfo,
///     signature_digests  SET OF OCTET_STRING,
/// }
/// AttestationPackageInfo ::= SEQUENCE {
///     package_name  OCTET_STRING,
///     version  INTEGER,
/// }
/// ```
///
/// - Important: The OS fills this in, so it is only as trustworthy as the OS: believe it only when the
///   ``RootOfTrust`` says the boot was verified and the bootloader locked (``RootOfTrust/isVerifiedAndLocked``).
public struct AttestationApplicationID: Hashable, Sendable {
    /// The most packages listed (DoS bound; several packages appear only for apps sharing a user id).
    public static let maximumPackageCount = 256
    /// The most signing-certificate digests listed (DoS bound).
    public static let maximumDigestCount = 32
    /// The longest package name or digest, in bytes (DoS bound; package names are at most a few hundred bytes).
    public static let maximumElementByteCount = 1024

    /// One package: its name and version code.
    public struct Package: Hashable, Sendable {
        /// The package name, e.g. `com.example.app`.
        public var name: String
        /// The version code.
        public var version: Int64

        /// Creates a package entry.
        ///
        /// - Parameters:
        ///   - name: The package name.
        ///   - version: The version code.
        public init(name: String, version: Int64) {
            self.name = name
            self.version = version
        }
    }

    /// The packages of the calling app's user id, in encoded order.
    public var packages: [Package]
    /// SHA-256 digests of the app's signing certificates, in encoded order.
    public var signatureDigests: [[UInt8]]

    /// Creates an application id.
    ///
    /// - Parameters:
    ///   - packages: The packages.
    ///   - signatureDigests: The signing-certificate digests.
    public init(packages: [Package], signatureDigests: [[UInt8]]) {
        self.packages = packages
        self.signatureDigests = signatureDigests
    }

    /// Parses the DER inside tag 709's OCTET STRING.
    ///
    /// - Parameter derEncoded: The DER, with nothing after it.
    /// - Throws: ``KeyAttestationError`` (`malformedKeyDescription`, `limitExceeded`).
    public init(derEncoded: [UInt8]) throws {
        let node = try DERValue.parse(derEncoded, "attestationApplicationId")
        guard node.identifier == .sequence else {
            throw KeyAttestationError.malformedKeyDescription("attestationApplicationId should be a SEQUENCE")
        }
        var reader = DERCursor(node, "attestationApplicationId")
        let packageSet = try reader.next(.set, "package_infos")
        let digestSet = try reader.next(.set, "signature_digests")
        try reader.finish()
        guard packageSet.children.count <= Self.maximumPackageCount else {
            throw KeyAttestationError.limitExceeded(
                "attestationApplicationId lists more than \(Self.maximumPackageCount) packages")
        }
        guard digestSet.children.count <= Self.maximumDigestCount else {
            throw KeyAttestationError.limitExceeded(
                "attestationApplicationId lists more than \(Self.maximumDigestCount) signing digests")
        }
        packages = try packageSet.children.map { info in
            guard info.identifier == .sequence else {
                throw KeyAttestationError.malformedKeyDescription("an AttestationPackageInfo should be a SEQUENCE")
            }
            var fields = DERCursor(info, "an AttestationPackageInfo")
            let name = try DERValue.text(
                fields.next(.octetString, "package_name"), "a package name", limit: Self.maximumElementByteCount)
            let version = try DERValue.int64(fields.next(.integer, "version"), "a package version")
            try fields.finish()
            return Package(name: name, version: version)
        }
        signatureDigests = try digestSet.children.map {
            try DERValue.octets($0, "a signature digest", limit: Self.maximumElementByteCount)
        }
    }

    /// The DER that tag 709's OCTET STRING holds; SET OF components are written in this value's order.
    public var derEncoded: [UInt8] {
        var writer = DERWriter()
        writer.appendSequence { sequence in
            sequence.appendConstructed(.set) { set in
                for package in packages {
                    set.appendSequence { info in
                        info.appendOctetString(Array(package.name.utf8))
                        info.appendInt64(package.version)
                    }
                }
            }
            sequence.appendConstructed(.set) { set in
                for digest in signatureDigests { set.appendOctetString(digest) }
            }
        }
        return writer.bytes
    }
}
