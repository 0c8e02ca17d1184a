import Foundation
import RampartAttestService
import RampartCrypto
import TestSupport
import Testing

/// Tools outside Rampart: the `openssl` CLI and PyJWT (PyPI, installed into the schemathesis venv, as
/// scripts/schemathesis.sh does for CI).
enum InteropTools {
    struct Output {
        let status: Int32
        let stdout: [UInt8]
        let stderr: String
        var text: String { String(decoding: stdout, as: UTF8.self) }
    }

    static func run(_ executable: String, _ arguments: [String], input: [UInt8]? = nil) -> Output {
        do {
            let result = try SpawnedProcess.run(executable, arguments, input: input ?? [])
            return Output(status: result.termination.status, stdout: result.stdout, stderr: result.errorText)
        } catch {
            return Output(status: -1, stdout: [], stderr: "\(error)")
        }
    }

    static let openssl: String? = ["/usr/bin/openssl", "/usr/local/bin/openssl"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// The package root (three levels above this file).
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The venv's python with `jwt` and `cryptography` importable, installing them (PyPI) when missing; nil when
    /// PyPI is unreachable.
    static let pyJWTPython: String? = {
        let venv =
            ProcessInfo.processInfo.environment["RAMPART_SCHEMATHESIS_VENV"]
            ?? packageRoot.appendingPathComponent(".build/schemathesis-venv").path
        let python = venv + "/bin/python"
        func importable() -> Bool { run(python, ["-c", "import jwt, cryptography"]).status == 0 }
        if !FileManager.default.isExecutableFile(atPath: python) {
            guard run("/usr/bin/env", ["python3", "-m", "venv", venv]).status == 0 else { return nil }
        }
        if !importable() {
            _ = run(
                "/usr/bin/env",
                ["timeout", "240", venv + "/bin/pip", "install", "--quiet", "pyjwt", "cryptography"])
        }
        return importable() ? python : nil
    }()
}

@Suite(
    .enabled(
        if: InteropTools.pyJWTPython != nil,
        """
        PyJWT is not importable from the schemathesis venv (.build/schemathesis-venv or RAMPART_SCHEMATHESIS_VENV) \
        and `pip install pyjwt cryptography` failed (PyPI unreachable?); run scripts/schemathesis.sh once, or \
        install them into that venv
        """))
struct TokensPyJWTTests {
    typealias F = TokensFixtures
    let python = InteropTools.pyJWTPython ?? ""

    static let verifyScript = """
        import json, sys, jwt
        token, jwks, audience, issuer = sys.argv[1:5]
        keys = {key.key_id: key for key in jwt.PyJWKSet.from_json(jwks).keys}
        key = keys[jwt.get_unverified_header(token)["kid"]]
        claims = jwt.decode(token, key.key, algorithms=["ES256"], audience=audience, issuer=issuer,
                            options={"require": ["exp", "iat", "sub", "jti", "iss", "aud"]})
        print(json.dumps(claims, sort_keys=True))
        """

    @Test("PyJWT accepts Rampart's access tokens against the published JWKS, and refuses an altered one")
    func pyJWTAcceptsAccessTokens() async throws {
        let configuration = TokenConfiguration(audience: "ABCDE12345.com.example.app")
        let issuer = try AccessTokenIssuer(
            configuration: configuration, store: SQLiteAttestationStore(path: temporarySQLitePath()))
        let keyID = Data(SecureRandom.bytes(count: 32)).base64EncodedString()
        let now = Date()
        let issued = try await issuer.issue(subject: "user-7", keyID: keyID, environment: "production", now: now)
        let jwks = String(decoding: try await issuer.jwks(now: now), as: UTF8.self)
        let result = InteropTools.run(
            python, ["-c", Self.verifyScript, issued.token, jwks, configuration.audience, configuration.issuer])
        #expect(result.status == 0, "\(result.stderr)")
        let claims = try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: Any]
        #expect(claims?["sub"] as? String == "user-7")
        #expect(claims?["keyId"] as? String == keyID)
        #expect(claims?["environment"] as? String == "production")

        let parts = issued.token.split(separator: ".").map(String.init)
        let altered = parts[0] + "." + F.base64URL(F.json(["sub": "admin", "iss": "rampart"])) + "." + parts[2]
        let refused = InteropTools.run(
            python, ["-c", Self.verifyScript, altered, jwks, configuration.audience, configuration.issuer])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("InvalidSignatureError"), "\(refused.stderr)")
    }

    static let mintScript = """
        import json, sys, jwt
        from cryptography.hazmat.primitives.asymmetric import ec, rsa
        from jwt.algorithms import ECAlgorithm, RSAAlgorithm
        now, issuer, audience = int(sys.argv[1]), sys.argv[2], sys.argv[3]
        rsa_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        ec_key = ec.generate_private_key(ec.SECP256R1())
        other = ec.generate_private_key(ec.SECP256R1())
        def jwk(algorithm, key, kid, alg):
            value = algorithm.to_jwk(key.public_key(), as_dict=True)
            value.update({"kid": kid, "use": "sig", "alg": alg})
            return value
        claims = {"iss": issuer, "aud": [audience, "other"], "sub": "py-user", "iat": now, "exp": now + 300}
        print(json.dumps({
            "jwks": {"keys": [jwk(RSAAlgorithm, rsa_key, "r1", "RS256"), jwk(ECAlgorithm, ec_key, "e1", "ES256")]},
            "rs256": jwt.encode(claims, rsa_key, algorithm="RS256", headers={"kid": "r1"}),
            "es256": jwt.encode(claims, ec_key, algorithm="ES256", headers={"kid": "e1"}),
            "expired": jwt.encode(dict(claims, iat=now - 7200, exp=now - 3600), ec_key, algorithm="ES256",
                                  headers={"kid": "e1"}),
            "foreign": jwt.encode(claims, other, algorithm="ES256", headers={"kid": "e1"}),
            "hs256": jwt.encode(claims, "a-shared-secret-of-at-least-32-bytes!!", algorithm="HS256",
                                headers={"kid": "e1"}),
        }))
        """

    @Test("RS256 and ES256 session tokens made by PyJWT verify; expired, foreign-key, altered and HS256 ones do not")
    func pyJWTSessionTokens() throws {
        let minted = InteropTools.run(
            python, ["-c", Self.mintScript, "\(Int(F.now.timeIntervalSince1970))", F.issuer, F.audience])
        #expect(minted.status == 0, "\(minted.stderr)")
        let output = try #require(try JSONSerialization.jsonObject(with: Data(minted.stdout)) as? [String: Any])
        let jwks = try JSONSerialization.data(withJSONObject: try #require(output["jwks"]))
        let path = try TokensSessionTests.writeJWKS(Array(jwks))
        let verifier = try SessionTokenVerifier(
            configuration: SessionTokenConfiguration(jwksPath: path, issuer: F.issuer, audience: F.audience))
        func token(_ name: String) -> String { output[name] as? String ?? "" }
        #expect(try verifier.subject(authorization: "Bearer " + token("rs256"), now: F.now) == "py-user")
        #expect(try verifier.subject(authorization: "Bearer " + token("es256"), now: F.now) == "py-user")
        let parts = token("rs256").split(separator: ".").map(String.init)
        let altered = parts[0] + "." + F.base64URL(F.json(F.claims(["sub": "admin"]))) + "." + parts[2]
        for (name, value, expected) in [
            ("expired", token("expired"), "expired 3600 seconds ago"),
            ("foreign", token("foreign"), "signature does not verify"),
            ("altered", altered, "signature does not verify"), ("hs256", token("hs256"), "unsigned or HMAC"),
        ] {
            let error = #expect(throws: AttestServiceError.self, "\(name)") {
                try verifier.subject(authorization: "Bearer " + value, now: F.now)
            }
            #expect(error?.code == .invalidSession)
            #expect(error?.reason.contains(expected) == true, "\(name): \(error?.reason ?? "no error")")
        }
    }
}

@Suite(.enabled(if: InteropTools.openssl != nil, "the openssl CLI is not installed"))
struct TokensOpenSSLTests {
    typealias F = TokensFixtures
    let openssl = InteropTools.openssl ?? ""

    func opensslOK(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) -> [UInt8] {
        let result = InteropTools.run(openssl, arguments)
        #expect(result.status == 0, "\(arguments): \(result.stderr)", sourceLocation: sourceLocation)
        return result.stdout
    }

    /// A session JWT signed by `openssl dgst -sign` with the key in `keyPath`.
    func sign(
        header: [String: any Sendable], claims: [String: any Sendable], keyPath: String, ecdsa: Bool
    ) throws
        -> String
    {
        let input = F.base64URL(F.json(header)) + "." + F.base64URL(F.json(claims))
        let inputPath = ScratchDirectory.uniquePath("input.txt")
        try Data(input.utf8).write(to: URL(fileURLWithPath: inputPath))
        var signature = opensslOK(["dgst", "-sha256", "-sign", keyPath, inputPath])
        if ecdsa {
            // JWS wants r ‖ s, 32 bytes each; openssl writes DER SEQUENCE { INTEGER r, INTEGER s }.
            var outer = TLVReader(bytes: signature)
            var integers = TLVReader(bytes: outer.next())
            let halves = [integers.next(), integers.next()].map { integer in
                let magnitude = Array(integer.drop { $0 == 0 })
                return [UInt8](repeating: 0, count: max(0, 32 - magnitude.count)) + magnitude
            }
            signature = halves[0] + halves[1]
        }
        return input + "." + F.base64URL(signature)
    }

    @Test("RS256 and ES256 session tokens signed by the openssl CLI verify; tampered ones do not")
    func opensslSessionTokens() throws {
        let rsaPath = ScratchDirectory.uniquePath("rsa.pem")
        let ecPath = ScratchDirectory.uniquePath("ec.pem")
        _ = opensslOK(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", rsaPath])
        _ = opensslOK(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", ecPath])
        let modulusLine = String(decoding: opensslOK(["rsa", "-in", rsaPath, "-noout", "-modulus"]), as: UTF8.self)
        let hex = Array(modulusLine.trimmingCharacters(in: .whitespacesAndNewlines).dropFirst("Modulus=".count))
        let modulus = stride(from: 0, to: hex.count - 1, by: 2).compactMap {
            UInt8(String(hex[$0...$0 + 1]), radix: 16)
        }
        let spki = opensslOK(["pkey", "-in", ecPath, "-pubout", "-outform", "DER"])
        let point = Array(spki.suffix(65))
        let jwks = F.jwks([
            ["kty": "RSA", "kid": "r1", "n": F.base64URL(modulus.drop { $0 == 0 }), "e": "AQAB"],
            [
                "kty": "EC", "kid": "e1", "crv": "P-256", "x": F.base64URL(point[1..<33]),
                "y": F.base64URL(point[33...]),
            ],
        ])
        let verifier = try SessionTokenVerifier(
            configuration: SessionTokenConfiguration(
                jwksPath: try TokensSessionTests.writeJWKS(jwks), issuer: F.issuer, audience: F.audience))
        let claims = F.claims(["sub": "openssl-user"])
        let rs256 = try sign(header: ["alg": "RS256", "kid": "r1"], claims: claims, keyPath: rsaPath, ecdsa: false)
        let es256 = try sign(header: ["alg": "ES256", "kid": "e1"], claims: claims, keyPath: ecPath, ecdsa: true)
        #expect(try verifier.subject(authorization: "Bearer " + rs256, now: F.now) == "openssl-user")
        #expect(try verifier.subject(authorization: "Bearer " + es256, now: F.now) == "openssl-user")
        let expired = try sign(
            header: ["alg": "ES256", "kid": "e1"], claims: F.claims(["exp": F.now.timeIntervalSince1970 - 120]),
            keyPath: ecPath, ecdsa: true)
        let wrongKey = try sign(header: ["alg": "ES256", "kid": "e1"], claims: claims, keyPath: rsaPath, ecdsa: false)
        let esParts = es256.split(separator: ".").map(String.init)
        let altered = esParts[0] + "." + F.base64URL(F.json(F.claims(["sub": "root"]))) + "." + esParts[2]
        for (value, expected) in [
            (expired, "expired"), (wrongKey, "signature does not verify"), (altered, "signature does not verify"),
        ] {
            let error = #expect(throws: AttestServiceError.self) {
                try verifier.subject(authorization: "Bearer " + value, now: F.now)
            }
            #expect(error?.code == .invalidSession)
            #expect(error?.reason.contains(expected) == true, "\(error?.reason ?? "no error")")
        }
    }
}
