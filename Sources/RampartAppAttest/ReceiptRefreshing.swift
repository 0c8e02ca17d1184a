/// Where refreshed fraud-metric receipts come from: the hook an attestation service fills with its HTTP client.
///
/// Apple's endpoint takes the stored receipt and answers with a new one of type `RECEIPT` whose ``Receipt/riskMetric``
/// estimates how many keys the device attested for the app recently:
///
/// ```
/// POST https://data.appattest.apple.com/v1/attestationData              (development:
///      https://data-development.appattest.apple.com/v1/attestationData)
/// Authorization: <DeviceCheck JWT signed with your team's key, ES256, "iss": team id, "iat": now>
/// Content-Type: application/octet-stream
/// Body: the receipt bytes (base64 text in Apple's examples)
/// → 200 with a base64 receipt; 304 when the previous receipt is still current (ask after its notBefore)
/// ```
///
/// Rampart makes no network call itself: implement this protocol with your HTTP client and credentials, and pass
/// it to ``ReceiptVerifier/refresh(_:environment:using:)``, which verifies whatever comes back. ``AppAttestSimulator``
/// conforms, for tests.
public protocol ReceiptRefreshing: Sendable {
    /// Exchanges a stored receipt for a fresh one.
    ///
    /// - Parameters:
    ///   - receipt: The receipt stored from the attestation or from the previous refresh.
    ///   - environment: The key's environment, which selects Apple's production or development endpoint.
    /// - Returns: The new receipt's bytes (decoded from base64).
    /// - Throws: Whatever the transport throws.
    func refreshedReceipt(for receipt: [UInt8], environment: AppAttestEnvironment) async throws -> [UInt8]
}

extension ReceiptVerifier {
    /// Refreshes a receipt through `source` and verifies the answer: CMS signature and chain at the clock's time,
    /// not expired, and issued for the same App ID and the same attested credential certificate as `previous`.
    ///
    /// - Parameters:
    ///   - previous: The stored receipt, verified earlier.
    ///   - environment: The key's environment.
    ///   - source: The transport to Apple (or the simulator).
    /// - Returns: `.valid` with the new receipt (store it, and read its ``Receipt/riskMetric``), or `.invalid`:
    ///   `receiptSignatureInvalid`, `receiptChainUntrusted`, `receiptExpired` or `receiptMismatch`.
    /// - Throws: ``AppAttestError`` when the answer is malformed, or the transport's error.
    public func refresh(
        _ previous: Receipt,
        environment: AppAttestEnvironment,
        using source: some ReceiptRefreshing
    ) async throws -> ReceiptVerdict {
        let answer = try await source.refreshedReceipt(for: previous.rawRepresentation, environment: environment)
        let verdict = try verify(answer)
        guard let fresh = verdict.receipt else { return verdict }
        guard fresh.appID == previous.appID, fresh.attestedCertificate == previous.attestedCertificate else {
            return .invalid(
                AppAttestFailure(
                    .receiptMismatch,
                    message: "the refreshed receipt is for another app or key than the stored one; keep the stored "
                        + "receipt and do not use the new risk metric"
                )
            )
        }
        return verdict
    }
}
