// Keychain Services constants, transcribed from Apple's documentation (each page declares `let NAME: CFString`).
// The values are the simulation's own: on Apple platforms they are opaque.

// https://developer.apple.com/documentation/security/ksecclass
/// A dictionary key whose value is the item's class.
public let kSecClass: CFString = "kSecClass"

// https://developer.apple.com/documentation/security/ksecclassgenericpassword
/// The value that indicates a generic password item.
public let kSecClassGenericPassword: CFString = "kSecClassGenericPassword"

// https://developer.apple.com/documentation/security/ksecclassinternetpassword
/// The value that indicates an Internet password item.
public let kSecClassInternetPassword: CFString = "kSecClassInternetPassword"

// https://developer.apple.com/documentation/security/ksecclasskey
/// The value that indicates a cryptographic key item.
public let kSecClassKey: CFString = "kSecClassKey"

// https://developer.apple.com/documentation/security/ksecclasscertificate
/// The value that indicates a certificate item.
public let kSecClassCertificate: CFString = "kSecClassCertificate"

// https://developer.apple.com/documentation/security/ksecattraccessgroup
/// A key whose value is a string indicating the access group an item is in.
public let kSecAttrAccessGroup: CFString = "kSecAttrAccessGroup"

// https://developer.apple.com/documentation/security/ksecattraccessible
/// A key whose value indicates when a keychain item is accessible.
public let kSecAttrAccessible: CFString = "kSecAttrAccessible"

// https://developer.apple.com/documentation/security/ksecattraccesscontrol
/// A key with a value that's an access control instance indicating access control settings for the item.
public let kSecAttrAccessControl: CFString = "kSecAttrAccessControl"

// https://developer.apple.com/documentation/security/ksecattrsynchronizable
/// A key with a value that's a string indicating whether the item synchronizes through iCloud.
public let kSecAttrSynchronizable: CFString = "kSecAttrSynchronizable"

// https://developer.apple.com/documentation/security/ksecattrsynchronizableany
/// Specifies that both synchronizable and non-synchronizable results should be returned from a query.
public let kSecAttrSynchronizableAny: CFString = "kSecAttrSynchronizableAny"

// https://developer.apple.com/documentation/security/ksecattrcreationdate
/// A key whose value indicates the item's creation date.
public let kSecAttrCreationDate: CFString = "kSecAttrCreationDate"

// https://developer.apple.com/documentation/security/ksecattrmodificationdate
/// A key whose value indicates the item's most recent modification date.
public let kSecAttrModificationDate: CFString = "kSecAttrModificationDate"

// https://developer.apple.com/documentation/security/ksecattrlabel
/// A key whose value is a string indicating the item's label.
public let kSecAttrLabel: CFString = "kSecAttrLabel"

// https://developer.apple.com/documentation/security/ksecattraccount
/// A key whose value is a string indicating the item's account name.
public let kSecAttrAccount: CFString = "kSecAttrAccount"

// https://developer.apple.com/documentation/security/ksecattrservice
/// A key whose value is a string indicating the item's service.
public let kSecAttrService: CFString = "kSecAttrService"

// https://developer.apple.com/documentation/security/ksecattrgeneric
/// A key whose value indicates the item's user-defined attributes.
public let kSecAttrGeneric: CFString = "kSecAttrGeneric"

// https://developer.apple.com/documentation/security/ksecattrserver
/// A key whose value is a string indicating the item's server.
public let kSecAttrServer: CFString = "kSecAttrServer"

// https://developer.apple.com/documentation/security/ksecattrprotocol
/// A key whose value indicates the item's protocol.
public let kSecAttrProtocol: CFString = "kSecAttrProtocol"

// https://developer.apple.com/documentation/security/ksecattrport
/// A key whose value indicates the item's port.
public let kSecAttrPort: CFString = "kSecAttrPort"

// https://developer.apple.com/documentation/security/ksecattrpath
/// A key whose value is a string indicating the item's path attribute.
public let kSecAttrPath: CFString = "kSecAttrPath"

// https://developer.apple.com/documentation/security/ksecattrsecuritydomain
/// A key whose value is a string indicating the item's security domain.
public let kSecAttrSecurityDomain: CFString = "kSecAttrSecurityDomain"

// https://developer.apple.com/documentation/security/ksecattrauthenticationtype
/// A key whose value indicates the item's authentication scheme.
public let kSecAttrAuthenticationType: CFString = "kSecAttrAuthenticationType"

// https://developer.apple.com/documentation/security/ksecattrapplicationtag
/// A key whose value indicates the item's private tag.
public let kSecAttrApplicationTag: CFString = "kSecAttrApplicationTag"

// https://developer.apple.com/documentation/security/ksecattrapplicationlabel
/// A key whose value indicates the item's application label.
public let kSecAttrApplicationLabel: CFString = "kSecAttrApplicationLabel"

// https://developer.apple.com/documentation/security/ksecattrkeytype
/// A key whose value indicates the item's algorithm.
public let kSecAttrKeyType: CFString = "kSecAttrKeyType"

// https://developer.apple.com/documentation/security/ksecattrkeyclass
/// A key whose value indicates the item's cryptographic key class.
public let kSecAttrKeyClass: CFString = "kSecAttrKeyClass"

// https://developer.apple.com/documentation/security/ksecattrkeysizeinbits
/// A key whose value indicates the number of bits in a cryptographic key.
public let kSecAttrKeySizeInBits: CFString = "kSecAttrKeySizeInBits"

// https://developer.apple.com/documentation/security/ksecattrtokenid
/// A key whose presence indicates that a cryptographic key is in an external store.
public let kSecAttrTokenID: CFString = "kSecAttrTokenID"

// https://developer.apple.com/documentation/security/ksecattrispermanent
/// A key whose value indicates whether a cryptographic key or key pair should be stored in the default keychain at creation time.
public let kSecAttrIsPermanent: CFString = "kSecAttrIsPermanent"

// https://developer.apple.com/documentation/security/ksecattrissuer
/// A key whose value indicates the item's issuer.
public let kSecAttrIssuer: CFString = "kSecAttrIssuer"

// https://developer.apple.com/documentation/security/ksecattrserialnumber
/// A key whose value indicates the item's serial number.
public let kSecAttrSerialNumber: CFString = "kSecAttrSerialNumber"

// https://developer.apple.com/documentation/security/ksecattrcertificatetype
/// A key whose value indicates the item's certificate type.
public let kSecAttrCertificateType: CFString = "kSecAttrCertificateType"

// https://developer.apple.com/documentation/security/ksecprivatekeyattrs
/// The private key attributes dictionary key for key generation.
public let kSecPrivateKeyAttrs: CFString = "kSecPrivateKeyAttrs"

// https://developer.apple.com/documentation/security/ksecattraccessiblewhenunlocked
/// The data in the keychain item can be accessed only while the device is unlocked by the user.
public let kSecAttrAccessibleWhenUnlocked: CFString = "kSecAttrAccessibleWhenUnlocked"

// https://developer.apple.com/documentation/security/ksecattraccessibleafterfirstunlock
/// The data in the keychain item can't be accessed after a restart until the device has been unlocked once by the user.
public let kSecAttrAccessibleAfterFirstUnlock: CFString = "kSecAttrAccessibleAfterFirstUnlock"

// https://developer.apple.com/documentation/security/ksecattraccessiblewhenunlockedthisdeviceonly
/// The data in the keychain item can be accessed only while the device is unlocked by the user; it doesn't migrate to a new device.
public let kSecAttrAccessibleWhenUnlockedThisDeviceOnly: CFString = "kSecAttrAccessibleWhenUnlockedThisDeviceOnly"

// https://developer.apple.com/documentation/security/ksecattraccessibleafterfirstunlockthisdeviceonly
/// The data in the keychain item can't be accessed after a restart until the device has been unlocked once by the user; it doesn't migrate to a new device.
public let kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly: CFString =
    "kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly"

// https://developer.apple.com/documentation/security/ksecattraccessiblewhenpasscodesetthisdeviceonly
/// The data in the keychain can only be accessed when the device is unlocked. Only available if a passcode is set on the device.
public let kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly: CFString = "kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly"

// https://developer.apple.com/documentation/security/ksecattrprotocolhttp
/// HTTP protocol.
public let kSecAttrProtocolHTTP: CFString = "kSecAttrProtocolHTTP"

// https://developer.apple.com/documentation/security/ksecattrprotocolhttps
/// HTTPS protocol.
public let kSecAttrProtocolHTTPS: CFString = "kSecAttrProtocolHTTPS"

// https://developer.apple.com/documentation/security/ksecattrprotocolftp
/// FTP protocol.
public let kSecAttrProtocolFTP: CFString = "kSecAttrProtocolFTP"

// https://developer.apple.com/documentation/security/ksecattrprotocolssh
/// SSH protocol.
public let kSecAttrProtocolSSH: CFString = "kSecAttrProtocolSSH"

// https://developer.apple.com/documentation/security/ksecattrauthenticationtypedefault
/// The default authentication type.
public let kSecAttrAuthenticationTypeDefault: CFString = "kSecAttrAuthenticationTypeDefault"

// https://developer.apple.com/documentation/security/ksecattrauthenticationtypehttpbasic
/// HTTP Basic authentication.
public let kSecAttrAuthenticationTypeHTTPBasic: CFString = "kSecAttrAuthenticationTypeHTTPBasic"

// https://developer.apple.com/documentation/security/ksecattrauthenticationtypehttpdigest
/// HTTP Digest Access authentication.
public let kSecAttrAuthenticationTypeHTTPDigest: CFString = "kSecAttrAuthenticationTypeHTTPDigest"

// https://developer.apple.com/documentation/security/ksecattrauthenticationtypehtmlform
/// HTML form based authentication.
public let kSecAttrAuthenticationTypeHTMLForm: CFString = "kSecAttrAuthenticationTypeHTMLForm"

// https://developer.apple.com/documentation/security/ksecattrkeytypeecsecprimerandom
/// Elliptic curve algorithm.
public let kSecAttrKeyTypeECSECPrimeRandom: CFString = "kSecAttrKeyTypeECSECPrimeRandom"

// https://developer.apple.com/documentation/security/ksecattrkeytypersa
/// RSA algorithm.
public let kSecAttrKeyTypeRSA: CFString = "kSecAttrKeyTypeRSA"

// https://developer.apple.com/documentation/security/ksecattrkeyclasspublic
/// A public key of a public-private pair.
public let kSecAttrKeyClassPublic: CFString = "kSecAttrKeyClassPublic"

// https://developer.apple.com/documentation/security/ksecattrkeyclassprivate
/// A private key of a public-private pair.
public let kSecAttrKeyClassPrivate: CFString = "kSecAttrKeyClassPrivate"

// https://developer.apple.com/documentation/security/ksecattrtokenidsecureenclave
/// Specifies an item should be stored in the device's Secure Enclave.
public let kSecAttrTokenIDSecureEnclave: CFString = "kSecAttrTokenIDSecureEnclave"

// https://developer.apple.com/documentation/security/ksecmatchlimit
/// A key whose value indicates the match limit.
public let kSecMatchLimit: CFString = "kSecMatchLimit"

// https://developer.apple.com/documentation/security/ksecmatchlimitone
/// A value that corresponds to matching exactly one item.
public let kSecMatchLimitOne: CFString = "kSecMatchLimitOne"

// https://developer.apple.com/documentation/security/ksecmatchlimitall
/// A value that corresponds to matching an unlimited number of items.
public let kSecMatchLimitAll: CFString = "kSecMatchLimitAll"

// https://developer.apple.com/documentation/security/ksecreturndata
/// A key whose value is a Boolean indicating whether or not to return item data.
public let kSecReturnData: CFString = "kSecReturnData"

// https://developer.apple.com/documentation/security/ksecreturnattributes
/// A key whose value is a Boolean indicating whether or not to return item attributes.
public let kSecReturnAttributes: CFString = "kSecReturnAttributes"

// https://developer.apple.com/documentation/security/ksecreturnref
/// A key whose value is a Boolean indicating whether or not to return a reference to an item.
public let kSecReturnRef: CFString = "kSecReturnRef"

// https://developer.apple.com/documentation/security/ksecreturnpersistentref
/// A key whose value is a Boolean indicating whether or not to return a persistent reference to an item.
public let kSecReturnPersistentRef: CFString = "kSecReturnPersistentRef"

// https://developer.apple.com/documentation/security/ksecvaluedata
/// A key whose value is the item's data.
public let kSecValueData: CFString = "kSecValueData"

// https://developer.apple.com/documentation/security/ksecvalueref
/// A key whose value is a reference to the item (a SecKey for keys).
public let kSecValueRef: CFString = "kSecValueRef"

// https://developer.apple.com/documentation/security/ksecvaluepersistentref
/// A key whose value is a persistent reference to the item.
public let kSecValuePersistentRef: CFString = "kSecValuePersistentRef"

// https://developer.apple.com/documentation/security/ksecusedataprotectionkeychain
/// A key whose value indicates whether to treat macOS keychain items like iOS keychain items.
public let kSecUseDataProtectionKeychain: CFString = "kSecUseDataProtectionKeychain"
