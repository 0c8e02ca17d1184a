import TestSupport
import Testing

#if RAMPART_CRYPTOKIT_BACKEND
import RampartCryptoKitBackend
#else
import RampartCrypto
#endif

private let vectorsMissing: Comment = "the Wycheproof vectors are missing from Tests/RampartCryptoTests/Vectors"

/// Asserts a verdict against a case's expected result (see ``WycheproofCase`` for the `acceptable` rule).
private func expectVerdict(_ accepted: Bool, _ vector: WycheproofCase, acceptable: Bool? = nil) {
    switch vector.expected {
    case .valid: #expect(accepted, "valid vector rejected")
    case .invalid: #expect(!accepted, "invalid vector accepted")
    case .acceptable:
        if let acceptable { #expect(accepted == acceptable, "acceptable vector verdict changed") }
    }
}

struct WycheproofSignatureTests {
    @Test(
        "ECDSA DER signatures (P-256/SHA-256, P-384/SHA-256, P-384/SHA-384, P-521/SHA-512)",
        .enabled(if: Vectors.available("wycheproof"), vectorsMissing),
        arguments: [
            "ecdsa_secp256r1_sha256_test.json", "ecdsa_secp384r1_sha256_test.json",
            "ecdsa_secp384r1_sha384_test.json", "ecdsa_secp521r1_sha512_test.json",
        ].flatMap(WycheproofCase.load)
    )
    func ecdsaDER(vector: WycheproofCase) throws {
        if cryptoKitBackend, vector.file != "ecdsa_secp256r1_sha256_test.json" {
            // CryptoKit backend: P-256 with SHA-256 only; other curves are refused, never verified differently.
            #expect(throws: CryptoError.unsupportedAlgorithm("")) {
                try ECPublicKey(derRepresentation: vector.hex("publicKeyDer"))
            }
            return
        }
        let key = try ECPublicKey(derRepresentation: vector.hex("publicKeyDer"))
        #expect(try key.x963Representation == vector.hex("publicKey.uncompressed"))
        #expect(
            try ECPublicKey(pemRepresentation: vector.string("publicKeyPem")).derRepresentation == key.derRepresentation
        )
        let digest = try vector.digest()
        let accepted = try key.isValidSignature(vector.hex("sig"), for: vector.hex("msg"), digest: digest)
        expectVerdict(accepted, vector)
        // The generic path must agree with the typed one.
        let algorithm: SignatureAlgorithm =
            switch digest {
            case .sha256: .ecdsaWithSHA256
            case .sha384: .ecdsaWithSHA384
            case .sha512: .ecdsaWithSHA512
            }
        let generic = try PublicKey(spkiDER: vector.hex("publicKeyDer"))
        #expect(
            try generic.isValidSignature(vector.hex("sig"), for: vector.hex("msg"), algorithm: algorithm) == accepted)
    }

    @Test(
        "ECDSA P1363 (raw r‖s) signatures, P-256/SHA-256",
        .enabled(if: Vectors.available("wycheproof"), vectorsMissing),
        arguments: WycheproofCase.load("ecdsa_secp256r1_sha256_p1363_test.json")
    )
    func ecdsaP1363(vector: WycheproofCase) throws {
        let key = try ECPublicKey(derRepresentation: vector.hex("publicKeyDer"))
        let accepted = try key.isValidRawSignature(vector.hex("sig"), for: vector.hex("msg"), digest: vector.digest())
        expectVerdict(accepted, vector)
    }

    @Test(
        "Ed25519 signatures",
        .enabled(if: Vectors.available("wycheproof"), vectorsMissing),
        arguments: WycheproofCase.load("ed25519_test.json")
    )
    func ed25519(vector: WycheproofCase) throws {
        // Both backends verify Ed25519 (CryptoKit through Curve25519.Signing.PublicKey).
        let key = try Ed25519PublicKey(derRepresentation: vector.hex("publicKeyDer"))
        #expect(try key.rawRepresentation == vector.hex("publicKey.pk"))
        #expect(
            try Ed25519PublicKey(rawRepresentation: vector.hex("publicKey.pk")).derRepresentation
                == key.derRepresentation)
        #expect(
            try Ed25519PublicKey(pemRepresentation: vector.string("publicKeyPem")).rawRepresentation
                == key.rawRepresentation)
        let accepted = try key.isValidSignature(vector.hex("sig"), for: vector.hex("msg"))
        expectVerdict(accepted, vector)
        let generic = try PublicKey(spkiDER: vector.hex("publicKeyDer"))
        #expect(
            try generic.isValidSignature(vector.hex("sig"), for: vector.hex("msg"), algorithm: .ed25519) == accepted)
        #expect(generic.kind == .ed25519)
    }

    @Test("Ed25519 signing is refused on the CryptoKit backend (CryptoKit's signatures are randomized)")
    func ed25519SigningOnlyWithOpenSSL() throws {
        let seed = [UInt8](repeating: 7, count: 32)
        guard cryptoKitBackend else {
            #expect(try Ed25519PrivateKey(rawRepresentation: seed).publicKey.rawRepresentation.count == 32)
            return
        }
        #expect(throws: CryptoError.unsupportedAlgorithm("")) { try Ed25519PrivateKey(rawRepresentation: seed) }
    }

    @Test(
        "RSASSA-PKCS1-v1_5 signatures, 2048-bit, SHA-256",
        .enabled(if: Vectors.available("wycheproof"), vectorsMissing),
        arguments: WycheproofCase.load("rsa_signature_2048_sha256_test.json")
    )
    func rsaPKCS1(vector: WycheproofCase) throws {
        if cryptoKitBackend {
            #expect(throws: CryptoError.unsupportedAlgorithm("")) { try PublicKey(spkiDER: vector.hex("publicKeyDer")) }
            return
        }
        let key = try PublicKey(spkiDER: vector.hex("publicKeyDer"))
        #expect(key.kind == .rsa)
        #expect(
            try RSAPublicKey(pemRepresentation: vector.string("publicKeyPem")).derRepresentation
                == key.derRepresentation)
        let accepted = try key.isValidSignature(
            vector.hex("sig"), for: vector.hex("msg"), algorithm: .sha256WithRSAEncryption)
        expectVerdict(accepted, vector, acceptable: AcceptablePolicy.rsaMissingNullAccepted)
    }

    @Test(
        "RSASSA-PSS signatures, 2048-bit, SHA-256, MGF1-SHA-256, 32-byte salt",
        .enabled(if: Vectors.available("wycheproof"), vectorsMissing),
        arguments: WycheproofCase.load("rsa_pss_2048_sha256_mgf1_32_test.json")
    )
    func rsaPSS(vector: WycheproofCase) throws {
        if cryptoKitBackend {
            #expect(throws: CryptoError.unsupportedAlgorithm("")) {
                try RSAPublicKey(derRepresentation: vector.hex("publicKeyDer"))
            }
            return
        }
        let key = try RSAPublicKey(derRepresentation: vector.hex("publicKeyDer"))
        #expect(key.bitCount == 2048)
        let algorithm = try SignatureAlgorithm.rsaPSS(
            digest: vector.digest(), mgf1Digest: vector.digest("mgfSha"), saltByteCount: vector.int("sLen"))
        expectVerdict(try key.isValidSignature(vector.hex("sig"), for: vector.hex("msg"), algorithm: algorithm), vector)
    }
}

struct WycheproofAEADTests {
    @Test(
        "AES-GCM and ChaCha20-Poly1305 seal and open",
        .enabled(if: Vectors.available("wycheproof"), vectorsMissing),
        arguments: ["aes_gcm_test.json", "chacha20_poly1305_test.json"].flatMap(WycheproofCase.load)
    )
    func aead(vector: WycheproofCase) throws {
        let key = SymmetricKey(bytes: try vector.hex("key"))
        let nonce = try vector.hex("iv")
        let aad = try vector.hex("aad")
        let box = SealedBox(nonce: nonce, ciphertext: try vector.hex("ct"), tag: try vector.hex("tag"))
        let algorithm: AEADAlgorithm
        switch (vector.file, key.byteCount) {
        case ("chacha20_poly1305_test.json", _): algorithm = .chaCha20Poly1305
        case (_, 16): algorithm = .aes128GCM
        case (_, 32): algorithm = .aes256GCM
        default:
            // AES-192 is outside Rampart (AES-128 and AES-256 only): both variants must refuse the 24-byte key.
            for candidate in [AEADAlgorithm.aes128GCM, .aes256GCM] {
                #expect(throws: CryptoError.invalidKey("")) {
                    try AEAD.open(box, using: key, authenticating: aad, algorithm: candidate)
                }
            }
            return
        }
        if algorithm != .chaCha20Poly1305, nonce.count > AEADAlgorithm.maximumGCMNonceByteCount {
            // OpenSSL 3 caps GCM nonces at 128 bytes; Rampart refuses longer ones up front (two `valid` vectors use
            // 257-byte nonces).
            #expect(throws: CryptoError.invalidParameter("")) {
                try AEAD.open(box, using: key, authenticating: aad, algorithm: algorithm)
            }
            return
        }
        if cryptoKitBackend, algorithm != .chaCha20Poly1305, !nonce.isEmpty, nonce.count < AEADAlgorithm.nonceByteCount
        {
            // CryptoKit's AES-GCM nonces are 12 bytes or more: shorter ones are refused on both paths.
            #expect(throws: CryptoError.unsupportedAlgorithm("")) {
                try AEAD.open(box, using: key, authenticating: aad, algorithm: algorithm)
            }
            #expect(throws: CryptoError.unsupportedAlgorithm("")) {
                try AEAD.seal(
                    try vector.hex("msg"), using: key, nonce: nonce, authenticating: aad, algorithm: algorithm)
            }
            return
        }
        switch vector.expected {
        case .valid:
            let sealed = try AEAD.seal(
                vector.hex("msg"), using: key, nonce: nonce, authenticating: aad, algorithm: algorithm)
            #expect(sealed == box)
            #expect(try AEAD.open(box, using: key, authenticating: aad, algorithm: algorithm) == vector.hex("msg"))
        case .invalid, .acceptable:
            let error = #expect(throws: CryptoError.self) {
                try AEAD.open(box, using: key, authenticating: aad, algorithm: algorithm)
            }
            #expect(error?.code == .authenticationFailure || error?.code == .invalidParameter)
        }
    }
}

struct WycheproofMACAndKDFTests {
    @Test(
        "HMAC-SHA-256, full and truncated tags",
        .enabled(if: Vectors.available("wycheproof"), vectorsMissing),
        arguments: WycheproofCase.load("hmac_sha256_test.json")
    )
    func hmac(vector: WycheproofCase) throws {
        let key = SymmetricKey(bytes: try vector.hex("key"))
        let tag = try vector.hex("tag")
        let message = try vector.hex("msg")
        #expect(tag.count * 8 == (try vector.int("tagSize")))
        expectVerdict(HMAC.isValidAuthenticationCode(tag, for: message, key: key), vector)
        let oneShot = HMAC.authenticationCode(for: message, key: key)
        if vector.expected == .valid { #expect(Array(oneShot.prefix(tag.count)) == tag) }
        // A prepared key gives the same code, on its first context and on that context reused.
        let prepared = HMACKey(key)
        #expect(prepared.authenticationCode(for: message) == oneShot)
        #expect(prepared.authenticationCode(for: message) == oneShot)
    }

    @Test(
        "HKDF-SHA-256",
        .enabled(if: Vectors.available("wycheproof"), vectorsMissing),
        arguments: WycheproofCase.load("hkdf_sha256_test.json")
    )
    func hkdf(vector: WycheproofCase) throws {
        let derive = {
            try HKDF.deriveKey(
                inputKeyMaterial: SymmetricKey(bytes: try vector.hex("ikm")), salt: try vector.hex("salt"),
                info: try vector.hex("info"), outputByteCount: try vector.int("size"))
        }
        switch vector.expected {
        case .valid: #expect(try derive() == vector.hex("okm"))
        case .invalid, .acceptable: #expect(throws: CryptoError.invalidParameter("")) { try derive() }
        }
    }

    @Test(
        "PBKDF2-HMAC-SHA-256",
        .enabled(if: Vectors.available("wycheproof"), vectorsMissing),
        arguments: WycheproofCase.load("pbkdf2_hmacsha256_test.json")
    )
    func pbkdf2(vector: WycheproofCase) throws {
        let derive = {
            try PBKDF2.deriveKey(
                password: try vector.hex("password"), salt: try vector.hex("salt"),
                iterationCount: try vector.int("iterationCount"), outputByteCount: try vector.int("dkLen"))
        }
        if cryptoKitBackend {
            // No PBKDF2 on the CryptoKit backend: well-formed requests are refused as unsupported.
            let error = #expect(throws: CryptoError.self) { try derive() }
            if vector.expected == .valid { #expect(error?.code == .unsupportedAlgorithm) }
            return
        }
        switch vector.expected {
        case .valid: #expect(try derive() == vector.hex("dk"))
        case .invalid, .acceptable: #expect(throws: CryptoError.self) { try derive() }
        }
    }
}

struct WycheproofECDHTests {
    /// Wycheproof writes private scalars as signed big-endian integers (a leading 00 when the top bit is set, and
    /// sometimes fewer bytes); Rampart's raw representation is exactly 32 bytes.
    private static func scalar(_ bytes: [UInt8], length: Int) -> [UInt8] {
        let trimmed = Array(bytes.drop { $0 == 0 })
        return [UInt8](repeating: 0, count: max(0, length - trimmed.count)) + trimmed
    }

    @Test(
        "ECDH P-256 with SubjectPublicKeyInfo peer keys",
        .enabled(if: Vectors.available("wycheproof"), vectorsMissing),
        arguments: WycheproofCase.load("ecdh_secp256r1_test.json")
    )
    func ecdh(vector: WycheproofCase) throws {
        let privateKey = try ECPrivateKey(
            rawRepresentation: Self.scalar(vector.hex("private"), length: 32), curve: .p256)
        var shared: [UInt8]?
        if let peer = try? ECPublicKey(derRepresentation: vector.hex("public")),
            let secret = try? privateKey.sharedSecretFromKeyAgreement(with: peer)
        {
            shared = secret.withUnsafeBytes { Array($0) }
        }
        switch vector.expected {
        case .valid: #expect(try shared == vector.hex("shared"))
        case .invalid: #expect(shared == nil)
        case .acceptable:
            // Acceptable here means BER-encoded SPKIs, unnamed (explicit) curves and a compressed point. Rampart
            // rejects BER and explicit parameters; whatever it accepts must give the expected secret.
            if let shared { #expect(try shared == vector.hex("shared")) }
            #expect(
                shared == nil || vector.flags.contains("CompressedPublic"),
                "only the compressed point is an acceptable case Rampart accepts")
        }
    }
}
