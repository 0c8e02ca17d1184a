import RampartASN1

/// Short names for object identifiers (`CN`, `O`, `emailAddress`, …), printed as the `openssl` command line prints
/// them. With OpenSSL (Linux) they come from its table (`ObjectNames_openssl.swift`); on Apple platforms, which have
/// no OpenSSL, from the built-in table below, which holds the names Rampart's output uses (distinguished-name
/// attributes, signature and key algorithms, curves). An identifier outside it prints in dotted form, so a name
/// OpenSSL knows may print as digits on Apple platforms — a display difference only, never a decision.
package enum ObjectNames {
    /// The short name of `identifier`, or nil when none is known.
    package static func shortName(for identifier: ASN1ObjectIdentifier) -> String? {
        #if canImport(COpenSSL)
        OpenSSLObjectNames.shortName(for: identifier)
        #else
        builtIn[identifier.dottedString]
        #endif
    }

    /// OpenSSL 3's short names for the identifiers Rampart prints (from `openssl list`'s object table).
    package static let builtIn: [String: String] = [
        "2.5.4.3": "CN", "2.5.4.4": "SN", "2.5.4.5": "serialNumber", "2.5.4.6": "C", "2.5.4.7": "L", "2.5.4.8": "ST",
        "2.5.4.9": "street", "2.5.4.10": "O", "2.5.4.11": "OU", "2.5.4.12": "title", "2.5.4.42": "GN",
        "2.5.4.43": "initials", "2.5.4.44": "generationQualifier", "2.5.4.46": "dnQualifier", "2.5.4.65": "pseudonym",
        "2.5.4.97": "organizationIdentifier", "2.5.4.15": "businessCategory", "2.5.4.17": "postalCode",
        "1.2.840.113549.1.9.1": "emailAddress", "0.9.2342.19200300.100.1.25": "DC",
        "0.9.2342.19200300.100.1.1": "UID", "1.3.6.1.4.1.311.60.2.1.3": "jurisdictionC",
        "1.3.6.1.4.1.311.60.2.1.2": "jurisdictionST", "1.3.6.1.4.1.311.60.2.1.1": "jurisdictionL",
        "1.2.840.10045.4.3.2": "ecdsa-with-SHA256", "1.2.840.10045.4.3.3": "ecdsa-with-SHA384",
        "1.2.840.10045.4.3.4": "ecdsa-with-SHA512", "1.2.840.10045.4.1": "ecdsa-with-SHA1",
        "1.2.840.113549.1.1.1": "rsaEncryption", "1.2.840.113549.1.1.5": "RSA-SHA1",
        "1.2.840.113549.1.1.11": "RSA-SHA256", "1.2.840.113549.1.1.12": "RSA-SHA384",
        "1.2.840.113549.1.1.13": "RSA-SHA512", "1.2.840.113549.1.1.10": "RSASSA-PSS", "1.3.101.112": "ED25519",
        "1.3.101.113": "ED448", "1.3.101.110": "X25519", "1.3.101.111": "X448", "1.2.840.10045.2.1": "id-ecPublicKey",
        "1.2.840.10045.3.1.7": "prime256v1", "1.3.132.0.34": "secp384r1", "1.3.132.0.35": "secp521r1",
        "1.2.840.10040.4.1": "DSA",
    ]
}
