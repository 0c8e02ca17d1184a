/// One signing-and-sending at a time per key, first come first served.
///
/// Each assertion's counter is one more than the last, and the server refuses a counter that is not above the last
/// it saw, so a key's requests must be signed and sent in the same order. Every ``AttestedClient`` of the process
/// shares ``shared``, so two clients over one key take turns too.
actor KeyTurns {
    /// The turns of every client in the process.
    static let shared = KeyTurns()

    private var busy: Set<String> = []
    private var waiting: [String: [CheckedContinuation<Void, Never>]] = [:]

    /// Waits until no other request signed with `key` is being signed or sent, then takes the turn.
    func acquire(_ key: String) async {
        guard busy.contains(key) else {
            busy.insert(key)
            return
        }
        await withCheckedContinuation { waiting[key, default: []].append($0) }
    }

    /// Hands `key`'s turn to the next waiting request, if any.
    func release(_ key: String) {
        if var queue = waiting[key], !queue.isEmpty {
            let next = queue.removeFirst()
            waiting[key] = queue.isEmpty ? nil : queue
            next.resume()
        } else {
            busy.remove(key)
        }
    }
}
