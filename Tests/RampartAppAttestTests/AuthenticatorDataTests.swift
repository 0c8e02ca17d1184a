import Foundation
import RampartAppAttest
import TestSupport
import Testing

struct AuthenticatorDataTests {
    @Test(
        "every real attestation's authenticator data parses with the expected fields",
        .enabled(if: Vectors.available, "needs ../shared/vectors (set RAMPART_VECTORS)"),
        arguments: AppAttestVector.withAttestation
    )
    func realAttestations(_ vector: AppAttestVector) throws {
        let attestation = try #require(vector.attestation)
        let object = try AttestationObject(bytes: bytes(attestation.attestation_object_base64))
        let authData = object.authenticatorData
        #expect(authData.rawRepresentation.count == attestation.expected.authdata_length)
        #expect(String(format: "0x%02x", authData.flags.rawValue) == attestation.expected.authdata_flags)
        #expect(authData.signCount == 0)
        let credential = try #require(authData.attestedCredentialData)
        #expect(Hex.encode(credential.aaguid) == attestation.expected.aaguid_hex)
        #expect(credential.credentialID == bytes(attestation.key_id_base64))
        #expect(credential.publicKeyX963 == bytes(attestation.expected.public_key_x963_base64))
        if let expected = attestation.expected.authdata_extensions {
            let extensions = try #require(authData.extensions)
            #expect(extensions.bundleVersion == expected["apple_bundle_version_01"])
            #expect(
                extensions.validationCategory.map { Data($0).base64EncodedString() }
                    == expected["apple_validation_category_01"])
        } else {
            #expect(authData.extensions == nil)
        }
    }

    @Test(
        "every real assertion's authenticator data parses, tolerating AT without credential data",
        .enabled(if: Vectors.available, "needs ../shared/vectors (set RAMPART_VECTORS)"),
        arguments: AppAttestVector.withAssertions
    )
    func realAssertions(_ vector: AppAttestVector) throws {
        for assertionCase in vector.assertions {
            let assertion = try Assertion(bytes: bytes(assertionCase.assertion_base64))
            let authData = assertion.authenticatorData
            #expect(authData.rawRepresentation.count == assertionCase.expected.authdata_length)
            #expect(String(format: "0x%02x", authData.flags.rawValue) == assertionCase.expected.authdata_flags)
            #expect(authData.flags.contains(.attestedCredentialData))
            #expect(authData.attestedCredentialData == nil)
            #expect(authData.signCount == assertionCase.expected.sign_count)
        }
    }

    /// A minimal attestation authenticator data: 37 fixed bytes, aaguid, a 32-byte id and a COSE key.
    static func attestationAuthData(flags: UInt8 = 0x40, credentialIDLength: [UInt8] = [0, 32]) -> [UInt8] {
        var out = [UInt8](repeating: 0xAA, count: 32) + [flags, 0, 0, 0, 0]
        out += AppAttestEnvironment.development.aaguid + credentialIDLength + [UInt8](repeating: 7, count: 32)
        out +=
            CBORValue.map([
                CBORMapEntry(.unsignedInteger(1), .unsignedInteger(2)),
                CBORMapEntry(.unsignedInteger(3), .negativeInteger(6)),
                CBORMapEntry(.negativeInteger(0), .unsignedInteger(1)),
                CBORMapEntry(.negativeInteger(1), .byteString([UInt8](repeating: 1, count: 32))),
                CBORMapEntry(.negativeInteger(2), .byteString([UInt8](repeating: 2, count: 32))),
            ]).encoded
        return out
    }

    static let extensionMap = CBORValue.map([
        CBORMapEntry(.textString("apple_bundle_version_01"), .textString("7"))
    ]).encoded

    @Test("a synthetic attestation authenticator data parses; extensions are read even with ED clear")
    func synthetic() throws {
        let plain = try AuthenticatorData(rawRepresentation: Self.attestationAuthData(), context: .attestation)
        #expect(plain.attestedCredentialData?.publicKeyX963.count == 65)
        let quirk = try AuthenticatorData(
            rawRepresentation: Self.attestationAuthData() + Self.extensionMap,
            context: .attestation
        )
        #expect(quirk.extensions?.bundleVersion == "7")
        let assertion = try AuthenticatorData(
            rawRepresentation: [UInt8](repeating: 0, count: 32) + [0xC0, 0, 0, 0, 9] + Self.extensionMap,
            context: .assertion
        )
        #expect(assertion.signCount == 9)
        #expect(assertion.extensions?["apple_bundle_version_01"] == .textString("7"))
    }

    struct Rejection: CustomTestStringConvertible, Sendable {
        let name: String
        let bytes: [UInt8]
        let context: AuthenticatorData.Context
        let code: AppAttestError.Code
        var testDescription: String { name }
    }

    static let rejections: [Rejection] = {
        let base = attestationAuthData()
        let coseStart = 37 + 16 + 2 + 32
        var badKty = base
        badKty[coseStart + 2] = 0x03
        return [
            Rejection(
                name: "shorter than 37 bytes", bytes: [0], context: .assertion, code: .malformedAuthenticatorData),
            Rejection(
                name: "larger than the limit",
                bytes: [UInt8](repeating: 0, count: AuthenticatorData.maximumByteCount + 1),
                context: .assertion,
                code: .limitExceeded
            ),
            Rejection(
                name: "attestation with AT clear",
                bytes: attestationAuthData(flags: 0x00),
                context: .attestation,
                code: .malformedAuthenticatorData
            ),
            Rejection(
                name: "truncated before the credential id length",
                bytes: Array(base.prefix(40)),
                context: .attestation,
                code: .malformedAuthenticatorData
            ),
            Rejection(
                name: "zero-length credential id",
                bytes: attestationAuthData(credentialIDLength: [0, 0]),
                context: .attestation,
                code: .malformedAuthenticatorData
            ),
            Rejection(
                name: "credential id longer than the data",
                bytes: Array(attestationAuthData(credentialIDLength: [0x03, 0xFF]).prefix(100)),
                context: .attestation,
                code: .malformedAuthenticatorData
            ),
            Rejection(
                name: "credential id longer than 1023",
                bytes: attestationAuthData(credentialIDLength: [0x04, 0x00]),
                context: .attestation,
                code: .malformedAuthenticatorData
            ),
            Rejection(
                name: "truncated COSE key",
                bytes: Array(base.dropLast(3)),
                context: .attestation,
                code: .malformedAuthenticatorData
            ),
            Rejection(
                name: "COSE key of another type",
                bytes: badKty,
                context: .attestation,
                code: .malformedAuthenticatorData
            ),
            Rejection(
                name: "COSE key that is not a map",
                bytes: Array(base.prefix(coseStart)) + [0x01],
                context: .attestation,
                code: .malformedAuthenticatorData
            ),
            Rejection(
                name: "trailing byte after the extension map",
                bytes: base + extensionMap + [0],
                context: .attestation,
                code: .malformedAuthenticatorData
            ),
            Rejection(
                name: "trailing byte that is not a map",
                bytes: base + [0],
                context: .attestation,
                code: .malformedAuthenticatorData
            ),
            Rejection(
                name: "extension key that is not text",
                bytes: base + [0xA1, 0x01, 0x02],
                context: .attestation,
                code: .malformedAuthenticatorData
            ),
            Rejection(
                name: "ED set without extensions",
                bytes: [UInt8](repeating: 0, count: 32) + [0x80, 0, 0, 0, 1],
                context: .assertion,
                code: .malformedAuthenticatorData
            ),
        ]
    }()

    @Test("malformed authenticator data is rejected with its code", arguments: rejections)
    func rejects(_ rejection: Rejection) {
        #expect(throws: AppAttestError(code: rejection.code)) {
            try AuthenticatorData(rawRepresentation: rejection.bytes, context: rejection.context)
        }
    }

    @Test("the AAGUIDs name their environments")
    func environments() {
        #expect(AppAttestEnvironment(aaguid: Array("appattestdevelop".utf8)) == .development)
        #expect(AppAttestEnvironment(aaguid: Array("appattest".utf8) + [0, 0, 0, 0, 0, 0, 0]) == .production)
        #expect(AppAttestEnvironment(aaguid: [UInt8](repeating: 0, count: 16)) == nil)
    }
}
