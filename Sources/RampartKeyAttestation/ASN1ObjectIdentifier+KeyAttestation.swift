public import RampartX509

extension ASN1ObjectIdentifier {
    /// Android Key Attestation (source.android.com, "Key and ID attestation").
    public enum KeyAttestation {
        /// The attestation extension holding a ``KeyDescription``: 1.3.6.1.4.1.11129.2.1.17.
        public static let keyDescription: ASN1ObjectIdentifier = "1.3.6.1.4.1.11129.2.1.17"
        /// The provisioning-info extension of remotely provisioned chains (``ProvisioningInfo``):
        /// 1.3.6.1.4.1.11129.2.1.30.
        public static let provisioningInfo: ASN1ObjectIdentifier = "1.3.6.1.4.1.11129.2.1.30"
    }

    /// ML-DSA public keys (FIPS 204; NIST's computer security objects register).
    enum MLDSA {
        static let mlDSA44: ASN1ObjectIdentifier = "2.16.840.1.101.3.4.3.17"
        static let mlDSA65: ASN1ObjectIdentifier = "2.16.840.1.101.3.4.3.18"
        static let mlDSA87: ASN1ObjectIdentifier = "2.16.840.1.101.3.4.3.19"
    }
}
