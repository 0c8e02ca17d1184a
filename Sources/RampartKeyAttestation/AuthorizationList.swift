public import RampartX509

/// The properties of an attested key, one list enforced by the secure hardware and one by the OS
/// (`AuthorizationList`, Android's "Key and ID attestation" schema, KeyMint version 400 plus tag 11 of version 500).
///
/// ```
/// AuthorizationList ::= SEQUENCE {
///     purpose                     [1] EXPLICIT SET OF INTEGER OPTIONAL,
///     algorithm                   [2] EXPLICIT INTEGER OPTIONAL,
///     keySize                     [3] EXPLICIT INTEGER OPTIONAL,
///     blockMode                   [4] EXPLICIT SET OF INTEGER OPTIONAL,
///     digest                      [5] EXPLICIT SET OF INTEGER OPTIONAL,
///     padding                     [6] EXPLICIT SET OF INTEGER OPTIONAL,
///     callerNonce                 [7] EXPLICIT NULL OPTIONAL,
///     minMacLength                [8] EXPLICIT INTEGER OPTIONAL,
///     ecCurve                     [10] EXPLICIT INTEGER OPTIONAL,
///     mlDsaVariant                [11] EXPLICIT INTEGER OPTIONAL,
///     rsaPublicExponent           [200] EXPLICIT INTEGER OPTIONAL,
///     mgfDigest                   [203] EXPLICIT SET OF INTEGER OPTIONAL,
///     rollbackResistance          [303] EXPLICIT NULL OPTIONAL,
///     earlyBootOnly               [305] EXPLICIT NULL OPTIONAL,
///     activeDateTime              [400] EXPLICIT INTEGER OPTIONAL,
///     originationExpireDateTime   [401] EXPLICIT INTEGER OPTIONAL,
///     usageExpireDateTime         [402] EXPLICIT INTEGER OPTIONAL,
///     usageCountLimit             [405] EXPLICIT INTEGER OPTIONAL,
///     userSecureId                [502] EXPLICIT INTEGER OPTIONAL,
///     noAuthRequired              [503] EXPLICIT NULL OPTIONAL,
///     userAuthType                [504] EXPLICIT INTEGER OPTIONAL,
///     authTimeout                 [505] EXPLICIT INTEGER OPTIONAL,
///     allowWhileOnBody            [506] EXPLICIT NULL OPTIONAL,
///     trustedUserPresenceReq      [507] EXPLICIT NULL OPTIONAL,
///     trustedConfirmationReq      [508] EXPLICIT NULL OPTIONAL,
///     unlockedDeviceReq           [509] EXPLICIT NULL OPTIONAL,
///     allApplications             [600] EXPLICIT NULL OPTIONAL,           -- Keymaster 2 and 3
///     applicationId               [601] EXPLICIT OCTET_STRING OPTIONAL,   -- Keymaster 2 and 3
///     creationDateTime            [701] EXPLICIT INTEGER OPTIONAL,
///     origin                      [702] EXPLICIT INTEGER OPTIONAL,
///     rollbackResistant           [703] EXPLICIT NULL OPTIONAL,           -- Keymaster 2 and 3
///     rootOfTrust                 [704] EXPLICIT RootOfTrust OPTIONAL,
///     osVersion                   [705] EXPLICIT INTEGER OPTIONAL,
///     osPatchLevel                [706] EXPLICIT INTEGER OPTIONAL,
///     attestationApplicationId    [709] EXPLICIT OCTET_STRING OPTIONAL,
///     attestationIdBrand          [710] EXPLICIT OCTET_STRING OPTIONAL,
///     attestationIdDevice         [711] EXPLICIT OCTET_STRING OPTIONAL,
///     attestationIdProduct        [712] EXPLICIT OCTET_STRING OPTIONAL,
///     attestationIdSerial         [713] EXPLICIT OCTET_STRING OPTIONAL,
///     attestationIdImei           [714] EXPLICIT OCTET_STRING OPTIONAL,
///     attestationIdMeid           [715] EXPLICIT OCTET_STRING OPTIONAL,
///     attestationIdManufacturer   [716] EXPLICIT OCTET_STRING OPTIONAL,
///     attestationIdModel          [717] EXPLICIT OCTET_STRING OPTIONAL,
///     vendorPatchLevel            [718] EXPLICIT INTEGER OPTIONAL,
///     bootPatchLevel              [719] EXPLICIT INTEGER OPTIONAL,
///     deviceUniqueAttestation     [720] EXPLICIT NULL OPTIONAL,
///     attestationIdSecondImei     [723] EXPLICIT OCTET_STRING OPTIONAL,
///     moduleHash                  [724] EXPLICIT OCTET_STRING OPTIONAL,
/// }
/// ```
///
/// Parsing is strict: every element is an `[n] EXPLICIT` wrapper of exactly one value of the tag's type; tags appear
/// in strictly ascending order (DER's canonical order for SEQUENCE components, X.680 8.6), so none repeats; a tag
/// not in the grammar above is refused rather than skipped. Integers must fit in 64 bits (`userSecureId` unsigned),
/// identifier strings must be UTF-8, and a SET OF keeps the order it was received in.
public struct AuthorizationList: Hashable, Sendable {
    /// The most elements one list may hold (DoS bound; the grammar has 49 tags).
    public static let maximumTagCount = 64
    /// The most integers in one SET OF (DoS bound; KeyMint defines fewer than 16 values for each).
    public static let maximumSetCount = 32
    /// The longest OCTET STRING value, in bytes (DoS bound; device identifiers and digests are short, an
    /// attestationApplicationId lists packages and digests).
    public static let maximumOctetStringByteCount = 16 << 10

    /// One value, by the type its tag carries.
    enum Value: Hashable, Sendable {
        case integer(Int64)
        case unsignedInteger(UInt64)
        case integerSet([Int64])
        case flag
        case octets([UInt8])
        case text(String)
        case rootOfTrust(RootOfTrust)
        case applicationID(AttestationApplicationID)
    }

    /// The type of a tag's value; ``origin`` is an INTEGER limited to ``KeyOrigin``'s values.
    enum Kind: Sendable {
        case integer, unsignedInteger, integerSet, flag, octets, text, rootOfTrust, applicationID, origin
    }

    /// A tag of the grammar: its number, the name Google's verifier and the vectors give it in JSON, and its type.
    struct Tag: Sendable {
        let number: UInt32
        let name: String
        let kind: Kind
    }

    /// Every tag the grammar defines, ascending.
    static let tags: [Tag] = [
        Tag(number: 1, name: "purposes", kind: .integerSet),
        Tag(number: 2, name: "algorithms", kind: .integer),
        Tag(number: 3, name: "keySize", kind: .integer),
        Tag(number: 4, name: "blockModes", kind: .integerSet),
        Tag(number: 5, name: "digests", kind: .integerSet),
        Tag(number: 6, name: "paddings", kind: .integerSet),
        Tag(number: 7, name: "callerNonce", kind: .flag),
        Tag(number: 8, name: "minMacLength", kind: .integer),
        Tag(number: 10, name: "ecCurve", kind: .integer),
        Tag(number: 11, name: "mlDsaVariant", kind: .integer),
        Tag(number: 200, name: "rsaPublicExponent", kind: .integer),
        Tag(number: 203, name: "rsaOaepMgfDigests", kind: .integerSet),
        Tag(number: 303, name: "rollbackResistance", kind: .flag),
        Tag(number: 305, name: "earlyBootOnly", kind: .flag),
        Tag(number: 400, name: "activeDateTime", kind: .integer),
        Tag(number: 401, name: "originationExpireDateTime", kind: .integer),
        Tag(number: 402, name: "usageExpireDateTime", kind: .integer),
        Tag(number: 405, name: "usageCountLimit", kind: .integer),
        Tag(number: 502, name: "userSecureId", kind: .unsignedInteger),
        Tag(number: 503, name: "noAuthRequired", kind: .flag),
        Tag(number: 504, name: "userAuthType", kind: .integer),
        Tag(number: 505, name: "authTimeout", kind: .integer),
        Tag(number: 506, name: "allowWhileOnBody", kind: .flag),
        Tag(number: 507, name: "trustedUserPresenceRequired", kind: .flag),
        Tag(number: 508, name: "trustedConfirmationRequired", kind: .flag),
        Tag(number: 509, name: "unlockedDeviceRequired", kind: .flag),
        Tag(number: 600, name: "allApplications", kind: .flag),
        Tag(number: 601, name: "applicationId", kind: .octets),
        Tag(number: 701, name: "creationDateTime", kind: .integer),
        Tag(number: 702, name: "origin", kind: .origin),
        Tag(number: 703, name: "rollbackResistant", kind: .flag),
        Tag(number: 704, name: "rootOfTrust", kind: .rootOfTrust),
        Tag(number: 705, name: "osVersion", kind: .integer),
        Tag(number: 706, name: "osPatchLevel", kind: .integer),
        Tag(number: 709, name: "attestationApplicationId", kind: .applicationID),
        Tag(number: 710, name: "attestationIdBrand", kind: .text),
        Tag(number: 711, name: "attestationIdDevice", kind: .text),
        Tag(number: 712, name: "attestationIdProduct", kind: .text),
        Tag(number: 713, name: "attestationIdSerial", kind: .text),
        Tag(number: 714, name: "attestationIdImei", kind: .text),
        Tag(number: 715, name: "attestationIdMeid", kind: .text),
        Tag(number: 716, name: "attestationIdManufacturer", kind: .text),
        Tag(number: 717, name: "attestationIdModel", kind: .text),
        Tag(number: 718, name: "vendorPatchLevel", kind: .integer),
        Tag(number: 719, name: "bootPatchLevel", kind: .integer),
        Tag(number: 720, name: "deviceUniqueAttestation", kind: .flag),
        Tag(number: 723, name: "attestationIdSecondImei", kind: .text),
        Tag(number: 724, name: "moduleHash", kind: .octets),
    ]

    static let tagsByNumber: [UInt32: Tag] = Dictionary(uniqueKeysWithValues: tags.map { ($0.number, $0) })

    /// The values present, by tag number.
    var values: [UInt32: Value]

    /// An empty list.
    public init() { values = [:] }

    /// The tag numbers present, ascending.
    public var tagNumbers: [UInt32] { values.keys.sorted() }

    /// Whether no tag is present.
    public var isEmpty: Bool { values.isEmpty }

    // MARK: Typed access

    private func integer(_ tag: UInt32) -> Int64? {
        if case .integer(let value)? = values[tag] { return value }
        return nil
    }

    private func integerSet(_ tag: UInt32) -> [Int64]? {
        if case .integerSet(let value)? = values[tag] { return value }
        return nil
    }

    private func text(_ tag: UInt32) -> String? {
        if case .text(let value)? = values[tag] { return value }
        return nil
    }

    private func octets(_ tag: UInt32) -> [UInt8]? {
        if case .octets(let value)? = values[tag] { return value }
        return nil
    }

    private mutating func setFlag(_ tag: UInt32, _ on: Bool) { values[tag] = on ? .flag : nil }

    /// `purpose` [1]: KeyMint `KeyPurpose` values (2 is SIGN).
    public var purposes: [Int64]? {
        get { integerSet(1) }
        set { values[1] = newValue.map(Value.integerSet) }
    }

    /// `algorithm` [2]: KeyMint `Algorithm` (1 RSA, 3 EC, 4 ML-DSA, …).
    public var algorithm: Int64? {
        get { integer(2) }
        set { values[2] = newValue.map(Value.integer) }
    }

    /// `keySize` [3], in bits.
    public var keySize: Int64? {
        get { integer(3) }
        set { values[3] = newValue.map(Value.integer) }
    }

    /// `digest` [5]: KeyMint `Digest` values (4 is SHA-256).
    public var digests: [Int64]? {
        get { integerSet(5) }
        set { values[5] = newValue.map(Value.integerSet) }
    }

    /// `ecCurve` [10]: KeyMint `EcCurve` (1 is P-256).
    public var ecCurve: Int64? {
        get { integer(10) }
        set { values[10] = newValue.map(Value.integer) }
    }

    /// `noAuthRequired` [503]: the key may be used without user authentication.
    public var noAuthRequired: Bool {
        get { values[503] != nil }
        set { setFlag(503, newValue) }
    }

    /// `creationDateTime` [701], milliseconds since 1970.
    public var creationDateTime: Int64? {
        get { integer(701) }
        set { values[701] = newValue.map(Value.integer) }
    }

    /// `origin` [702].
    public var origin: KeyOrigin? {
        get { integer(702).flatMap { Int(exactly: $0) }.flatMap(KeyOrigin.init(rawValue:)) }
        set { values[702] = newValue.map { .integer(Int64($0.rawValue)) } }
    }

    /// `rootOfTrust` [704].
    public var rootOfTrust: RootOfTrust? {
        get {
            if case .rootOfTrust(let value)? = values[704] { return value }
            return nil
        }
        set { values[704] = newValue.map(Value.rootOfTrust) }
    }

    /// `osVersion` [705], e.g. 140000 for Android 14.
    public var osVersion: Int64? {
        get { integer(705) }
        set { values[705] = newValue.map(Value.integer) }
    }

    /// `osPatchLevel` [706], `YYYYMM`.
    public var osPatchLevel: Int64? {
        get { integer(706) }
        set { values[706] = newValue.map(Value.integer) }
    }

    /// `attestationApplicationId` [709].
    public var attestationApplicationID: AttestationApplicationID? {
        get {
            if case .applicationID(let value)? = values[709] { return value }
            return nil
        }
        set { values[709] = newValue.map(Value.applicationID) }
    }

    /// `attestationIdBrand` [710].
    public var attestationIDBrand: String? { text(710) }
    /// `attestationIdModel` [717].
    public var attestationIDModel: String? { text(717) }
    /// `vendorPatchLevel` [718], `YYYYMMDD`.
    public var vendorPatchLevel: Int64? { integer(718) }
    /// `bootPatchLevel` [719], `YYYYMMDD`.
    public var bootPatchLevel: Int64? { integer(719) }
    /// `moduleHash` [724].
    public var moduleHash: [UInt8]? { octets(724) }

    // MARK: Parsing and writing

    /// Parses an `AuthorizationList` element.
    ///
    /// - Parameters:
    ///   - node: The SEQUENCE.
    ///   - what: Which list it is (`softwareEnforced`, `hardwareEnforced`), for messages.
    /// - Throws: ``KeyAttestationError`` (`malformedKeyDescription`, `limitExceeded`).
    init(node: ASN1Node, _ what: String) throws {
        guard node.identifier == .sequence else {
            throw KeyAttestationError.malformedKeyDescription("\(what) should be a SEQUENCE")
        }
        guard node.children.count <= Self.maximumTagCount else {
            throw KeyAttestationError.limitExceeded("\(what) holds more than \(Self.maximumTagCount) tags")
        }
        var values: [UInt32: Value] = [:]
        var previous: UInt32?
        for element in node.children {
            let identifier = element.identifier
            guard identifier.tagClass == .contextSpecific, identifier.isConstructed else {
                throw KeyAttestationError.malformedKeyDescription(
                    "an element of \(what) is a \(identifier), not an [n] EXPLICIT tag")
            }
            let number = identifier.tagNumber
            if let previous, number <= previous {
                throw KeyAttestationError.malformedKeyDescription(
                    "the tags of \(what) are not in ascending order: [\(number)] follows [\(previous)] "
                        + "(DER orders SEQUENCE components by tag, X.680 8.6)")
            }
            previous = number
            guard let tag = Self.tagsByNumber[number] else {
                throw KeyAttestationError.malformedKeyDescription(
                    "\(what) carries tag [\(number)], which the KeyDescription schema does not define; "
                        + "update Rampart if Android added it")
            }
            guard element.children.count == 1, let inner = element.children.first else {
                throw KeyAttestationError.malformedKeyDescription(
                    "\(tag.name) [\(number)] of \(what) must wrap exactly one value")
            }
            values[number] = try Self.value(inner, tag, "\(tag.name) [\(number)] of \(what)")
        }
        self.values = values
    }

    private static func value(_ node: ASN1Node, _ tag: Tag, _ what: String) throws -> Value {
        switch tag.kind {
        case .integer:
            return .integer(try DERValue.int64(node, what))
        case .origin:
            let raw = try DERValue.int64(node, what)
            guard Int(exactly: raw).flatMap(KeyOrigin.init(rawValue:)) != nil else {
                throw KeyAttestationError.malformedKeyDescription("\(what) is \(raw), not a KeyOrigin (0 to 4)")
            }
            return .integer(raw)
        case .unsignedInteger:
            return .unsignedInteger(try DERValue.uint64(node, what))
        case .integerSet:
            guard node.identifier == .set else {
                throw KeyAttestationError.malformedKeyDescription("\(what) should be a SET OF INTEGER")
            }
            guard node.children.count <= maximumSetCount else {
                throw KeyAttestationError.limitExceeded("\(what) holds more than \(maximumSetCount) values")
            }
            return .integerSet(try node.children.map { try DERValue.int64($0, "a value of \(what)") })
        case .flag:
            guard node.identifier == .null else {
                throw KeyAttestationError.malformedKeyDescription("\(what) should be NULL")
            }
            return .flag
        case .octets:
            return .octets(try DERValue.octets(node, what, limit: maximumOctetStringByteCount))
        case .text:
            return .text(try DERValue.text(node, what, limit: maximumOctetStringByteCount))
        case .rootOfTrust:
            return .rootOfTrust(try RootOfTrust(node: node))
        case .applicationID:
            let bytes = try DERValue.octets(node, what, limit: maximumOctetStringByteCount)
            return .applicationID(try AttestationApplicationID(derEncoded: bytes))
        }
    }

    /// Writes the list, tags ascending, each value in its tag's type (SET OF in stored order).
    ///
    /// - Parameter writer: The writer.
    public func serialize(into writer: inout DERWriter) {
        writer.appendSequence { sequence in
            for number in tagNumbers {
                guard let value = values[number] else { continue }
                sequence.appendConstructed(.contextSpecific(number, isConstructed: true)) { inner in
                    Self.write(value, into: &inner)
                }
            }
        }
    }

    private static func write(_ value: Value, into writer: inout DERWriter) {
        switch value {
        case .integer(let number): writer.appendInt64(number)
        case .unsignedInteger(let number):
            writer.appendInteger(unsignedBigEndian: withUnsafeBytes(of: number.bigEndian) { Array($0) })
        case .integerSet(let numbers):
            writer.appendConstructed(.set) { set in
                for number in numbers { set.appendInt64(number) }
            }
        case .flag: writer.appendNull()
        case .octets(let bytes): writer.appendOctetString(bytes)
        case .text(let text): writer.appendOctetString(Array(text.utf8))
        case .rootOfTrust(let root): root.serialize(into: &writer)
        case .applicationID(let identifier): writer.appendOctetString(identifier.derEncoded)
        }
    }
}
