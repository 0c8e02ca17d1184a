import Foundation
@_spi(Testing) import RampartAppAttest
import RampartCrypto
import RampartX509
import Testing

/// The simulator's objects verify, and each attestation check, fed a validly signed object with one field wrong,
/// fails with its own reason.
struct SimulatorAttestationTests {
    static let teamID = "ABCDE12345"
    static let bundleID = "com.example.app"
    static let challengeHash = SHA256.hash(Array("one-time challenge".utf8))

    let simulator: AppAttestSimulator
    let device: SimulatedDevice
    let verifier: AppAttestVerifier

    init() throws {
        simulator = try AppAttestSimulator()
        device = SimulatedDevice(teamID: Self.teamID, bundleID: Self.bundleID, environment: .development)
        verifier = try AppAttestVerifier(
            teamID: Self.teamID,
            bundleID: Self.bundleID,
            environment: .development,
            trustAnchor: simulator.rootCertificate
        )
    }

    func verdict(_ tampering: AttestationTampering, keyID: [UInt8]? = nil) throws -> AttestationVerdict {
        let object = try simulator.attestKey(of: device, clientDataHash: Self.challengeHash, tampering: tampering)
        return try verifier.verifyAttestation(object, keyID: keyID ?? device.keyID, clientDataHash: Self.challengeHash)
    }

    @Test("a simulated attestation verifies, in both environments, and its receipt verifies under the simulator's root")
    func valid() throws {
        let object = try simulator.attestKey(of: device, clientDataHash: Self.challengeHash)
        let result = try #require(
            try verifier.verifyAttestation(object, keyID: device.keyID, clientDataHash: Self.challengeHash).attestation
        )
        #expect(result.publicKeyX963 == device.publicKeyX963)
        #expect(result.environment == .development)
        let receipt = try #require(
            try ReceiptVerifier(trustAnchor: simulator.rootCertificate).verify(result.receipt).receipt)
        #expect(receipt.appID == "\(Self.teamID).\(Self.bundleID)")
        #expect(receipt.type == "ATTEST")
        #expect(receipt.environment == "sandbox")
        #expect(receipt.clientHash == Self.challengeHash)
        #expect(receipt.attestedCertificate == result.certificateChain.first)
        #expect(try ReceiptVerifier().verify(result.receipt).failure?.reason == .receiptChainUntrusted)

        let productionDevice = SimulatedDevice(teamID: Self.teamID, bundleID: Self.bundleID, environment: .production)
        let productionObject = try simulator.attestKey(of: productionDevice, clientDataHash: Self.challengeHash)
        let production = try AppAttestVerifier(
            teamID: Self.teamID,
            bundleID: Self.bundleID,
            environment: .production,
            trustAnchor: simulator.rootCertificate
        )
        #expect(
            try production.verifyAttestation(
                productionObject,
                keyID: productionDevice.keyID,
                clientDataHash: Self.challengeHash
            ).attestation?.environment == .production
        )
        #expect(
            try production.verifyAttestation(object, keyID: device.keyID, clientDataHash: Self.challengeHash)
                .failure?.reason == .environmentMismatch
        )
    }

    @Test("an iOS 27 extension map is accepted with the ED flag clear or set, and exposed")
    func extensions() throws {
        for flagged in [false, true] {
            var tampering = AttestationTampering()
            tampering.extensions = [
                ("apple_bundle_version_01", .textString("42")),
                ("apple_validation_category_01", .byteString([3, 0, 0, 0])),
            ]
            tampering.flagExtensions = flagged
            let result = try #require(try verdict(tampering).attestation)
            #expect(result.extensions?.bundleVersion == "42")
            #expect(result.extensions?.validationCategory == [3, 0, 0, 0])
        }
    }

    struct Case: CustomTestStringConvertible, Sendable {
        let reason: AppAttestFailure.Reason
        let tampering: AttestationTampering
        var testDescription: String { reason.description }
    }

    static let cases: [Case] = {
        func make(_ reason: AppAttestFailure.Reason, _ change: (inout AttestationTampering) -> Void) -> Case {
            var tampering = AttestationTampering()
            change(&tampering)
            return Case(reason: reason, tampering: tampering)
        }
        let now = Date()
        return [
            make(.rpIDMismatch) { $0.rpIDHash = SHA256.hash(Array("ABCDE12345.com.example.other".utf8)) },
            make(.counterNotZero) { $0.counter = 1 },
            make(.environmentMismatch) { $0.aaguid = AppAttestEnvironment.production.aaguid },
            make(.unknownAAGUID) { $0.aaguid = [UInt8](repeating: 0, count: 16) },
            make(.credentialIDMismatch) { $0.credentialID = [UInt8](repeating: 9, count: 32) },
            make(.publicKeyMismatch) {
                $0.authenticatorDataKey = ECPrivateKey(curve: .p256).publicKey.x963Representation
            },
            make(.nonceMissing) { $0.omitNonceExtension = true },
            make(.nonceMismatch) { $0.nonce = [UInt8](repeating: 1, count: 32) },
            make(.certificateExpired) {
                $0.notBefore = now.addingTimeInterval(-3 * 86_400)
                $0.notAfter = now.addingTimeInterval(-86_400)
            },
            make(.certificateNotYetValid) {
                $0.notBefore = now.addingTimeInterval(86_400)
                $0.notAfter = now.addingTimeInterval(3 * 86_400)
            },
        ]
    }()

    @Test("each attestation check fails with its own reason", arguments: cases)
    func reasons(_ testCase: Case) throws {
        let failure = try #require(try verdict(testCase.tampering).failure)
        #expect(failure.reason == testCase.reason)
        #expect(!failure.message.isEmpty)
    }

    @Test("a wrong key id fails with keyIDMismatch")
    func keyID() throws {
        #expect(
            try verdict(AttestationTampering(), keyID: [UInt8](repeating: 7, count: 32)).failure?.reason
                == .keyIDMismatch)
    }

    @Test("a chain to another root fails with certificateChainUntrusted; a non-CA issuer with certificateNotAuthority")
    func chain() throws {
        let other = try AppAttestSimulator()
        let object = try other.attestKey(of: device, clientDataHash: Self.challengeHash)
        #expect(
            try verifier.verifyAttestation(object, keyID: device.keyID, clientDataHash: Self.challengeHash).failure?
                .reason == .certificateChainUntrusted
        )

        // An issuer that is a valid leaf of the simulator's root, but not a CA.
        let rootKey = ECPrivateKey(curve: .p384)
        let rootName = try DistinguishedName(attributes: [.init(.NameAttribute.commonName, "Test Root")])
        let start = Date().addingTimeInterval(-86_400)
        var root = CertificateBuilder(
            subject: rootName,
            issuer: rootName,
            publicKey: rootKey.publicKey,
            notBefore: start,
            notAfter: start.addingTimeInterval(30 * 86_400)
        )
        root.basicConstraints = BasicConstraints(isCA: true)
        root.keyUsage = [.keyCertSign]
        let rootCertificate = try root.sign(with: rootKey)
        let issuerKey = ECPrivateKey(curve: .p384)
        var issuer = CertificateBuilder(
            subject: try DistinguishedName(attributes: [.init(.NameAttribute.commonName, "Not A CA")]),
            issuer: rootName,
            publicKey: issuerKey.publicKey,
            notBefore: start,
            notAfter: start.addingTimeInterval(30 * 86_400)
        )
        issuer.basicConstraints = BasicConstraints(isCA: false)
        var tampering = AttestationTampering()
        tampering.issuer = (try issuer.sign(with: rootKey), issuerKey)
        let notCA = try simulator.attestKey(of: device, clientDataHash: Self.challengeHash, tampering: tampering)
        let strict = try AppAttestVerifier(
            teamID: Self.teamID,
            bundleID: Self.bundleID,
            environment: .development,
            trustAnchor: rootCertificate
        )
        #expect(
            try strict.verifyAttestation(notCA, keyID: device.keyID, clientDataHash: Self.challengeHash).failure?.reason
                == .certificateNotAuthority
        )
    }

    @Test("an unknown critical extension is refused; the anchor sent at the end of x5c is tolerated")
    func extensionsAndAnchor() throws {
        var critical = AttestationTampering()
        critical.extraCredentialExtensions = [
            Certificate.Extension(oid: "1.2.3.4.5", critical: true, value: [0x05, 0x00])
        ]
        #expect(try verdict(critical).failure?.reason == .certificateChainUntrusted)
        var nonCritical = AttestationTampering()
        nonCritical.extraCredentialExtensions = [
            Certificate.Extension(oid: "1.2.3.4.5", critical: false, value: [0x05, 0x00])
        ]
        #expect(try verdict(nonCritical).attestation != nil)
        var withRoot = AttestationTampering()
        withRoot.appendRootToChain = true
        #expect(try verdict(withRoot).attestation != nil)
    }

    @Test("malformed objects throw with their codes")
    func malformed() throws {
        var format = AttestationTampering()
        format.format = "packed"
        #expect(throws: AppAttestError.unsupportedFormat("")) { try verdict(format) }

        var badNonce = AttestationTampering()
        badNonce.nonceExtensionValue = [0x30, 0x03, 0x04, 0x01, 0x00]
        #expect(throws: AppAttestError.malformedCertificate("")) { try verdict(badNonce) }

        let valid = try CBORDecoder().decode(try simulator.attestKey(of: device, clientDataHash: Self.challengeHash))
        func object(_ transform: ([CBORMapEntry]) -> [CBORMapEntry]) -> [UInt8] {
            CBORValue.map(transform(valid.mapEntries ?? [])).encoded
        }
        func statement(_ entries: [CBORMapEntry]) -> [UInt8] {
            object { $0.map { $0.key == .textString("attStmt") ? CBORMapEntry($0.key, .map(entries)) : $0 } }
        }
        let receipt = CBORMapEntry(.textString("receipt"), .byteString([1]))
        let cases: [([UInt8], AppAttestError.Code)] = [
            (CBORValue.array([]).encoded, .malformedAttestationObject),
            (object { Array($0.dropLast()) }, .malformedAttestationObject),
            (object { $0 + [CBORMapEntry(.textString("extra"), .null)] }, .malformedAttestationObject),
            (
                object { $0.map { $0.key == .textString("fmt") ? CBORMapEntry($0.key, .unsignedInteger(1)) : $0 } },
                .malformedAttestationObject
            ),
            (
                object { $0.map { $0.key == .textString("authData") ? CBORMapEntry($0.key, .textString("x")) : $0 } },
                .malformedAttestationObject
            ),
            (
                object { $0.map { $0.key == .textString("authData") ? CBORMapEntry($0.key, .byteString([1])) : $0 } },
                .malformedAuthenticatorData
            ),
            (statement([CBORMapEntry(.textString("x5c"), .array([])), receipt]), .malformedAttestationObject),
            (statement([CBORMapEntry(.textString("x5c"), .byteString([1])), receipt]), .malformedAttestationObject),
            (
                statement([CBORMapEntry(.textString("x5c"), .array([.textString("x")])), receipt]),
                .malformedAttestationObject
            ),
            (
                statement([
                    CBORMapEntry(.textString("x5c"), .array(Array(repeating: .byteString([1]), count: 5))), receipt,
                ]),
                .malformedAttestationObject
            ),
            (
                statement([CBORMapEntry(.textString("x5c"), .array([.byteString([0x30, 0x00])])), receipt]),
                .malformedCertificate
            ),
            (statement([CBORMapEntry(.textString("x5c"), .array([.byteString([1])]))]), .malformedAttestationObject),
            (
                statement([
                    CBORMapEntry(.textString("x5c"), .array([.byteString([1])])),
                    CBORMapEntry(.textString("receipt"), .null),
                ]),
                .malformedAttestationObject
            ),
        ]
        for (input, code) in cases {
            #expect(throws: AppAttestError(code: code)) {
                try verifier.verifyAttestation(input, keyID: device.keyID, clientDataHash: Self.challengeHash)
            }
        }
        let object = try simulator.attestKey(of: device, clientDataHash: Self.challengeHash)
        #expect(throws: AppAttestError.invalidArgument("")) {
            try verifier.verifyAttestation(object, keyID: [1, 2], clientDataHash: Self.challengeHash)
        }
        #expect(throws: AppAttestError.invalidArgument("")) {
            try verifier.verifyAttestation(object, keyID: device.keyID, clientDataHash: [])
        }
    }

    @Test("a verifier refuses unusable team and bundle ids")
    func configuration() {
        for (team, bundle) in [
            ("", "com.example"), ("AB.CD", "com.example"), ("ABCDE12345", ""), ("ABCDE12345", "a b"),
        ] {
            #expect(throws: AppAttestError.invalidArgument("")) {
                try AppAttestVerifier(teamID: team, bundleID: bundle, environment: .production)
            }
        }
    }
}
