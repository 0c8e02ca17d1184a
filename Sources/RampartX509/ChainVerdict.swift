/// The result of a chain evaluation: the built path, or why the chain must be refused.
public enum ChainVerdict: Hashable, Sendable {
    /// The chain is trusted; `path` runs from the leaf (index 0) to the trust anchor (last).
    case trusted(path: [Certificate])
    /// The chain must be refused, for the reason given.
    case untrusted(ChainFailure)

    /// Whether the chain is trusted.
    public var isTrusted: Bool {
        if case .trusted = self { return true }
        return false
    }

    /// The verified path (leaf first, anchor last), or nil when untrusted.
    public var path: [Certificate]? {
        if case .trusted(let path) = self { return path }
        return nil
    }

    /// The failure, or nil when trusted.
    public var failure: ChainFailure? {
        if case .untrusted(let failure) = self { return failure }
        return nil
    }
}
