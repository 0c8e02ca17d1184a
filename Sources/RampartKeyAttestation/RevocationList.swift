import Foundation

/// Google's attestation status list (`https://android.googleapis.com/attestation/status`), read from a file the
/// operator downloads and refreshes:
///
/// ```json
/// {"entries": {"<serial in lowercase hex>": {"status": "REVOKED" | "SUSPENDED", "reason": "KEY_COMPROMISE", …}}}
/// ```
///
/// Serials are the certificates' serial numbers as Google prints them: lowercase hex without leading zeros. Keys
/// are matched after lowercasing and dropping leading zeros, so a list that spells a serial differently still
/// revokes it (fail closed). Fields other than `status` and `reason` are ignored.
public struct RevocationList: Hashable, Sendable {
    /// The largest file read, in bytes (DoS bound; Google's list is a few hundred kilobytes).
    public static let maximumByteCount = 16 << 20

    /// The state of a listed certificate.
    public enum Status: String, Hashable, Sendable {
        /// The key is revoked: refuse every chain holding the certificate.
        case revoked = "REVOKED"
        /// The key is suspended: refused unless ``KeyAttestationPolicy/allowSuspendedCertificates``.
        case suspended = "SUSPENDED"
    }

    /// One listed certificate.
    public struct Entry: Hashable, Sendable {
        /// REVOKED or SUSPENDED.
        public let status: Status
        /// Google's reason (`KEY_COMPROMISE`, `CA_COMPROMISE`, `SUPERSEDED`, `SOFTWARE_FLAW`), if given.
        public let reason: String?
    }

    /// The entries by normalized serial (lowercase hex, no leading zeros).
    public let entries: [String: Entry]

    /// Parses the JSON status list.
    ///
    /// - Parameter json: The file's bytes.
    /// - Throws: ``KeyAttestationError``: `malformedRevocationList` when the JSON is not the status format (no
    ///   `entries` object, a key that is not hex, a status other than REVOKED or SUSPENDED), `limitExceeded` beyond
    ///   ``maximumByteCount``.
    public init(json: [UInt8]) throws {
        guard json.count <= Self.maximumByteCount else {
            throw KeyAttestationError.limitExceeded(
                "the revocation list is larger than \(Self.maximumByteCount) bytes")
        }
        struct File: Decodable {
            struct Item: Decodable {
                let status: String
                let reason: String?
            }
            let entries: [String: Item]
        }
        let file: File
        do {
            file = try JSONDecoder().decode(File.self, from: Data(json))
        } catch {
            throw KeyAttestationError.malformedRevocationList(
                "the revocation list is not Google's status JSON ({\"entries\": {\"<serial hex>\": "
                    + "{\"status\": \"REVOKED\"|\"SUSPENDED\"}}}); download it again from "
                    + "https://android.googleapis.com/attestation/status",
                detail: String(describing: error))
        }
        var entries: [String: Entry] = [:]
        for (serial, item) in file.entries {
            guard let key = Self.normalize(serial) else {
                throw KeyAttestationError.malformedRevocationList(
                    "the revocation list has a key that is not a hexadecimal serial number")
            }
            guard let status = Status(rawValue: item.status) else {
                throw KeyAttestationError.malformedRevocationList(
                    "the revocation list gives a serial the status '\(item.status.prefix(32))'; Rampart knows "
                        + "REVOKED and SUSPENDED (refusing an unknown status rather than ignoring it)")
            }
            entries[key] = Entry(status: status, reason: item.reason)
        }
        self.entries = entries
    }

    /// Reads the list from a file.
    ///
    /// - Parameter path: The file.
    /// - Throws: ``KeyAttestationError/Code/invalidArgument`` when the file cannot be read; otherwise as
    ///   ``init(json:)``.
    public init(contentsOfFile path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw KeyAttestationError.invalidArgument("cannot read the revocation list \(path)")
        }
        try self.init(json: Array(data))
    }

    /// The entry for a certificate serial number (INTEGER content octets), or nil when it is not listed.
    ///
    /// - Parameter serialNumber: The serial's two's complement big-endian octets, as `Certificate` holds them.
    /// - Returns: The entry, or nil.
    public func entry(forSerialNumber serialNumber: [UInt8]) -> Entry? {
        entries[Self.key(forSerialNumber: serialNumber)]
    }

    /// The list key of a serial number: lowercase hex of its magnitude without leading zeros (`0` for zero).
    ///
    /// - Parameter serialNumber: The INTEGER content octets.
    /// - Returns: The key, e.g. `f92009e853b6b045`.
    public static func key(forSerialNumber serialNumber: [UInt8]) -> String {
        let hex = serialNumber.map { byte in
            let digits = Array("0123456789abcdef")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
        }.joined()
        let trimmed = hex.drop { $0 == "0" }
        return trimmed.isEmpty ? "0" : String(trimmed)
    }

    static func normalize(_ serial: String) -> String? {
        let lower = serial.lowercased()
        guard !lower.isEmpty, lower.count <= 128, lower.allSatisfy({ $0.isHexDigit && $0.isASCII }) else {
            return nil
        }
        let trimmed = lower.drop { $0 == "0" }
        return trimmed.isEmpty ? "0" : String(trimmed)
    }
}
