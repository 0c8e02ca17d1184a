// Keychain Services constants, transcribed from Apple's documentation (each page declares `let NAME: CFString`).
// The values are the ones Security defines (apple-oss-distributions/Security, OSX/sec/Security/SecItemConstants.c,
// `SEC_CONST_DECL (kSecClassGenericPassword, "genp")` and so on), not names of the simulation's own: securityd reads
// them, and some come back from a query as numbers (`kSecAttrKeyTypeECSECPrimeRandom` is "73", read back as 73; see
// KeychainSchema.numberAttributes), which code that decodes results must expect.

// https://developer.apple.com/documentation/security/ksecclass
/// A dictionary key whose value is the item's class.
public let kSecClass: CFString = "class"

// https://developer.apple.com/documentation/security/ksecclassgenericpassword
/// The value that indicates a generic password item.
public let kSecClassGenericPassword: CFString = "genp"

// https://developer.apple.com/documentation/security/ksecclassinternetpassword
/// The value that indicates an Internet password item.
public let kSecClassInternetPassword: CFString = "inet"

// https://developer.apple.com/documentation/security/ksecclasskey
/// The value that indicates a cryptographic key item.
public let kSecClassKey: CFString = "keys"

// https://developer.apple.com/documentation/security/ksecclasscertificate
/// The value that indicates a certificate item.
public let kSecClassCertificate: CFString = "cert"

// https://developer.apple.com/documentation/security/ksecattraccessgroup
/// A key whose value is a string indicating the access group an item is in.
public let kSecAttrAccessGroup: CFString = "agrp"

// https://developer.apple.com/documentation/security/ksecattraccessible
/// A key whose value indicates when a keychain item is accessible.
public let kSecAttrAccessible: CFString = "pdmn"

// https://developer.apple.com/documentation/security/ksecattraccesscontrol
/// A key with a value that's an access control instance indicating access control settings for the item.
public let kSecAttrAccessControl: CFString = "accc"

// https://developer.apple.com/documentation/security/ksecattrsynchronizable
/// A key with a value that's a string indicating whether the item synchronizes through iCloud.
public let kSecAttrSynchronizable: CFString = "sync"

// https://developer.apple.com/documentation/security/ksecattrsynchronizableany
/// Specifies that both synchronizable and non-synchronizable results should be returned from a query.
public let kSecAttrSynchronizableAny: CFString = "syna"

// https://developer.apple.com/documentation/security/ksecattrcreationdate
/// A key whose value indicates the item's creation date.
public let kSecAttrCreationDate: CFString = "cdat"

// https://developer.apple.com/documentation/security/ksecattrmodificationdate
/// A key whose value indicates the item's most recent modification date.
public let kSecAttrModificationDate: CFString = "mdat"

// https://developer.apple.com/documentation/security/ksecattrlabel
/// A key whose value is a string indicating the item's label.
public let kSecAttrLabel: CFString = "labl"

// https://developer.apple.com/documentation/security/ksecattraccount
/// A key whose value is a string indicating the item's account name.
public let kSecAttrAccount: CFString = "acct"

// https://developer.apple.com/documentation/security/ksecattrservice
/// A key whose value is a string indicating the item's service.
public let kSecAttrService: CFString = "svce"

// https://developer.apple.com/documentation/security/ksecattrgeneric
/// A key whose value indicates the item's user-defined attributes.
public let kSecAttrGeneric: CFString = "gena"

// https://developer.apple.com/documentation/security/ksecattrserver
/// A key whose value is a string indicating the item's server.
public let kSecAttrServer: CFString = "srvr"

// https://developer.apple.com/documentation/security/ksecattrprotocol
/// A key whose value indicates the item's protocol.
public let kSecAttrProtocol: CFString = "ptcl"

// https://developer.apple.com/documentation/security/ksecattrport
/// A key whose value indicates the item's port.
public let kSecAttrPort: CFString = "port"

// https://developer.apple.com/documentation/security/ksecattrpath
/// A key whose value is a string indicating the item's path attribute.
public let kSecAttrPath: CFString = "path"

// https://developer.apple.com/documentation/security/ksecattrsecuritydomain
/// A key whose value is a string indicating the item's security domain.
public let kSecAttrSecurityDomain: CFString = "sdmn"

// https://developer.apple.com/documentation/security/ksecattrauthenticationtype
/// A key whose value indicates the item's authentication scheme.
public let kSecAttrAuthenticationType: CFString = "atyp"

// https://developer.apple.com/documentation/security/ksecattrapplicationtag
/// A key whose value indicates the item's private tag.
public let kSecAttrApplicationTag: CFString = "atag"

// https://developer.apple.com/documentation/security/ksecattrapplicationlabel
/// A key whose value indicates the item's application label.
public let kSecAttrApplicationLabel: CFString = "klbl"

// https://developer.apple.com/documentation/security/ksecattrkeytype
/// A key whose value indicates the item's algorithm.
public let kSecAttrKeyType: CFString = "type"

// https://developer.apple.com/documentation/security/ksecattrkeyclass
/// A key whose value indicates the item's cryptographic key class.
public let kSecAttrKeyClass: CFString = "kcls"

// https://developer.apple.com/documentation/security/ksecattrkeysizeinbits
/// A key whose value indicates the number of bits in a cryptographic key.
public let kSecAttrKeySizeInBits: CFString = "bsiz"

// https://developer.apple.com/documentation/security/ksecattrtokenid
/// A key whose presence indicates that a cryptographic key is in an external store.
public let kSecAttrTokenID: CFString = "tkid"

// https://developer.apple.com/documentation/security/ksecattrispermanent
/// A key whose value indicates whether a cryptographic key or key pair should be stored in the default keychain at creation time.
public let kSecAttrIsPermanent: CFString = "perm"

// https://developer.apple.com/documentation/security/ksecattrissuer
/// A key whose value indicates the item's issuer.
public let kSecAttrIssuer: CFString = "issr"

// https://developer.apple.com/documentation/security/ksecattrserialnumber
/// A key whose value indicates the item's serial number.
public let kSecAttrSerialNumber: CFString = "slnr"

// https://developer.apple.com/documentation/security/ksecattrcertificatetype
/// A key whose value indicates the item's certificate type.
public let kSecAttrCertificateType: CFString = "ctyp"

// https://developer.apple.com/documentation/security/ksecprivatekeyattrs
/// The private key attributes dictionary key for key generation.
public let kSecPrivateKeyAttrs: CFString = "private"

// https://developer.apple.com/documentation/security/ksecpublickeyattrs
/// The public key attributes dictionary key for key generation.
public let kSecPublicKeyAttrs: CFString = "public"

// https://developer.apple.com/documentation/security/ksecattraccessiblewhenunlocked
/// The data in the keychain item can be accessed only while the device is unlocked by the user.
public let kSecAttrAccessibleWhenUnlocked: CFString = "ak"

// https://developer.apple.com/documentation/security/ksecattraccessibleafterfirstunlock
/// The data in the keychain item can't be accessed after a restart until the device has been unlocked once by the user.
public let kSecAttrAccessibleAfterFirstUnlock: CFString = "ck"

// https://developer.apple.com/documentation/security/ksecattraccessiblewhenunlockedthisdeviceonly
/// The data in the keychain item can be accessed only while the device is unlocked by the user; it doesn't migrate to a new device.
public let kSecAttrAccessibleWhenUnlockedThisDeviceOnly: CFString = "aku"

// https://developer.apple.com/documentation/security/ksecattraccessibleafterfirstunlockthisdeviceonly
/// The data in the keychain item can't be accessed after a restart until the device has been unlocked once by the user; it doesn't migrate to a new device.
public let kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly: CFString = "cku"

// https://developer.apple.com/documentation/security/ksecattraccessiblewhenpasscodesetthisdeviceonly
/// The data in the keychain can only be accessed when the device is unlocked. Only available if a passcode is set on the device.
public let kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly: CFString = "akpu"

// https://developer.apple.com/documentation/security/ksecattrprotocolhttp
/// HTTP protocol.
public let kSecAttrProtocolHTTP: CFString = "http"

// https://developer.apple.com/documentation/security/ksecattrprotocolhttps
/// HTTPS protocol.
public let kSecAttrProtocolHTTPS: CFString = "htps"

// https://developer.apple.com/documentation/security/ksecattrprotocolftp
/// FTP protocol.
public let kSecAttrProtocolFTP: CFString = "ftp "

// https://developer.apple.com/documentation/security/ksecattrprotocolssh
/// SSH protocol.
public let kSecAttrProtocolSSH: CFString = "ssh "

// https://developer.apple.com/documentation/security/ksecattrauthenticationtypedefault
/// The default authentication type.
public let kSecAttrAuthenticationTypeDefault: CFString = "dflt"

// https://developer.apple.com/documentation/security/ksecattrauthenticationtypehttpbasic
/// HTTP Basic authentication.
public let kSecAttrAuthenticationTypeHTTPBasic: CFString = "http"

// https://developer.apple.com/documentation/security/ksecattrauthenticationtypehttpdigest
/// HTTP Digest Access authentication.
public let kSecAttrAuthenticationTypeHTTPDigest: CFString = "httd"

// https://developer.apple.com/documentation/security/ksecattrauthenticationtypehtmlform
/// HTML form based authentication.
public let kSecAttrAuthenticationTypeHTMLForm: CFString = "form"

// https://developer.apple.com/documentation/security/ksecattrkeytypeecsecprimerandom
/// Elliptic curve algorithm.
public let kSecAttrKeyTypeECSECPrimeRandom: CFString = "73"

// https://developer.apple.com/documentation/security/ksecattrkeytypersa
/// RSA algorithm.
public let kSecAttrKeyTypeRSA: CFString = "42"

// https://developer.apple.com/documentation/security/ksecattrkeyclasspublic
/// A public key of a public-private pair.
public let kSecAttrKeyClassPublic: CFString = "0"

// https://developer.apple.com/documentation/security/ksecattrkeyclassprivate
/// A private key of a public-private pair.
public let kSecAttrKeyClassPrivate: CFString = "1"

// https://developer.apple.com/documentation/security/ksecattrtokenidsecureenclave
/// Specifies an item should be stored in the device's Secure Enclave.
public let kSecAttrTokenIDSecureEnclave: CFString = "com.apple.setoken"

// https://developer.apple.com/documentation/security/ksecmatchlimit
/// A key whose value indicates the match limit.
public let kSecMatchLimit: CFString = "m_Limit"

// https://developer.apple.com/documentation/security/ksecmatchlimitone
/// A value that corresponds to matching exactly one item.
public let kSecMatchLimitOne: CFString = "m_LimitOne"

// https://developer.apple.com/documentation/security/ksecmatchlimitall
/// A value that corresponds to matching an unlimited number of items.
public let kSecMatchLimitAll: CFString = "m_LimitAll"

// https://developer.apple.com/documentation/security/ksecreturndata
/// A key whose value is a Boolean indicating whether or not to return item data.
public let kSecReturnData: CFString = "r_Data"

// https://developer.apple.com/documentation/security/ksecreturnattributes
/// A key whose value is a Boolean indicating whether or not to return item attributes.
public let kSecReturnAttributes: CFString = "r_Attributes"

// https://developer.apple.com/documentation/security/ksecreturnref
/// A key whose value is a Boolean indicating whether or not to return a reference to an item.
public let kSecReturnRef: CFString = "r_Ref"

// https://developer.apple.com/documentation/security/ksecreturnpersistentref
/// A key whose value is a Boolean indicating whether or not to return a persistent reference to an item.
public let kSecReturnPersistentRef: CFString = "r_PersistentRef"

// https://developer.apple.com/documentation/security/ksecvaluedata
/// A key whose value is the item's data.
public let kSecValueData: CFString = "v_Data"

// https://developer.apple.com/documentation/security/ksecvalueref
/// A key whose value is a reference to the item (a SecKey for keys).
public let kSecValueRef: CFString = "v_Ref"

// https://developer.apple.com/documentation/security/ksecvaluepersistentref
/// A key whose value is a persistent reference to the item.
public let kSecValuePersistentRef: CFString = "v_PersistentRef"

// https://developer.apple.com/documentation/security/ksecusedataprotectionkeychain
/// A key whose value indicates whether to treat macOS keychain items like iOS keychain items.
public let kSecUseDataProtectionKeychain: CFString = "nleg"
