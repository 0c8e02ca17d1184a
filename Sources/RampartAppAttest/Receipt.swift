public import Foundation
import RampartCrypto
public import RampartX509

/// An App Attest receipt: the attributes Apple signs in the CMS SignedData returned with an attestation, and in the
/// fraud-metric receipts its server hands out later.
///
/// The signed content is (Apple, "Assessing fraud risk"):
/// ```
/// ReceiptPayload   ::= SET OF ReceiptAttribute
/// ReceiptAttribute ::= SEQUENCE { type INTEGER, version INTEGER, value OCTET STRING }
/// ```
/// with types 2 app id, 3 attested credential certificate, 4 client hash, 5 token, 6 receipt type, 7 environment,
/// 12 creation time, 17 risk metric, 19 not before, 21 expiration time. Unknown types are kept in ``attributes``.
///
/// Obtain a trusted receipt from ``ReceiptVerifier``; ``init(unverifiedBytes:)`` only parses.
///
/// ## Refreshing the fraud metric
/// The server can exchange a stored receipt with Apple for a `RECEIPT`-type receipt whose ``riskMetric`` estimates how
/// many keys the device attested for the app recently; see ``ReceiptRefreshing`` (the transport hook) and
/// ``ReceiptVerifier/refresh(_:environment:using:)``, which verifies the answer. Refresh no earlier than
/// ``notBefore``.
public struct Receipt: Sendable, Hashable {
    /// The most bytes a receipt may hold (DoS bound): Apple's are about 4 KiB.
    public static let maximumByteCount = 64 * 1024
    /// The most attributes in one payload (DoS bound): Apple's hold ten.
    public static let maximumAttributeCount = 64

    /// The CMS SignedData as received.
    public let rawRepresentation: [UInt8]
    /// Every attribute in payload order: its type and value octets.
    public let attributes: [Attribute]
    /// Type 2: the App ID, `TEAMID.bundle.id`.
    public let appID: String
    /// Type 3: the DER credential certificate the receipt was issued for.
    public let attestedCertificate: [UInt8]
    /// Type 4: the clientDataHash of the attestation (garbled by Apple in `RECEIPT`-type receipts; kept as bytes).
    public let clientHash: [UInt8]?
    /// Type 5: an opaque token.
    public let token: String?
    /// Type 6: `ATTEST` for the receipt inside an attestation, `RECEIPT` for a refreshed one.
    public let type: String
    /// Type 7: `sandbox` for development keys; absent or `production` otherwise.
    public let environment: String?
    /// Type 12: when Apple created the receipt.
    public let creationTime: Date
    /// Type 17: the fraud metric, roughly how many keys the device attested for the app in the last 30 days
    /// (`RECEIPT` receipts only).
    public let riskMetric: Int?
    /// Type 19: the earliest time to ask Apple for a refreshed receipt.
    public let notBefore: Date?
    /// Type 21: when the receipt expires.
    public let expirationTime: Date?

    /// SHA-256 of ``attestedCertificate`` in lowercase hex, to match against the stored credential certificate.
    public var attestedCertificateSHA256: String {
        SHA256.hash(attestedCertificate).map { String(format: "%02x", $0) }.joined()
    }

    /// One receipt attribute.
    public struct Attribute: Sendable, Hashable {
        /// The attribute type number.
        public let type: Int
        /// The attribute version (1 in every receipt seen).
        public let version: Int
        /// The value octets.
        public let value: [UInt8]
    }

    /// Parses a receipt without verifying its signature (to inspect it).
    ///
    /// - Parameter unverifiedBytes: The CMS SignedData (BER or DER).
    /// - Throws: ``AppAttestError/Code/malformedReceipt`` when it is not a SignedData holding the payload above,
    ///   ``AppAttestError/Code/limitExceeded`` beyond ``maximumByteCount``.
    public init(unverifiedBytes: [UInt8]) throws {
        try Self.checkSize(unverifiedBytes)
        try self.init(rawRepresentation: unverifiedBytes, payload: try cmsSignedContent(unverifiedBytes))
    }

    static func checkSize(_ bytes: [UInt8]) throws {
        guard bytes.count <= maximumByteCount else {
            throw AppAttestError.limitExceeded(
                "the receipt is \(bytes.count) bytes; at most \(maximumByteCount) are accepted"
            )
        }
        guard !bytes.isEmpty else {
            throw AppAttestError.malformedReceipt("the receipt is empty")
        }
    }

    init(rawRepresentation: [UInt8], payload: [UInt8]) throws {
        self.rawRepresentation = rawRepresentation
        let set: ASN1Node
        do {
            set = try DER.parse(payload)
            guard set.identifier == .set else {
                throw AppAttestError.malformedReceipt("the receipt payload is not a SET")
            }
        } catch let error as ASN1Error {
            throw AppAttestError.malformedReceipt("the receipt payload is not DER", detail: error.description)
        }
        guard set.children.count <= Self.maximumAttributeCount else {
            throw AppAttestError.limitExceeded(
                "the receipt holds \(set.children.count) attributes; at most \(Self.maximumAttributeCount)"
            )
        }
        var attributes: [Attribute] = []
        var seen = Set<Int>()
        for node in set.children {
            guard node.identifier == .sequence, node.children.count == 3 else {
                throw AppAttestError.malformedReceipt("a receipt attribute is not SEQUENCE { type, version, value }")
            }
            let type: Int
            let version: Int
            let value: [UInt8]
            do {
                type = try node.children[0].integerValue()
                version = try node.children[1].integerValue()
                value = try node.children[2].octetStringValue()
            } catch {
                throw AppAttestError.malformedReceipt(
                    "a receipt attribute is not SEQUENCE { INTEGER, INTEGER, OCTET STRING }"
                )
            }
            guard seen.insert(type).inserted else {
                throw AppAttestError.malformedReceipt("the receipt repeats attribute type \(type)")
            }
            attributes.append(Attribute(type: type, version: version, value: value))
        }
        self.attributes = attributes

        func value(_ type: Int) -> [UInt8]? { attributes.first { $0.type == type }?.value }
        func text(_ type: Int, _ name: String) throws -> String? {
            guard let bytes = value(type) else { return nil }
            guard let text = String(validating: bytes, as: UTF8.self) else {
                throw AppAttestError.malformedReceipt("the receipt's \(name) (type \(type)) is not UTF-8")
            }
            return text
        }
        func time(_ type: Int, _ name: String) throws -> Date? {
            guard let string = try text(type, name) else { return nil }
            guard let date = Self.parseTime(string) else {
                throw AppAttestError.malformedReceipt("the receipt's \(name) (type \(type)) is not an RFC 3339 time")
            }
            return date
        }
        guard let appID = try text(2, "app id"), let attested = value(3), let type = try text(6, "type"),
            let creationTime = try time(12, "creation time")
        else {
            throw AppAttestError.malformedReceipt(
                "the receipt lacks its app id (2), attested certificate (3), type (6) or creation time (12)"
            )
        }
        self.appID = appID
        self.attestedCertificate = attested
        self.clientHash = value(4)
        self.token = try text(5, "token")
        self.type = type
        self.environment = try text(7, "environment")
        self.creationTime = creationTime
        if let metric = try text(17, "risk metric") {
            guard let number = Int(metric), number >= 0 else {
                throw AppAttestError.malformedReceipt("the receipt's risk metric (type 17) is not a number")
            }
            self.riskMetric = number
        } else {
            self.riskMetric = nil
        }
        self.notBefore = try time(19, "not-before time")
        self.expirationTime = try time(21, "expiration time")
    }

    /// Parses `2020-11-21T22:16:05.466Z` (RFC 3339, with or without fractional seconds).
    static func parseTime(_ text: String) -> Date? {
        if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text) { return date }
        return try? Date.ISO8601FormatStyle().parse(text)
    }
}

/// The outcome of verifying a receipt.
public enum ReceiptVerdict: Sendable {
    /// The CMS signature verifies, the signer chains to the anchor at the time, and the receipt has not expired.
    case valid(Receipt)
    /// A check failed.
    case invalid(AppAttestFailure)

    /// The receipt, or nil.
    public var receipt: Receipt? {
        if case .valid(let receipt) = self { return receipt }
        return nil
    }

    /// The failure, or nil.
    public var failure: AppAttestFailure? {
        if case .invalid(let failure) = self { return failure }
        return nil
    }
}

/// Verifies App Attest receipts: the CMS signature, its signer chain to Apple Root CA - G3 at an injected time (no
/// purpose check), and the receipt's expiration.
public struct ReceiptVerifier: Sendable {
    /// The root the signer must chain to.
    public let trustAnchor: Certificate
    let clock: @Sendable () -> Date

    /// Creates a verifier.
    ///
    /// - Parameters:
    ///   - trustAnchor: The root; ``AppleRoots/rootCAG3`` by default.
    ///   - clock: The time to verify at; the system clock by default.
    public init(trustAnchor: Certificate = AppleRoots.rootCAG3, clock: @escaping @Sendable () -> Date = { Date() }) {
        self.trustAnchor = trustAnchor
        self.clock = clock
    }

    /// Verifies a receipt.
    ///
    /// - Parameter receipt: The CMS SignedData (BER or DER), as stored from an attestation or returned by Apple.
    /// - Returns: `.valid` with the parsed receipt, or `.invalid` with reason `receiptSignatureInvalid`,
    ///   `receiptChainUntrusted` or `receiptExpired`.
    /// - Throws: ``AppAttestError`` with code `malformedReceipt` or `limitExceeded` for malformed input.
    public func verify(_ receipt: [UInt8]) throws -> ReceiptVerdict {
        try Receipt.checkSize(receipt)
        let now = clock()
        switch try verifyCMSSignedData(receipt, anchorDER: trustAnchor.derBytes, at: now) {
        case .signatureInvalid(let detail):
            _ = try Receipt(unverifiedBytes: receipt)
            return .invalid(
                AppAttestFailure(
                    .receiptSignatureInvalid,
                    message: "the receipt's CMS signature does not verify (\(detail)); the receipt was altered or "
                        + "is not from Apple: do not trust its fields"
                )
            )
        case .chainUntrusted(let detail):
            _ = try Receipt(unverifiedBytes: receipt)
            let subject = trustAnchor.subject.description
            return .invalid(
                AppAttestFailure(
                    .receiptChainUntrusted,
                    message: "the receipt's signer does not chain to \(subject) at \(now) (\(detail)); "
                        + "check the trust anchor and the verification time"
                )
            )
        case .verified(let content):
            let parsed = try Receipt(rawRepresentation: receipt, payload: content)
            if let expiry = parsed.expirationTime, expiry < now {
                return .invalid(
                    AppAttestFailure(
                        .receiptExpired,
                        message: "the receipt expired at \(expiry), before the verification time \(now); "
                            + "attest the key again to get a fresh receipt"
                    )
                )
            }
            return .valid(parsed)
        }
    }
}
