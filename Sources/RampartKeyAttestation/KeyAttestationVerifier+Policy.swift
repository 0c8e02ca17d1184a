import Foundation
import RampartCrypto

extension KeyAttestationVerifier {
    /// The policy's checks, over a KeyDescription from a verified chain. Values the policy relies on come from the
    /// hardware-enforced list; attestationApplicationId is the OS's (software-enforced) by design.
    func checkPolicy(_ description: KeyDescription, challenge: [UInt8]) -> KeyAttestationFailure? {
        guard ConstantTime.isEqual(description.attestationChallenge, challenge) else {
            let (got, expected) = (description.attestationChallenge.count, challenge.count)
            return KeyAttestationFailure(
                .challengeMismatch,
                message: "the attestation challenge (\(got) bytes) is not the challenge issued (\(expected) bytes); "
                    + "pass the server's challenge bytes unchanged to setAttestationChallenge, and issue a new one "
                    + "for each key")
        }
        let levels = [description.attestationSecurityLevel, description.keyMintSecurityLevel]
        if levels.contains(.software) {
            let (attestation, keyMint) = (levels[0].name, levels[1].name)
            return KeyAttestationFailure(
                .softwareKey,
                message: "the attestation security level is \(attestation) and the key's \(keyMint); a SOFTWARE "
                    + "level means no secure hardware holds or vouches for the key: refuse it (emulators and "
                    + "rooted devices produce these)")
        }
        let minimum = policy.minimumSecurityLevel.securityLevel
        if let lowest = levels.min(), lowest < minimum {
            return KeyAttestationFailure(
                .securityLevelTooLow,
                message: "the key's security level is \(lowest.name), below the policy's \(minimum.name); generate it "
                    + "with setIsStrongBoxBacked(true) on a device with StrongBox, or lower minimumSecurityLevel")
        }
        let hardware = description.hardwareEnforced
        guard let root = hardware.rootOfTrust else {
            return KeyAttestationFailure(
                .rootOfTrustMissing,
                message: "the hardware-enforced list has no RootOfTrust, so the boot state is unknown; refuse the key")
        }
        if !policy.allowUnverifiedBoot {
            guard root.verifiedBootState == .verified else {
                let state = root.verifiedBootState.name
                return KeyAttestationFailure(
                    .bootStateUnverified,
                    message: "the verified boot state is \(state), expected VERIFIED: the device runs an OS its "
                        + "maker did not sign; refuse the key, or set allowUnverifiedBoot for test devices")
            }
            guard root.deviceLocked else {
                return KeyAttestationFailure(
                    .deviceUnlocked,
                    message: "the bootloader is unlocked, expected locked: anything may run on the device; refuse "
                        + "the key, or set allowUnverifiedBoot for test devices")
            }
        }
        guard hardware.origin == .generated else {
            let origin = hardware.origin?.name ?? "absent"
            return KeyAttestationFailure(
                .originNotGenerated,
                message: "the key's hardware-enforced origin is \(origin), expected GENERATED: the private key "
                    + "existed outside the secure hardware; generate it on the device with KeyPairGenerator")
        }
        guard hardware.purposes?.contains(KeyPurpose.sign) == true else {
            return KeyAttestationFailure(
                .purposeNotSign,
                message: "the key's hardware-enforced purposes do not include SIGN; generate it with "
                    + "KeyProperties.PURPOSE_SIGN")
        }
        if let minimumPatch = policy.minimumOSPatchLevel {
            // The OS patch level is YYYYMM; take the month of a YYYYMMDD value too.
            let patch = hardware.osPatchLevel.map { $0 > 999_999 ? $0 / 100 : $0 }
            guard let patch, patch >= minimumPatch else {
                let found = patch.map(String.init) ?? "absent"
                return KeyAttestationFailure(
                    .patchLevelTooOld,
                    message: "the device's OS patch level is \(found), older than the policy's \(minimumPatch); "
                        + "the user must install the security updates (or lower minimumOSPatchLevel)")
            }
        }
        return checkApplication(description)
    }

    /// The package and the signing digests, compared as bytes with the policy's.
    private func checkApplication(_ description: KeyDescription) -> KeyAttestationFailure? {
        guard !policy.packageNames.isEmpty || !policy.signingCertificateDigests.isEmpty else { return nil }
        guard let application = description.attestationApplicationID else {
            return KeyAttestationFailure(
                .applicationIDMissing,
                message: "the KeyDescription has no attestationApplicationId, so the app that made the key is "
                    + "unknown; refuse the key (Android adds it for every app-generated key)")
        }
        if !policy.packageNames.isEmpty {
            let allowed = Set(policy.packageNames.map { Array($0.utf8) })
            guard application.packages.contains(where: { allowed.contains(Array($0.name.utf8)) }) else {
                let count = application.packages.count
                return KeyAttestationFailure(
                    .packageMismatch,
                    message: "none of the \(count) package(s) in attestationApplicationId is one of "
                        + "\(policy.packageNames.joined(separator: ", ")); another app made this key")
            }
        }
        if !policy.signingCertificateDigests.isEmpty {
            let allowed = Set(policy.signingCertificateDigests)
            guard application.signatureDigests.contains(where: { allowed.contains($0) }) else {
                let count = application.signatureDigests.count
                return KeyAttestationFailure(
                    .signingDigestMismatch,
                    message: "none of the \(count) signing-certificate digest(s) in attestationApplicationId is one "
                        + "the policy lists; the app was signed by someone else (a repackaged app), or add your "
                        + "signing certificate's SHA-256 to signingCertificateDigests")
            }
        }
        return nil
    }
}
