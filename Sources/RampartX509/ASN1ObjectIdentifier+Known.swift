public import RampartASN1

extension ASN1ObjectIdentifier {
    /// Apple App Attest (Apple's App Attest documentation, "Validating apps that connect to your server").
    public enum AppAttest {
        /// The attestation nonce extension in the credential certificate: 1.2.840.113635.100.8.2.
        public static let nonce: ASN1ObjectIdentifier = "1.2.840.113635.100.8.2"
        /// The receipt-related App Attest extension 1.2.840.113635.100.8.5 (app ID / environment).
        public static let appAttestation: ASN1ObjectIdentifier = "1.2.840.113635.100.8.5"
    }

    /// Certificate extensions (RFC 5280 section 4.2.1).
    public enum X509Extension {
        /// id-ce-subjectKeyIdentifier, 2.5.29.14.
        public static let subjectKeyIdentifier: ASN1ObjectIdentifier = "2.5.29.14"
        /// id-ce-keyUsage, 2.5.29.15.
        public static let keyUsage: ASN1ObjectIdentifier = "2.5.29.15"
        /// id-ce-subjectAltName, 2.5.29.17.
        public static let subjectAlternativeName: ASN1ObjectIdentifier = "2.5.29.17"
        /// id-ce-issuerAltName, 2.5.29.18.
        public static let issuerAlternativeName: ASN1ObjectIdentifier = "2.5.29.18"
        /// id-ce-basicConstraints, 2.5.29.19.
        public static let basicConstraints: ASN1ObjectIdentifier = "2.5.29.19"
        /// id-ce-nameConstraints, 2.5.29.30.
        public static let nameConstraints: ASN1ObjectIdentifier = "2.5.29.30"
        /// id-ce-cRLDistributionPoints, 2.5.29.31.
        public static let crlDistributionPoints: ASN1ObjectIdentifier = "2.5.29.31"
        /// id-ce-certificatePolicies, 2.5.29.32.
        public static let certificatePolicies: ASN1ObjectIdentifier = "2.5.29.32"
        /// id-ce-authorityKeyIdentifier, 2.5.29.35.
        public static let authorityKeyIdentifier: ASN1ObjectIdentifier = "2.5.29.35"
        /// id-ce-policyConstraints, 2.5.29.36.
        public static let policyConstraints: ASN1ObjectIdentifier = "2.5.29.36"
        /// id-ce-extKeyUsage, 2.5.29.37.
        public static let extendedKeyUsage: ASN1ObjectIdentifier = "2.5.29.37"
        /// id-pe-authorityInfoAccess, 1.3.6.1.5.5.7.1.1.
        public static let authorityInformationAccess: ASN1ObjectIdentifier = "1.3.6.1.5.5.7.1.1"
    }

    /// Extended key usage purposes (RFC 5280 section 4.2.1.12).
    public enum ExtendedKeyUsage {
        /// anyExtendedKeyUsage, 2.5.29.37.0.
        public static let any: ASN1ObjectIdentifier = "2.5.29.37.0"
        /// id-kp-serverAuth, 1.3.6.1.5.5.7.3.1.
        public static let serverAuth: ASN1ObjectIdentifier = "1.3.6.1.5.5.7.3.1"
        /// id-kp-clientAuth, 1.3.6.1.5.5.7.3.2.
        public static let clientAuth: ASN1ObjectIdentifier = "1.3.6.1.5.5.7.3.2"
        /// id-kp-codeSigning, 1.3.6.1.5.5.7.3.3.
        public static let codeSigning: ASN1ObjectIdentifier = "1.3.6.1.5.5.7.3.3"
        /// id-kp-emailProtection, 1.3.6.1.5.5.7.3.4.
        public static let emailProtection: ASN1ObjectIdentifier = "1.3.6.1.5.5.7.3.4"
        /// id-kp-timeStamping, 1.3.6.1.5.5.7.3.8.
        public static let timeStamping: ASN1ObjectIdentifier = "1.3.6.1.5.5.7.3.8"
        /// id-kp-OCSPSigning, 1.3.6.1.5.5.7.3.9.
        public static let ocspSigning: ASN1ObjectIdentifier = "1.3.6.1.5.5.7.3.9"
    }

    /// Name attribute types (X.520, RFC 4519, PKCS #9, RFC 4524).
    public enum NameAttribute {
        /// commonName (CN), 2.5.4.3.
        public static let commonName: ASN1ObjectIdentifier = "2.5.4.3"
        /// serialNumber, 2.5.4.5.
        public static let serialNumber: ASN1ObjectIdentifier = "2.5.4.5"
        /// countryName (C), 2.5.4.6.
        public static let countryName: ASN1ObjectIdentifier = "2.5.4.6"
        /// localityName (L), 2.5.4.7.
        public static let localityName: ASN1ObjectIdentifier = "2.5.4.7"
        /// stateOrProvinceName (ST), 2.5.4.8.
        public static let stateOrProvinceName: ASN1ObjectIdentifier = "2.5.4.8"
        /// streetAddress (street), 2.5.4.9.
        public static let streetAddress: ASN1ObjectIdentifier = "2.5.4.9"
        /// organizationName (O), 2.5.4.10.
        public static let organizationName: ASN1ObjectIdentifier = "2.5.4.10"
        /// organizationalUnitName (OU), 2.5.4.11.
        public static let organizationalUnitName: ASN1ObjectIdentifier = "2.5.4.11"
        /// emailAddress (PKCS #9), 1.2.840.113549.1.9.1.
        public static let emailAddress: ASN1ObjectIdentifier = "1.2.840.113549.1.9.1"
        /// domainComponent (DC), 0.9.2342.19200300.100.1.25.
        public static let domainComponent: ASN1ObjectIdentifier = "0.9.2342.19200300.100.1.25"
        /// userId (UID), 0.9.2342.19200300.100.1.1.
        public static let userID: ASN1ObjectIdentifier = "0.9.2342.19200300.100.1.1"
    }

    /// Signature algorithms (RFC 5758, RFC 4055, RFC 8410, RFC 3279).
    public enum SignatureAlgorithm {
        /// ecdsa-with-SHA256, 1.2.840.10045.4.3.2.
        public static let ecdsaWithSHA256: ASN1ObjectIdentifier = "1.2.840.10045.4.3.2"
        /// ecdsa-with-SHA384, 1.2.840.10045.4.3.3.
        public static let ecdsaWithSHA384: ASN1ObjectIdentifier = "1.2.840.10045.4.3.3"
        /// ecdsa-with-SHA512, 1.2.840.10045.4.3.4.
        public static let ecdsaWithSHA512: ASN1ObjectIdentifier = "1.2.840.10045.4.3.4"
        /// sha1WithRSAEncryption, 1.2.840.113549.1.1.5.
        public static let sha1WithRSAEncryption: ASN1ObjectIdentifier = "1.2.840.113549.1.1.5"
        /// sha256WithRSAEncryption, 1.2.840.113549.1.1.11.
        public static let sha256WithRSAEncryption: ASN1ObjectIdentifier = "1.2.840.113549.1.1.11"
        /// sha384WithRSAEncryption, 1.2.840.113549.1.1.12.
        public static let sha384WithRSAEncryption: ASN1ObjectIdentifier = "1.2.840.113549.1.1.12"
        /// sha512WithRSAEncryption, 1.2.840.113549.1.1.13.
        public static let sha512WithRSAEncryption: ASN1ObjectIdentifier = "1.2.840.113549.1.1.13"
        /// id-RSASSA-PSS, 1.2.840.113549.1.1.10.
        public static let rsassaPSS: ASN1ObjectIdentifier = "1.2.840.113549.1.1.10"
        /// id-Ed25519, 1.3.101.112.
        public static let ed25519: ASN1ObjectIdentifier = "1.3.101.112"
        /// id-Ed448, 1.3.101.113.
        public static let ed448: ASN1ObjectIdentifier = "1.3.101.113"
    }

    /// Public key algorithms in SubjectPublicKeyInfo (RFC 3279, RFC 4055, RFC 5480, RFC 8410).
    public enum PublicKeyAlgorithm {
        /// rsaEncryption, 1.2.840.113549.1.1.1.
        public static let rsaEncryption: ASN1ObjectIdentifier = "1.2.840.113549.1.1.1"
        /// id-RSASSA-PSS, 1.2.840.113549.1.1.10.
        public static let rsassaPSS: ASN1ObjectIdentifier = "1.2.840.113549.1.1.10"
        /// id-ecPublicKey, 1.2.840.10045.2.1.
        public static let ecPublicKey: ASN1ObjectIdentifier = "1.2.840.10045.2.1"
        /// id-Ed25519, 1.3.101.112.
        public static let ed25519: ASN1ObjectIdentifier = "1.3.101.112"
        /// id-Ed448, 1.3.101.113.
        public static let ed448: ASN1ObjectIdentifier = "1.3.101.113"
        /// id-X25519, 1.3.101.110.
        public static let x25519: ASN1ObjectIdentifier = "1.3.101.110"
        /// id-X448, 1.3.101.111.
        public static let x448: ASN1ObjectIdentifier = "1.3.101.111"
        /// id-dsa, 1.2.840.10040.4.1.
        public static let dsa: ASN1ObjectIdentifier = "1.2.840.10040.4.1"
    }

    /// Named elliptic curves (RFC 5480 section 2.1.1.1, SEC 2).
    public enum NamedCurve {
        /// secp256r1 / prime256v1 (P-256), 1.2.840.10045.3.1.7.
        public static let p256: ASN1ObjectIdentifier = "1.2.840.10045.3.1.7"
        /// secp384r1 (P-384), 1.3.132.0.34.
        public static let p384: ASN1ObjectIdentifier = "1.3.132.0.34"
        /// secp521r1 (P-521), 1.3.132.0.35.
        public static let p521: ASN1ObjectIdentifier = "1.3.132.0.35"
        /// secp256k1, 1.3.132.0.10.
        public static let secp256k1: ASN1ObjectIdentifier = "1.3.132.0.10"
    }
}
