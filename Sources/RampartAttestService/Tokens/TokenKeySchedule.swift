import Foundation

/// When each access-token signing key is made, signs, is published and is deleted (see <doc:Tokens>).
///
/// Time is cut into rotation periods of ``TokenConfiguration/rotationSeconds`` R; period (slot) N is
/// `[N·R, (N+1)·R)`, and the key stored with slot N signs during it and at no other time. With W =
/// ``TokenConfiguration/prePublicationSeconds``, L the lifetime and E the leeway, key N is
///
/// - made at the first use (issuing or serving the JWKS) at or after `N·R − W`, the pre-publication window at the
///   end of period N−1, so that JWKS caches hold it before it signs; after an idle spell, at the first use in N;
/// - published in the JWKS while `N·R − W ≤ now < (N+1)·R + L + E`: from the start of the pre-publication window
///   until the end of its signing period plus the life of the last token it can sign and the leeway, after which no
///   token it signed can verify;
/// - deleted from the store by the first key-making transaction at or after the end of its publication, so the store
///   and ``isPublished(_:at:)`` agree exactly.
///
/// A key whose slot does not match its creation time under the current R (neither the period it was made in nor the
/// next) was made under another `rotationSeconds`, so its slot number names a different period. Such a key is treated
/// as signing for at most R + W after its creation, the longest a key made now could: it is published from its
/// creation until then plus L + E. Tokens it signed later than that (only possible when the setting was lowered) are
/// refused, and apps fetch new ones.
struct TokenKeySchedule {
    /// The rotation period R, in seconds.
    let rotation: Double
    /// The pre-publication window W, in seconds.
    let prePublication: Double
    /// The lifetime plus the leeway, L + E, in seconds: how long after its signing period a key stays published.
    let afterSigning: Double

    init(_ configuration: TokenConfiguration) {
        rotation = Double(configuration.rotationSeconds)
        prePublication = Double(configuration.prePublicationSeconds)
        afterSigning = Double(configuration.lifetimeSeconds + configuration.leewaySeconds)
    }

    /// The rotation period (slot) that `date` falls in.
    func slot(at date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 / rotation).rounded(.down))
    }

    /// Whether `date` is in the pre-publication window before the next period, when its key must exist.
    func isNextKeyDue(at date: Date) -> Bool {
        date.timeIntervalSince1970 >= (Double(slot(at: date)) + 1) * rotation - prePublication
    }

    /// Whether `record`'s slot is the period it was made in or the next one (made ahead, in the pre-publication
    /// window): whether it was made under the current rotation period.
    func isMadeUnderThisRotation(_ record: TokenSigningKeyRecord) -> Bool {
        let madeIn = slot(at: record.createdAt)
        return record.slot == madeIn || record.slot == madeIn + 1
    }

    /// The times, in seconds since 1970, during which `record` is in the JWKS: from W before its signing period until
    /// L + E after it; for a key made under another rotation period, from its creation until R + W + L + E later.
    /// Computed in `Double`, so no stored slot traps.
    func publication(of record: TokenSigningKeyRecord) -> Range<Double> {
        guard isMadeUnderThisRotation(record) else {
            let created = record.createdAt.timeIntervalSince1970
            return created..<(created + rotation + prePublication + afterSigning)
        }
        let signingStart = Double(record.slot) * rotation
        return (signingStart - prePublication)..<(signingStart + rotation + afterSigning)
    }

    /// Whether `record` is in the JWKS, and accepted when verifying, at `date`.
    func isPublished(_ record: TokenSigningKeyRecord, at date: Date) -> Bool {
        publication(of: record).contains(date.timeIntervalSince1970)
    }

    /// Whether no token `record` signed can verify any more at `date`: the store deletes it.
    func isRetired(_ record: TokenSigningKeyRecord, at date: Date) -> Bool {
        date.timeIntervalSince1970 >= publication(of: record).upperBound
    }
}

extension TokenKeySchedule: Sendable {}
