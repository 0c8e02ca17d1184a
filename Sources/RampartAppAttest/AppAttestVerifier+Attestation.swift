import Foundation
import RampartCrypto
import RampartX509

extension AppAttestVerifier {
    /// Verifies an attestation object, following every step of Apple's "Verify the attestation".
    ///
    /// 1. `x5c` chains from the credential certificate to the trust anchor at the clock's time (no TLS purpose);
    /// 2–3. `nonce = SHA-256(authData ‖ clientDataHash)`;
    /// 4. the credential certificate's extension 1.2.840.113635.100.8.2, parsed as
    ///    `SEQUENCE { [1] EXPLICIT OCTET STRING }`, holds `nonce`;
    /// 5. SHA-256 of the credential certificate's public key (the X9.63 point) is `keyID`, and the same key is the
    ///    one in the authenticator data;
    /// 6. rpIdHash is SHA-256 of ``appID``;
    /// 7. the counter is 0;
    /// 8. the AAGUID names the configured ``environment`` (a production verifier refuses development objects);
    /// 9. the credential id is `keyID`.
    ///
    /// - Parameters:
    ///   - attestationObject: The CBOR object `attestKey` returned.
    ///   - keyID: The key identifier the app sent (32 bytes, base64-decoded).
    ///   - clientDataHash: What the app passed to `attestKey`: normally SHA-256 of the server's one-time challenge.
    /// - Returns: `.valid` with the key to store, or `.invalid` naming the failed step.
    /// - Throws: ``AppAttestError`` for a malformed object, certificate or nonce extension, or a bad argument.
    public func verifyAttestation(
        _ attestationObject: [UInt8],
        keyID: [UInt8],
        clientDataHash: [UInt8]
    ) throws -> AttestationVerdict {
        try Self.checkClientDataHash(clientDataHash)
        guard keyID.count == 32 else {
            throw AppAttestError.invalidArgument(
                "the key id is \(keyID.count) bytes; App Attest key ids are the 32-byte SHA-256 of the public key"
            )
        }
        let object = try AttestationObject(bytes: attestationObject)
        let chain = try object.certificateChain.enumerated().map { index, der in
            do {
                return try Certificate(derEncoded: der)
            } catch {
                throw AppAttestError.malformedCertificate(
                    "certificate \(index) in x5c is not a DER X.509 certificate",
                    detail: String(describing: error)
                )
            }
        }
        // Step 1.
        if let failure = chainVerifier.verify(chain, at: clock()) { return .invalid(failure) }
        guard let credentialCertificate = chain.first else {
            throw AppAttestError.malformedAttestationObject("x5c is empty")
        }

        // Steps 2–4.
        let authData = object.authenticatorData
        let nonce = SHA256.hash(authData.rawRepresentation + clientDataHash)
        guard let attested = try Self.attestedNonce(in: credentialCertificate) else {
            return .invalid(
                AppAttestFailure(
                    .nonceMissing,
                    message: "the credential certificate has no nonce extension 1.2.840.113635.100.8.2; "
                        + "it is not an App Attest credential certificate"
                )
            )
        }
        guard ConstantTime.isEqual(attested, nonce) else {
            return .invalid(
                AppAttestFailure(
                    .nonceMismatch,
                    message: "the certificate's nonce is not SHA-256(authData ‖ clientDataHash); the authenticator "
                        + "data was altered or clientDataHash is not the one the app attested (is it SHA-256 of the "
                        + "challenge you issued?)"
                )
            )
        }

        // Step 5.
        let certificateKey: ECPublicKey
        do {
            certificateKey = try ECPublicKey(derRepresentation: credentialCertificate.subjectPublicKeyInfoBytes)
        } catch {
            throw AppAttestError.malformedCertificate("the credential certificate's key is not an EC key")
        }
        guard certificateKey.curve == .p256 else {
            throw AppAttestError.malformedCertificate("the credential certificate's key is not P-256")
        }
        let publicKey = certificateKey.x963Representation
        guard ConstantTime.isEqual(SHA256.hash(publicKey), keyID) else {
            return .invalid(
                AppAttestFailure(
                    .keyIDMismatch,
                    message: "SHA-256 of the attested public key is not the key id the app sent; "
                        + "pair each attestation with the key id it was made for"
                )
            )
        }
        guard let credential = authData.attestedCredentialData else {
            throw AppAttestError.malformedAuthenticatorData("the attestation carries no attested credential data")
        }
        guard credential.publicKeyX963 == publicKey else {
            return .invalid(
                AppAttestFailure(
                    .publicKeyMismatch,
                    message: "the key in the authenticator data differs from the credential certificate's key"
                )
            )
        }

        // Step 6.
        guard ConstantTime.isEqual(authData.rpIDHash, rpIDHash) else { return .invalid(rpIDMismatch()) }

        // Step 7.
        guard authData.signCount == 0 else {
            let count = authData.signCount
            return .invalid(
                AppAttestFailure(
                    .counterNotZero,
                    message: "the attestation's counter is \(count), not 0; a fresh key's attestation always has 0"
                )
            )
        }

        // Step 8.
        guard let found = AppAttestEnvironment(aaguid: credential.aaguid) else {
            return .invalid(
                AppAttestFailure(
                    .unknownAAGUID,
                    message: "the AAGUID is neither appattest (production) nor appattestdevelop (development)"
                )
            )
        }
        guard found == environment else {
            let expected = environment
            return .invalid(
                AppAttestFailure(
                    .environmentMismatch,
                    message: "the attestation comes from the \(found) environment but this verifier accepts only "
                        + "\(expected); check the app's App Attest entitlement or the server configuration"
                )
            )
        }

        // Step 9.
        guard ConstantTime.isEqual(credential.credentialID, keyID) else {
            return .invalid(
                AppAttestFailure(
                    .credentialIDMismatch,
                    message: "the authenticator data's credential id is not the key id"
                )
            )
        }

        return .valid(
            VerifiedAttestation(
                keyID: keyID,
                publicKeyX963: publicKey,
                counter: 0,
                environment: found,
                receipt: object.receipt,
                authenticatorData: authData,
                nonce: nonce,
                certificateChain: object.certificateChain
            )
        )
    }

    /// The nonce in extension 1.2.840.113635.100.8.2, or nil when the certificate lacks it.
    ///
    /// ```
    /// AppAttestNonce ::= SEQUENCE { nonce [1] EXPLICIT OCTET STRING (SIZE (32)) }
    /// ```
    static func attestedNonce(in certificate: Certificate) throws -> [UInt8]? {
        guard let fieldExtension = certificate.extensions[oid: .AppAttest.nonce] else { return nil }
        do {
            let sequence = try DER.parse(fieldExtension.value)
            guard sequence.identifier == .sequence, sequence.children.count == 1,
                let tagged = sequence.children.first,
                tagged.identifier == .contextSpecific(1, isConstructed: true), tagged.children.count == 1,
                let octets = try tagged.children.first?.octetStringValue(), octets.count == 32
            else {
                throw AppAttestError.malformedCertificate(
                    "the nonce extension is not SEQUENCE { [1] EXPLICIT OCTET STRING (32 bytes) }"
                )
            }
            return octets
        } catch let error as ASN1Error {
            throw AppAttestError.malformedCertificate("the nonce extension is not DER", detail: error.description)
        }
    }
}
