import Foundation

/// The JSON of Google's reference verifier (android/keyattestation) and of the vectors' `.json` files: integers as
/// decimal strings, byte strings as standard base64, enumerations by name, NULL flags as `true`, absent tags left out.
extension KeyDescription: Encodable {
    /// Encodes the description with the reference verifier's field names.
    ///
    /// - Parameter encoder: The encoder.
    /// - Throws: The encoder's errors.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: JSONKey.self)
        try container.encode(String(attestationVersion), forKey: "attestationVersion")
        try container.encode(attestationSecurityLevel.name, forKey: "attestationSecurityLevel")
        try container.encode(String(keyMintVersion), forKey: "keyMintVersion")
        try container.encode(keyMintSecurityLevel.name, forKey: "keyMintSecurityLevel")
        try container.encode(Data(attestationChallenge).base64EncodedString(), forKey: "attestationChallenge")
        try container.encode(Data(uniqueID).base64EncodedString(), forKey: "uniqueId")
        try container.encode(softwareEnforced, forKey: "softwareEnforced")
        try container.encode(hardwareEnforced, forKey: "hardwareEnforced")
    }
}

extension AuthorizationList: Encodable {
    /// Encodes the tags present, each under its reference name.
    ///
    /// - Parameter encoder: The encoder.
    /// - Throws: The encoder's errors.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: JSONKey.self)
        for number in tagNumbers {
            guard let tag = Self.tagsByNumber[number], let value = values[number] else { continue }
            let key = JSONKey(stringValue: tag.name)
            switch value {
            case .integer(let integer):
                if tag.kind == .origin, let origin = Int(exactly: integer).flatMap(KeyOrigin.init(rawValue:)) {
                    try container.encode(origin.name, forKey: key)
                } else {
                    try container.encode(String(integer), forKey: key)
                }
            case .unsignedInteger(let integer): try container.encode(String(integer), forKey: key)
            case .integerSet(let integers): try container.encode(integers.map { String($0) }, forKey: key)
            case .flag: try container.encode(true, forKey: key)
            case .octets(let bytes): try container.encode(Data(bytes).base64EncodedString(), forKey: key)
            case .text(let text): try container.encode(text, forKey: key)
            case .rootOfTrust(let root): try container.encode(root, forKey: key)
            case .applicationID(let identifier): try container.encode(identifier, forKey: key)
            }
        }
    }
}

extension RootOfTrust: Encodable {
    /// Encodes `verifiedBootKey`, `deviceLocked`, `verifiedBootState` and `verifiedBootHash`.
    ///
    /// - Parameter encoder: The encoder.
    /// - Throws: The encoder's errors.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: JSONKey.self)
        try container.encode(Data(verifiedBootKey).base64EncodedString(), forKey: "verifiedBootKey")
        try container.encode(deviceLocked, forKey: "deviceLocked")
        try container.encode(verifiedBootState.name, forKey: "verifiedBootState")
        if let verifiedBootHash {
            try container.encode(Data(verifiedBootHash).base64EncodedString(), forKey: "verifiedBootHash")
        }
    }
}

extension AttestationApplicationID: Encodable {
    /// Encodes `packages` (`name`, `version`) and `signatures` (base64 digests).
    ///
    /// - Parameter encoder: The encoder.
    /// - Throws: The encoder's errors.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: JSONKey.self)
        var list = container.nestedUnkeyedContainer(forKey: "packages")
        for package in packages {
            var entry = list.nestedContainer(keyedBy: JSONKey.self)
            try entry.encode(package.name, forKey: "name")
            try entry.encode(String(package.version), forKey: "version")
        }
        try container.encode(signatureDigests.map { Data($0).base64EncodedString() }, forKey: "signatures")
    }
}

/// A coding key named by any string.
struct JSONKey: CodingKey, ExpressibleByStringLiteral {
    let stringValue: String
    var intValue: Int? { nil }

    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
    init(stringLiteral value: String) { self.stringValue = value }
}
