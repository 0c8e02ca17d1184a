import Foundation

extension ServiceConfiguration {
    /// The `"challenges"` section of the configuration: `{"sealingKeys": ["<base64>", …]}`.
    ///
    /// The keys seal challenges (``ChallengeSealingKeys``): the first seals, every listed one opens. They may come
    /// from the environment instead (`RAMPART_CHALLENGE_KEYS`, comma-separated), not from both. With neither, the
    /// service uses the key its store keeps (generated on first use, shared by every instance on the database).
    /// ``description`` never shows the keys.
    public struct ChallengeSettings: Hashable, Sendable, Decodable, CustomStringConvertible,
        CustomDebugStringConvertible
    {
        /// The sealing keys in base64, the sealing one first; nil when not configured.
        public var sealingKeys: [String]?

        /// No keys configured.
        public init(sealingKeys: [String]? = nil) { self.sealingKeys = sealingKeys }

        private enum CodingKeys: String, CodingKey, CaseIterable { case sealingKeys }

        private struct AnyKey: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        /// Decodes the section; unknown keys are refused.
        ///
        /// - Parameter decoder: The decoder.
        /// - Throws: ``AttestServiceError`` (`invalidConfiguration`) for an unknown key, or a decoding error.
        public init(from decoder: any Decoder) throws {
            let all = try decoder.container(keyedBy: AnyKey.self)
            if let unknown = all.allKeys.first(where: { CodingKeys(rawValue: $0.stringValue) == nil }) {
                throw AttestServiceError.invalidConfiguration(
                    "unknown configuration key 'challenges.\(unknown.stringValue)'; the key is sealingKeys")
            }
            let container = try decoder.container(keyedBy: CodingKeys.self)
            sealingKeys = try container.decodeIfPresent([String].self, forKey: .sealingKeys)
        }

        /// How many keys are configured, never the keys.
        public var description: String {
            sealingKeys.map { "ChallengeSettings(\($0.count) sealing keys)" } ?? "ChallengeSettings(stored key)"
        }

        /// The same as ``description``: the keys are secrets.
        public var debugDescription: String { description }
    }

    /// The environment variable that may hold the challenge sealing keys (comma-separated base64).
    public static let challengeKeysVariable = "RAMPART_CHALLENGE_KEYS"

    /// The challenge sealing keys from ``challenges`` or the environment, or nil when neither sets any (the store's
    /// key is then used).
    ///
    /// - Parameter environment: The environment to read; nil: the process's.
    /// - Returns: The keys, or nil.
    /// - Throws: ``AttestServiceError`` (`invalidConfiguration`) when both set keys, or a key is not valid (see
    ///   ``ChallengeSealingKeys/init(base64Encoded:)``).
    public func challengeSealingKeys(
        environment: [String: String]? = nil
    ) throws -> ChallengeSealingKeys? {
        let environment = environment ?? ProcessInfo.processInfo.environment
        let fromEnvironment = environment[Self.challengeKeysVariable].flatMap { $0.isEmpty ? nil : $0 }
        switch (challenges.sealingKeys, fromEnvironment) {
        case (nil, nil):
            return nil
        case (.some, .some):
            throw AttestServiceError.invalidConfiguration(
                "challenge sealing keys are set both in challenges.sealingKeys and in \(Self.challengeKeysVariable); "
                    + "set them in one place")
        case (let keys?, nil):
            return try ChallengeSealingKeys(base64Encoded: keys)
        case (nil, let text?):
            return try ChallengeSealingKeys(
                base64Encoded: text.split(separator: ",", omittingEmptySubsequences: false).map(String.init))
        }
    }
}
