import Foundation

extension Date {
    /// Whether a rate-limited reload may run at this time: none ran yet (`last` is nil), or at least `interval`
    /// separates it from the last one, either way, so that a clock stepped back does not stop reloads until it
    /// catches up.
    ///
    /// - Parameters:
    ///   - interval: The shortest time between reloads, in seconds.
    ///   - last: When the last reload ran, if one did.
    /// - Returns: Whether a reload is due.
    func isReloadDue(every interval: TimeInterval, since last: Date?) -> Bool {
        guard let last else { return true }
        return abs(timeIntervalSince(last)) >= interval
    }
}
