#!/usr/bin/env python3
"""Fails when an app-side module would not compile for an Apple platform the package declares (issue #26, item 2).

Linux builds every app-side module against RampartAppleSimulation, and Linux has Glibc: code that an Apple compiler
would refuse compiles here. This script reads each app-side module's Swift files as each platform of Package.swift's
`platforms:` compiles them and fails on:

(a) a Linux-only name in code that platform compiles: Glibc, Musl, a glibc-only call (`explicit_bzero`, `epoll_*`, …),
    FoundationNetworking, a C target, RampartAppleSimulation or a server-side module; an `import` of a module an Apple
    build cannot import; an active `#error`. Besides, a C library named anywhere in an app-side module outside its
    `Platform.swift` (all libc calls sit in that one file per module, swift-nio's Sources/NIOPosix/System.swift shape);
(b) an Apple API used without availability cover for the declared minimum: the declared minimum, an enclosing
    `@available`, an `if #available` block or an earlier `guard #available` must reach the API's availability, which
    APIS below records from the SDK headers (each entry names its header). An API Rampart calls that is not in the table
    (a `Sec…`, `kSec…`, `errSec…`, `DC…` or `CF…` name) fails too, so the table cannot fall behind.
    A Rampart type declared with `@available` counts as an API with that availability;
(c) a static (or global) stored property whose type is a Core Foundation or other non-Sendable Apple type, or whose
    untyped initializer holds one (Swift 6 mode refuses these on Apple platforms, where `CFString` is a class).

`#if` is evaluated as the platform's compiler would: `canImport` of Apple frameworks and of the app-side modules is
true, of Glibc, Musl, FoundationNetworking, the C targets, RampartAppleSimulation and the server modules false;
`os(…)` is the platform; `targetEnvironment(simulator)` is tried both ways (device and simulator), as is `DEBUG`; the
package's `-D` flag (RAMPART_CRYPTOKIT_BACKEND) is not set for the app-side modules. A condition
it cannot evaluate is an error, never a guess.

Run with no arguments from anywhere: it first runs its self-test (fixtures that must fail for each reason, and one that
must pass), then checks the package. `--self-test` runs only the self-test. scripts/test.sh runs it before the build.
"""
import importlib.util
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

# The app-side and server-side module lists are check-app-dependencies.py's (one list for both checks).
_spec = importlib.util.spec_from_file_location(
    "check_app_dependencies", os.path.join(os.path.dirname(os.path.abspath(__file__)), "check-app-dependencies.py"))
_deps = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_deps)
APP_SIDE = list(_deps.APP_SIDE)
SERVER_SIDE = set(_deps.SERVER_SIDE)

# The example app is an iOS app (Examples/iOSApp/Info.plist, README): its logic and SwiftUI modules are checked for
# iOS only.
MODULE_PLATFORMS = {"RampartPointsCore": ["ios"], "RampartPointsApp": ["ios"]}

PLATFORM_NAMES = {"ios": "iOS", "macos": "macOS", "tvos": "tvOS", "watchos": "watchOS", "visionos": "visionOS"}
SWIFT_OS = {"ios": "iOS", "macos": "macOS", "tvos": "tvOS", "watchos": "watchOS", "visionos": "visionOS"}
# The Swift compiler of Xcode 16.4 (apple.yml's toolchain): Swift 6.1.
COMPILER_VERSION = (6, 1)

# Modules an Apple SDK provides (to `canImport` and `import`). UIKit: iOS, tvOS, visionOS and watchOS; AppKit: macOS.
APPLE_MODULES = {
    "Swift", "Darwin", "Foundation", "CoreFoundation", "Dispatch", "Security", "CryptoKit", "DeviceCheck",
    "LocalAuthentication", "CryptoTokenKit", "Network", "os", "Combine", "SwiftUI", "Observation", "Synchronization",
    "_Concurrency", "XCTest", "Testing",
}
APPLE_MODULES_BY_PLATFORM = {
    "ios": {"UIKit"}, "tvos": {"UIKit"}, "visionos": {"UIKit"}, "watchos": {"UIKit", "WatchKit"}, "macos": {"AppKit"},
}
C_TARGETS = {"COpenSSL", "CSQLite", "CPostgres", "CNetwork", "CSecret", "CArgon2", "CLibFuzzer"}
LINUX_MODULES = {"Glibc", "Musl", "SwiftGlibc", "FoundationNetworking", "FoundationEssentials", "FoundationXML",
                 "Android", "WinSDK", "WASILibc"} | C_TARGETS | {"RampartAppleSimulation"}
# Calls and constants glibc (or Linux) has and Darwin does not.
LINUX_ONLY_NAMES = {
    "explicit_bzero", "getrandom", "getentropy_linux", "epoll_create", "epoll_create1", "epoll_ctl", "epoll_wait",
    "epoll_event", "eventfd", "inotify_init", "inotify_init1", "inotify_add_watch", "memfd_create", "pipe2",
    "accept4", "O_TMPFILE", "__O_TMPFILE", "O_PATH", "SOCK_CLOEXEC", "SOCK_NONBLOCK", "MSG_NOSIGNAL", "prctl", "sched_getaffinity",
    "get_nprocs", "secure_getenv", "__errno_location", "sysinfo", "timerfd_create", "signalfd", "splice",
    "copy_file_range", "statx", "syncfs", "fallocate", "posix_fadvise", "malloc_usable_size", "mallinfo",
}
C_LIBRARIES = {"Glibc", "Musl", "Darwin", "SwiftGlibc", "WASILibc", "ucrt"}
PLATFORM_FILE = "Platform.swift"
LINUX_ONLY = LINUX_ONLY_NAMES | LINUX_MODULES | (SERVER_SIDE - set(APP_SIDE))

# ---------------------------------------------------------------------------------------------------------------------
# (b) The Apple APIs Rampart calls, with the availability their headers declare.
#
# Security: the public headers of Apple's Security (apple-oss-distributions/Security, tag Security-61901.0.87.0.1, the
# headers the SDK's Security.framework/Headers ships; SecItem.h and SecTrust.h also checked against
# iPhoneOS18.0.sdk/System/Library/Frameworks/Security.framework/Headers in xybp888/iOS-SDKs). Versions are
# API_AVAILABLE's; where a header names only macos and ios, clang infers the others from ios (tvOS the same version,
# watchOS and visionOS mapped from it), which for these iOS 2–13 APIs is below every minimum here.
# DeviceCheck: iPhoneOS16.1.sdk/System/Library/Frameworks/DeviceCheck.framework/Headers/DCAppAttestService.h and
# DCError.h in xybp888/iOS-SDKs (API_AVAILABLE(macos(11.0), ios(14.0), tvos(15.0), watchos(9.0)); DCError: ios(11.0),
# macos(10.15), tvos(11.0), watchos(9.0)), unchanged in the iOS 18 SDK's. Before the iOS 16 SDK, DCAppAttestService.h
# said API_UNAVAILABLE(watchos) (phracker/MacOSX-SDKs MacOSX11.3.sdk/.../DeviceCheck.framework/Versions/A/Headers/).
# CryptoKit: iPhoneOS18.0.sdk/System/Library/Frameworks/CryptoKit.framework/Modules/CryptoKit.swiftmodule/
# arm64-apple-ios.swiftinterface (`@available` on each declaration).
# CoreFoundation: CoreFoundation.framework/Headers/CFError.h (CF_IMPLICIT_BRIDGING, macos(10.5), ios(2.0)).
#
# Each entry: name -> (framework, header, {platform: "major.minor" | None (unavailable)}, kind). Platforms a header
# leaves out are filled in by infer() below. kind "cf" marks values of a non-Sendable CF type (for (c)).
SEC = "Security.framework/Headers/"
_SEC_ITEM_2 = {"ios": "2.0", "macos": "10.6"}


def _keys(names, header, versions, kind="cf"):
    return {name: ("Security", SEC + header, versions, kind) for name in names.split()}


APIS = {}
APIS.update(_keys(
    "kSecClass kSecAttrAccount kSecAttrService kSecAttrGeneric kSecAttrLabel kSecAttrServer kSecAttrProtocol "
    "kSecAttrPort kSecAttrPath kSecAttrSecurityDomain kSecAttrAuthenticationType kSecAttrIssuer kSecAttrSerialNumber "
    "kSecAttrKeyClass kSecAttrApplicationLabel kSecAttrApplicationTag kSecAttrKeyType kSecAttrKeySizeInBits "
    "kSecAttrIsPermanent kSecAttrCreationDate kSecAttrModificationDate kSecClassInternetPassword "
    "kSecAttrProtocolFTP kSecAttrProtocolHTTP kSecAttrProtocolHTTPS kSecAttrProtocolSSH "
    "kSecAttrAuthenticationTypeDefault kSecAttrAuthenticationTypeHTMLForm kSecAttrAuthenticationTypeHTTPBasic "
    "kSecAttrAuthenticationTypeHTTPDigest kSecMatchLimit kSecMatchLimitAll kSecMatchLimitOne kSecReturnAttributes "
    "kSecReturnData kSecReturnPersistentRef kSecReturnRef kSecValueData kSecValuePersistentRef",
    "SecItem.h (keychain/headers/SecItem.h:53-995)", _SEC_ITEM_2))
APIS.update(_keys("kSecClassGenericPassword kSecClassCertificate kSecClassKey kSecAttrKeyClassPrivate "
                  "kSecAttrKeyClassPublic kSecAttrKeyTypeRSA", "SecItem.h (keychain/headers/SecItem.h:70-783)",
                  {"ios": "2.0", "macos": "10.7"}))
APIS.update(_keys("kSecAttrAccessible kSecAttrAccessibleWhenUnlocked kSecAttrAccessibleAfterFirstUnlock "
                  "kSecAttrAccessibleWhenUnlockedThisDeviceOnly kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly",
                  "SecItem.h (keychain/headers/SecItem.h:448-615)", {"ios": "4.0", "macos": "10.9"}))
APIS.update(_keys("kSecAttrAccessGroup", "SecItem.h (keychain/headers/SecItem.h:454)", {"ios": "3.0", "macos": "10.9"}))
APIS.update(_keys("kSecAttrSynchronizable kSecAttrSynchronizableAny", "SecItem.h (keychain/headers/SecItem.h:456-458)",
                  {"ios": "7.0", "macos": "10.9"}))
APIS.update(_keys("kSecAttrAccessControl kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly",
                  "SecItem.h (keychain/headers/SecItem.h:452, 611)", {"ios": "8.0", "macos": "10.10"}))
APIS.update(_keys("kSecAttrTokenID kSecAttrTokenIDSecureEnclave", "SecItem.h (keychain/headers/SecItem.h:550, 1096)",
                  {"ios": "9.0", "macos": "10.12"}))
APIS.update(_keys("kSecAttrKeyTypeECSECPrimeRandom", "SecItem.h (keychain/headers/SecItem.h:803)",
                  {"ios": "10.0", "macos": "10.12"}))
APIS.update(_keys("kSecUseDataProtectionKeychain", "SecItem.h (keychain/headers/SecItem.h:1055)",
                  {"ios": "13.0", "macos": "10.15"}))
APIS.update(_keys("SecItemAdd SecItemCopyMatching SecItemUpdate SecItemDelete",
                  "SecItem.h (keychain/headers/SecItem.h:1178-1278)", _SEC_ITEM_2, "function"))
APIS.update(_keys("kSecPrivateKeyAttrs", "SecKey.h (keychain/headers/SecKey.h:261)",
                  {"ios": "2.0", "macos": "10.8", "tvos": "4.0", "watchos": "1.0"}))
APIS.update(_keys("SecKeyCreateRandomKey SecKeyCreateWithData SecKeyCopyExternalRepresentation SecKeyCopyPublicKey "
                  "SecKeyCopyKeyExchangeResult", "SecKey.h (keychain/headers/SecKey.h:808-1571)",
                  {"ios": "10.0", "macos": "10.12", "tvos": "10.0", "watchos": "3.0"}, "function"))
APIS.update(_keys("SecKeyAlgorithm kSecKeyAlgorithmECDHKeyExchangeStandard",
                  "SecKey.h (keychain/headers/SecKey.h:1455)",
                  {"ios": "10.0", "macos": "10.12", "tvos": "10.0", "watchos": "3.0"}))
APIS.update(_keys("SecAccessControlCreateWithFlags", "SecAccessControl.h (keychain/headers/SecAccessControl.h:124)",
                  {"ios": "8.0", "macos": "10.10"}, "function"))
APIS.update(_keys("SecAccessControlCreateFlags", "SecAccessControl.h (keychain/headers/SecAccessControl.h:93)",
                  {"ios": "8.0", "macos": "10.10"}, "value"))
APIS.update(_keys("SecCertificateCreateWithData SecCertificateCopyData",
                  "SecCertificate.h (trust/headers/SecCertificate.h:76-87)", {"ios": "2.0", "macos": "10.6"},
                  "function"))
APIS.update(_keys("SecTrustSetAnchorCertificates", "SecTrust.h (trust/headers/SecTrust.h:302)",
                  {"ios": "2.0", "macos": "10.3"}, "function"))
APIS.update(_keys("SecTrustSetAnchorCertificatesOnly", "SecTrust.h (trust/headers/SecTrust.h:316)",
                  {"ios": "2.0", "macos": "10.6"}, "function"))
APIS.update(_keys("SecTrustEvaluateWithError", "SecTrust.h (trust/headers/SecTrust.h:426)",
                  {"ios": "12.0", "macos": "10.14", "tvos": "12.0", "watchos": "5.0"}, "function"))
APIS.update(_keys("SecTrustCopyCertificateChain", "SecTrust.h (trust/headers/SecTrust.h:656)",
                  {"ios": "15.0", "macos": "12.0", "tvos": "15.0", "watchos": "8.0"}, "function"))
# Types (CF_BRIDGED classes in Swift, not Sendable) and status codes (an untyped CF_ENUM(OSStatus): no availability).
APIS.update(_keys("SecKey SecCertificate SecTrust SecAccessControl SecPolicy SecIdentity",
                  "SecBase.h (base/SecBase.h: typedef struct CF_BRIDGED_TYPE(id) __Sec… *Sec…Ref)", {}))
APIS.update(_keys(
    "OSStatus errSecSuccess errSecUnimplemented errSecParam errSecUserCanceled errSecMissingEntitlement errSecNotAvailable errSecAuthFailed "
    "errSecDuplicateItem errSecItemNotFound errSecNoSuchAttr errSecInteractionNotAllowed errSecDecode "
    "errSecHostNameMismatch errSecCertificateExpired errSecCertificateNotValidYet",
    "SecBase.h (base/SecBase.h:326-628, CF_ENUM(OSStatus))", {}, "value"))
_CF = {"ios": "2.0", "macos": "10.5"}
for _name in "CFErrorGetCode CFErrorGetDomain CFErrorCopyDescription".split():
    APIS[_name] = ("Foundation", "CoreFoundation.framework/Headers/CFError.h", _CF, "function")
for _name in "CFString CFData CFDictionary CFArray CFError CFTypeRef CFNumber CFBoolean CFDate".split():
    APIS[_name] = ("Foundation", "CoreFoundation.framework/Headers/CFBase.h (CF_BRIDGED_TYPE classes)", {}, "cf")
for _name in "CFIndex CFOptionFlags".split():
    APIS[_name] = ("Foundation", "CoreFoundation.framework/Headers/CFBase.h (integer typedefs)", {}, "value")
_DC = "iPhoneOS16.1.sdk/System/Library/Frameworks/DeviceCheck.framework/Headers/"
APIS["DCAppAttestService"] = ("DeviceCheck", _DC + "DCAppAttestService.h",
                              {"ios": "14.0", "macos": "11.0", "tvos": "15.0", "watchos": "9.0"}, "class")
APIS["DCError"] = ("DeviceCheck", _DC + "DCError.h",
                   {"ios": "11.0", "macos": "10.15", "tvos": "11.0", "watchos": "9.0"}, "value")
APIS["DCDevice"] = ("DeviceCheck", _DC + "DCDevice.h",
                    {"ios": "11.0", "macos": "10.15", "tvos": "11.0", "watchos": "9.0"}, "class")
_CK = "CryptoKit.framework/Modules/CryptoKit.swiftmodule/arm64-apple-ios.swiftinterface (iOS 18 SDK)"
_CK13 = {"ios": "13.0", "macos": "10.15", "watchos": "6.0", "tvos": "13.0"}
for _name in ("SHA256 SHA384 SHA512 Insecure HMAC HashedAuthenticationCode SymmetricKey SymmetricKeySize AES "
              "ChaChaPoly P256 P384 P521 Curve25519 SharedSecret SecureEnclave CryptoKitError Digest").split():
    APIS[_name] = ("CryptoKit", _CK, _CK13, "value")
APIS["HKDF"] = ("CryptoKit", _CK, {"ios": "14.0", "macos": "11.0", "watchos": "7.0", "tvos": "14.0"}, "value")
for _name in "HPKE KEM".split():
    APIS[_name] = ("CryptoKit", _CK, {"ios": "17.0", "macos": "14.0", "watchos": "10.0", "tvos": "17.0"}, "value")
for _name in "MLKEM768 MLKEM1024 MLDSA65 MLDSA87 XWingMLKEM768X25519".split():
    APIS[_name] = ("CryptoKit", "CryptoKit.framework (iOS 26 SDK)",
                   {"ios": "26.0", "macos": "26.0", "watchos": "26.0", "tvos": "26.0", "visionos": "26.0"}, "value")
# SecAccessControlCreateFlags and SecKeyAlgorithm members, as Swift spells them.
MEMBERS = {
    ".userPresence": ("Security", SEC + "SecAccessControl.h (keychain/headers/SecAccessControl.h:94)",
                      {"ios": "8.0", "macos": "10.10"}),
    ".biometryAny": ("Security", SEC + "SecAccessControl.h (keychain/headers/SecAccessControl.h:95)",
                     {"ios": "11.3", "macos": "10.13.4"}),
    ".biometryCurrentSet": ("Security", SEC + "SecAccessControl.h (keychain/headers/SecAccessControl.h:97)",
                            {"ios": "11.3", "macos": "10.13.4"}),
    ".devicePasscode": ("Security", SEC + "SecAccessControl.h (keychain/headers/SecAccessControl.h:99)",
                        {"ios": "9.0", "macos": "10.11"}),
    ".companion": ("Security", SEC + "SecAccessControl.h (keychain/headers/SecAccessControl.h:101)",
                   {"ios": "18.0", "macos": "15.0", "tvos": None, "watchos": None, "visionos": None}),
    ".privateKeyUsage": ("Security", SEC + "SecAccessControl.h (keychain/headers/SecAccessControl.h:104)",
                         {"ios": "9.0", "macos": "10.12.1"}),
    ".ecdhKeyExchangeStandard": ("Security", SEC + "SecKey.h (keychain/headers/SecKey.h:1455)",
                                 {"ios": "10.0", "macos": "10.12", "tvos": "10.0", "watchos": "3.0"}),
}
# Names that must be in the table when a file imports the framework: an API missing from it fails (b).
UNLISTED = {
    "Security": re.compile(r"^(kSec|Sec|errSec)[A-Z]"),
    "DeviceCheck": re.compile(r"^DC[A-Z]"),
    "Foundation": re.compile(r"^k?CF[A-Z]"),
}
NON_SENDABLE_TYPE = re.compile(
    r"\b(CF(String|Data|Dictionary|Array|TypeRef|Error|Number|Boolean|Date|URL|Set|Mutable\w*|Allocator)"
    r"|Sec(Key|Certificate|Trust|AccessControl|Policy|Identity)|NSMutable\w+|NSDictionary|NSArray|NSSet"
    r"|LAContext|DCAppAttestService|DCDevice)\b")


def parse_version(text):
    """`"9"`, `"9.0"` and `"9.0.0"` as the same (major, minor, patch)."""
    parts = [int(part) for part in text.split(".")]
    return tuple((parts + [0, 0, 0])[:3])


def show(version):
    """A version as headers write it: 9.0, 10.13.4."""
    return ".".join(map(str, version[:2] if version[2] == 0 else version))


def infer(versions, platform):
    """The availability on `platform` of an entry: its header's, or clang's inference from iOS; None: unavailable."""
    if platform in versions:
        return None if versions[platform] is None else parse_version(versions[platform])
    ios = versions.get("ios")
    if "ios" in versions and ios is None:
        return None
    if not versions or ios is None:
        return (0, 0, 0)
    major = parse_version(ios)[0]
    if platform == "tvos":
        return parse_version(ios)
    if platform == "watchos":
        return (max(major - 7, 1), 0, 0)  # watchOS 2 came with iOS 9
    if platform == "visionos":
        return (1, 0, 0) if major <= 17 else (major - 16, 0, 0)  # visionOS 1 came with iOS 17
    return (0, 0, 0)


# ---------------------------------------------------------------------------------------------------------------------
# Reading Swift: blank comments and string literals (keeping interpolated code), then evaluate #if.

RAW_STRING_START = re.compile(r'#+"')
HASHES = re.compile(r"#*")
_MASKED = {}


def mask(text):
    """`text` with comments and string contents replaced by spaces (line breaks kept); interpolations stay code."""
    if text not in _MASKED:
        _MASKED[text] = _mask(text)
    return _MASKED[text]


def _mask(text):
    out = list(text)
    i, n = 0, len(text)
    stack = [("code", 0)]  # ("code", paren depth) or ("string", hashes, multiline)

    def blank(start, end):
        for k in range(start, end):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        state = stack[-1]
        c = text[i]
        if state[0] == "code":
            if text.startswith("//", i):
                end = text.find("\n", i)
                end = n if end < 0 else end
                blank(i, end)
                i = end
            elif text.startswith("/*", i):
                depth, j = 1, i + 2
                while j < n and depth:
                    if text.startswith("/*", j):
                        depth, j = depth + 1, j + 2
                    elif text.startswith("*/", j):
                        depth, j = depth - 1, j + 2
                    else:
                        j += 1
                blank(i, j)
                i = j
            elif c == '"' or (c == "#" and RAW_STRING_START.match(text, i)):
                hashes = len(HASHES.match(text, i).group(0))
                j = i + hashes
                multiline = text.startswith('"""', j)
                j += 3 if multiline else 1
                stack.append(("string", hashes, multiline))
                i = j
            elif c == "(" and len(stack) > 1:
                stack[-1] = ("code", state[1] + 1)
                i += 1
            elif c == ")" and len(stack) > 1:
                if state[1] == 0:
                    stack.pop()
                    out[i] = " "
                else:
                    stack[-1] = ("code", state[1] - 1)
                i += 1
            else:
                i += 1
        else:
            _, hashes, multiline = state
            close = ('"""' if multiline else '"') + "#" * hashes
            if c == "\\" and text.startswith("#" * hashes + "(", i + 1):
                blank(i, i + 2 + hashes)
                i += 2 + hashes
                stack.append(("code", 0))
            elif c == "\\" and hashes == 0:
                blank(i, min(i + 2, n))
                i += 2
            elif text.startswith(close, i):
                stack.pop()
                i += len(close)
            else:
                if c != "\n":
                    out[i] = " "
                i += 1
    return "".join(out)


class ConditionError(Exception):
    pass


def evaluate(condition, config):
    """The value of an `#if` condition under `config`; ConditionError when it cannot be known."""
    tokens = re.findall(r"&&|\|\||!|\(|\)|[A-Za-z_][A-Za-z_0-9]*\s*\([^()]*\)|[A-Za-z_][A-Za-z_0-9]*|\S", condition)
    position = 0

    def peek():
        return tokens[position] if position < len(tokens) else None

    def take():
        nonlocal position
        position += 1
        return tokens[position - 1]

    def primary():
        token = take()
        if token == "!":
            return not primary()
        if token == "(":
            value = disjunction()
            if take() != ")":
                raise ConditionError(f"unbalanced parentheses in `{condition}`")
            return value
        call = re.fullmatch(r"([A-Za-z_]+)\s*\((.*)\)", token)
        if call:
            return predicate(call.group(1), call.group(2).strip(), config, condition)
        if token in ("true", "false"):
            return token == "true"
        if re.fullmatch(r"[A-Za-z_][A-Za-z_0-9]*", token):
            return token in config["defines"]
        raise ConditionError(f"cannot read `{condition}`")

    def conjunction():
        value = primary()
        while peek() == "&&":
            take()
            right = primary()
            value = value and right
        return value

    def disjunction():
        value = conjunction()
        while peek() == "||":
            take()
            right = conjunction()
            value = value or right
        return value

    result = disjunction()
    if position != len(tokens):
        raise ConditionError(f"cannot read `{condition}`")
    return result


def predicate(name, argument, config, condition):
    if name == "canImport":
        module = argument.split(",")[0].strip()
        if module in config["importable"]:
            return True
        if module in config["not_importable"]:
            return False
        raise ConditionError(f"canImport({module}): not known to be present or absent on Apple platforms; add it to "
                             "APPLE_MODULES or LINUX_MODULES")
    if name == "os":
        return argument == config["os"]
    if name == "targetEnvironment":
        if argument == "simulator":
            return config["simulator"]
        if argument == "macCatalyst":
            return False
    if name in ("compiler", "swift"):
        match = re.fullmatch(r"(>=|<)\s*([0-9.]+)", argument)
        if match:
            version = parse_version(match.group(2))
            return COMPILER_VERSION >= version if match.group(1) == ">=" else COMPILER_VERSION < version
    if name == "arch":
        if argument in ("arm64", "arm64_32", "x86_64"):
            raise ConditionError("arch(…) differs between devices and simulators; use targetEnvironment or os")
    raise ConditionError(f"cannot evaluate {name}({argument}) in `{condition}`")


def active_lines(masked, config):
    """[(line number, code)] of the lines `config`'s compiler compiles, and the directive errors."""
    lines = masked.split("\n")
    result, errors = [], []
    stack = []  # (this branch active, some branch taken, parent active)
    active = True
    for number, line in enumerate(lines, 1):
        stripped = line.strip()
        directive = re.match(r"#(if|elseif|else|endif)\b(.*)", stripped)
        if directive:
            kind, rest = directive.group(1), directive.group(2).strip()
            try:
                if kind == "if":
                    value = evaluate(rest, config) if active else False
                    stack.append((value, value, active))
                    active = active and value
                elif kind == "elseif":
                    _, taken, parent = stack[-1]
                    value = (not taken) and parent and evaluate(rest, config)
                    stack[-1] = (value, taken or value, parent)
                    active = parent and value
                elif kind == "else":
                    _, taken, parent = stack[-1]
                    stack[-1] = (not taken, True, parent)
                    active = parent and not taken
                else:
                    stack.pop()
                    active = stack[-1][0] and stack[-1][2] if stack else True
            except ConditionError as error:
                errors.append((number, str(error)))
                if kind == "if":
                    stack.append((False, True, active))
                else:
                    stack[-1] = (False, True, stack[-1][2])
                active = False
            except IndexError:
                errors.append((number, f"#{kind} without #if"))
            continue
        if active:
            result.append((number, line))
    return result, errors


# ---------------------------------------------------------------------------------------------------------------------
# The checks.

IMPORT = re.compile(r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|fileprivate|private)\s+)?import\s+"
                    r"(?:(?:typealias|struct|class|enum|protocol|let|var|func)\s+)?([A-Za-z_][A-Za-z_0-9]*)")
TOKEN = re.compile(r"@available\s*\(|#available\s*\(|#unavailable\s*\(|\.[A-Za-z_][A-Za-z_0-9]*|[A-Za-z_][A-Za-z_0-9]*"
                   r"|[{}()]|#error\b")
_PROPERTY = r"(let|var)\s+([A-Za-z_][A-Za-z_0-9]*)\s*(?::\s*([^={]+))?(=|\{)?(.*)"
STATIC_PROPERTY = re.compile(r"(?:(nonisolated\(unsafe\))\s+)?\b(?:static|class)\s+(?:(nonisolated\(unsafe\))\s+)?"
                             + _PROPERTY)
GLOBAL_PROPERTY = re.compile(r"(?:(?:public|package|internal|fileprivate|private|@\w+)\s+)*"
                             r"(nonisolated\(unsafe\)\s+)?()" + _PROPERTY)
DECLARATION = re.compile(r"\b(class|struct|enum|actor|protocol|typealias)\s+([A-Za-z_][A-Za-z_0-9]*)")


def availability_arguments(code, start):
    """The `platform: version` pairs of the `(…)` at `start` (just after its open parenthesis) and where it ends."""
    depth, end = 1, start
    while end < len(code) and depth:
        depth += {"(": 1, ")": -1}.get(code[end], 0)
        end += 1
    pairs = {}
    for item in code[start:end - 1].split(","):
        match = re.fullmatch(r"\s*(iOS|macOS|tvOS|watchOS|visionOS|macCatalyst)(?:ApplicationExtension)?\s+([0-9.]+)\s*",
                             item)
        if match:
            platform = match.group(1).lower()
            if platform in PLATFORM_NAMES:
                pairs[platform] = parse_version(match.group(2))
    return pairs, end


def own_availability(files):
    """Rampart's own types declared with `@available`: name -> {platform: version}."""
    found = {}
    for text in files.values():
        code = mask(text)
        for match in re.finditer(r"@available\s*\(", code):
            pairs, end = availability_arguments(code, match.end())
            declaration = DECLARATION.search(code, end, end + 400)
            between = code[end:declaration.start()] if declaration else ""
            if declaration and "{" not in between and "\n\n" not in between and pairs:
                found[declaration.group(2)] = pairs
    return found


def check_file(path, text, module, config, minimums, own, report, seen=None):
    platform = config["platform"]
    masked = mask(text)
    lines, errors = active_lines(masked, config)
    for number, message in errors:
        report(path, number, "#if", message)
    # Another configuration of the platform (simulator, DEBUG) that compiles the same lines finds the same problems.
    if seen is not None:
        key = (path, platform, tuple(number for number, _ in lines))
        if key in seen:
            return
        seen.add(key)
    code = "\n".join(line for _, line in lines)
    numbers = [number for number, _ in lines]
    offsets, total = [], 0
    for _, line in lines:
        offsets.append(total)
        total += len(line) + 1

    def line_of(offset):
        low, high = 0, len(offsets) - 1
        while low < high:
            middle = (low + high + 1) // 2
            if offsets[middle] <= offset:
                low = middle
            else:
                high = middle - 1
        return numbers[low] if numbers else 0

    imports = set()
    for number, line in lines:
        match = IMPORT.match(line)
        if not match:
            continue
        imported = match.group(1)
        imports.add(imported)
        if imported not in config["importable"]:
            report(path, number, "a", f"imports {imported}, which an Apple build cannot import")

    # (a) Linux-only names.
    for match in re.finditer(r"(?<![.\w])[A-Za-z_][A-Za-z_0-9]*", code):
        if match.group(0) in LINUX_ONLY:
            report(path, line_of(match.start()), "a",
                   f"`{match.group(0)}` is Linux-only, and an Apple build compiles this line")
    for match in re.finditer(r"#error\b", code):
        report(path, line_of(match.start()), "a", "an #error that an Apple build compiles")

    # (b) Availability, scope by scope.
    minimum = minimums[platform]
    frameworks = imports & {"Security", "DeviceCheck", "CryptoKit", "Foundation"}
    if "Security" in frameworks or "DeviceCheck" in frameworks:
        frameworks.add("Foundation")
    scopes = [{}]  # cover per open brace
    pending = None  # cover waiting for the next `{` (an attribute or `if #available`)
    guard_cover, guard_depth, guard_seen_else = None, None, False
    for match in TOKEN.finditer(code):
        token = match.group(0)
        if token.startswith("@available") or token.startswith("#available"):
            pairs, _ = availability_arguments(code, match.end())
            merged = dict(pending or {})
            merged.update(pairs)
            if token.startswith("#available") and re.search(r"\bguard\s*$", code[max(0, match.start() - 40):match.start()]):
                guard_cover, guard_depth, guard_seen_else = pairs, len(scopes), False
            else:
                pending = merged
            continue
        if token == "{":
            cover = dict(scopes[-1])
            for key, value in (pending or {}).items():
                cover[key] = max(cover.get(key, (0, 0, 0)), value)
            scopes.append(cover)
            pending = None
            continue
        if token == "}":
            if len(scopes) > 1:
                scopes.pop()
            pending = None
            if guard_cover is not None and len(scopes) == guard_depth and guard_seen_else:
                for key, value in guard_cover.items():
                    scopes[-1][key] = max(scopes[-1].get(key, (0, 0, 0)), value)
                guard_cover = None
            continue
        if token == "else" and guard_cover is not None and len(scopes) == guard_depth:
            guard_seen_else = True
            continue
        entry = None
        if token.startswith("."):
            member = MEMBERS.get(token)
            if member and member[0] in frameworks:
                entry = (token, member[1], member[2])
            qualified = token[1:] in APIS and code[max(0, match.start() - 12):match.start()].endswith(
                APIS[token[1:]][0])
            if qualified:
                entry = (token, APIS[token[1:]][1], APIS[token[1:]][2])
        elif token in APIS and APIS[token][0] in frameworks:
            entry = (token, APIS[token][1], APIS[token][2])
        elif token in own:
            entry = (token, f"its own @available in {module}", {k: show(v) for k, v in own[token].items()})
        else:
            for framework in frameworks:
                pattern = UNLISTED.get(framework)
                if pattern and pattern.match(token) and token not in APIS:
                    report(path, line_of(match.start()), "b",
                           f"`{token}` ({framework}) is not in the availability table: add it to APIS with its "
                           "header's API_AVAILABLE")
                    break
        if entry is None:
            continue
        cover = dict(scopes[-1])
        for key, value in (pending or {}).items():
            cover[key] = max(cover.get(key, (0, 0, 0)), value)
        have = max(minimum, cover.get(platform, (0, 0, 0)))
        name, header, versions = entry
        needed = infer(versions, platform) if token not in own else own[token].get(platform, (0, 0, 0))
        where = f"{PLATFORM_NAMES[platform]} {show(minimum)}"
        if needed is None:
            report(path, line_of(match.start()), "b",
                   f"`{name.lstrip('.')}` is unavailable on {PLATFORM_NAMES[platform]} ({header}); "
                   "exclude it with #if os(…)")
        elif needed > have:
            report(path, line_of(match.start()), "b",
                   f"`{name.lstrip('.')}` needs {PLATFORM_NAMES[platform]} {show(needed)} ({header}) "
                   f"and the package declares {where}: add @available({PLATFORM_NAMES[platform]} "
                   f"{show(needed)}, *) or an `if #available` check, or raise the minimum")

    # (c) Static and global stored properties of non-Sendable Apple types.
    depth = 0
    for number, line in lines:
        stripped = line.strip()
        at_top = depth == 0
        depth += line.count("{") - line.count("}")
        match = STATIC_PROPERTY.search(stripped)
        if not match and at_top:
            match = GLOBAL_PROPERTY.match(stripped)
        if not match:
            continue
        name, annotation, opener, rest = match.group(4), match.group(5), match.group(6), match.group(7)
        if opener == "{":
            continue  # computed
        if match.group(1) or match.group(2):
            report(path, number, "c", f"`{name}` is nonisolated(unsafe): give it a Sendable type instead")
            continue
        if annotation and NON_SENDABLE_TYPE.search(annotation):
            report(path, number, "c",
                   f"static `{name}: {annotation.strip()}` holds {NON_SENDABLE_TYPE.search(annotation).group(0)}, "
                   "not Sendable on Apple platforms; store a Sendable value (e.g. `as String`) or make it computed")
        elif not annotation and opener == "=":
            for value in re.findall(r"(?<![\w.])[A-Za-z_][A-Za-z_0-9]*\b(?!\s+as\s+(?:String|Int|Bool)\b)", rest):
                if value in APIS and APIS[value][3] in ("cf", "class") and APIS[value][0] in frameworks:
                    report(path, number, "c",
                           f"static `{name}` is initialised with {value}, a non-Sendable CF value on Apple platforms; "
                           "give it a Sendable type")
                    break


def check_structure(path, text, report):
    """A C library named outside the module's Platform.swift (whatever the #if around it)."""
    if os.path.basename(path) == PLATFORM_FILE:
        return
    code = mask(text)
    for number, line in enumerate(code.split("\n"), 1):
        for name in re.findall(r"(?<![.\w])(Glibc|Musl|Darwin|SwiftGlibc|WASILibc)\b", line):
            report(path, number, "a", f"names {name} outside its module's {PLATFORM_FILE}: put the call there")


def configs_for(platform, module_names):
    importable = APPLE_MODULES | APPLE_MODULES_BY_PLATFORM[platform] | set(module_names)
    not_importable = (LINUX_MODULES | SERVER_SIDE | set().union(*APPLE_MODULES_BY_PLATFORM.values())) - importable
    for simulator in ([False] if platform == "macos" else [False, True]):
        for debug in (False, True):
            yield {
                "platform": platform, "os": SWIFT_OS[platform], "simulator": simulator,
                "defines": {"DEBUG"} if debug else set(), "importable": importable, "not_importable": not_importable,
            }


def run(modules, minimums):
    """modules: {module: (platforms, {path: text})}. Returns the failures as sorted lines."""
    failures = {}

    def report_for(platform):
        def report(path, number, kind, message):
            failures.setdefault((path, number, kind, message), set()).add(platform)
        return report

    own = {}
    for _, files in modules.values():
        own.update(own_availability(files))
    seen = set()
    for module, (platforms, files) in modules.items():
        for path, text in files.items():
            check_structure(path, text, report_for("all"))
            for platform in platforms:
                for config in configs_for(platform, modules.keys()):
                    check_file(path, text, module, config, minimums, own, report_for(platform), seen)
    lines = []
    for (path, number, kind, message), platforms in sorted(failures.items()):
        names = "every platform" if "all" in platforms else ", ".join(
            PLATFORM_NAMES[p] for p in PLATFORM_NAMES if p in platforms)
        lines.append(f"{path}:{number}: ({kind}) {message} [{names}]")
    return lines


def declared_minimums(package):
    match = re.search(r"\bplatforms:\s*\[(\s*\.(?:iOS|macOS|tvOS|watchOS|visionOS)\([^\]]*)\]", package)
    minimums = {}
    for name, version in re.findall(r"\.(iOS|macOS|tvOS|watchOS|visionOS)\(\.v([0-9_]+)\)", match.group(1)):
        minimums[name.lower()] = parse_version(version.replace("_", "."))
    return minimums


def module_directory(package, module):
    match = re.search(r'name:\s*"' + re.escape(module) + r'"(.*?)(?=\n\s*\.(?:target|testTarget|executableTarget|'
                      r'systemLibrary)\(|\n\s*\]\s*\)\s*$)', package, re.S)
    path = re.search(r'path:\s*"([^"]+)"', match.group(1)) if match else None
    return os.path.join(ROOT, path.group(1) if path else os.path.join("Sources", module))


def load_package():
    with open(os.path.join(ROOT, "Package.swift"), encoding="utf-8") as handle:
        package = handle.read()
    minimums = declared_minimums(package)
    modules = {}
    for module in APP_SIDE:
        directory = module_directory(package, module)
        files = {}
        for folder, _, names in os.walk(directory):
            for name in sorted(names):
                if name.endswith(".swift"):
                    full = os.path.join(folder, name)
                    with open(full, encoding="utf-8") as handle:
                        files[os.path.relpath(full, ROOT)] = handle.read()
        platforms = MODULE_PLATFORMS.get(module, list(minimums))
        modules[module] = ([p for p in platforms if p in minimums], files)
    return modules, minimums


# ---------------------------------------------------------------------------------------------------------------------
# Self-test: fixtures that must fail for each reason (the three of issue #26 among them), and one that must pass.

FIXTURE_MINIMUMS = {p: parse_version(v) for p, v in
                    {"ios": "15", "macos": "12", "tvos": "15", "watchos": "8", "visionos": "1"}.items()}
FIXTURES = {
    # SealedFile.swift before the fix: Glibc.open outside any #if.
    "glibc-call": ("a", '''
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
func openForReading(_ path: String) -> Int32 { Glibc.open(path, O_RDONLY) }
'''),
    "linux-only-call": ("a", '''
import Foundation
func wipe(_ p: UnsafeMutableRawPointer, _ n: Int) { explicit_bzero(p, n) }  // "explicit_bzero" in a comment is fine
'''),
    "interpolated-call": ("a", '''
import Foundation
let text = "failed: \\(String(cString: strerror(errno))) \\(SOCK_CLOEXEC)"
'''),
    "simulation-import": ("a", '''
#if canImport(Security) || true
import RampartAppleSimulation
#endif
'''),
    # DeviceCheckAppAttestDevice before the fix: DeviceCheck on watchOS 8.
    "unguarded-devicecheck": ("b", '''
import DeviceCheck
public final class Device {
    public var isSupported: Bool { DCAppAttestService.shared.isSupported }
}
'''),
    "own-type-unguarded-extension": ("b", '''
import DeviceCheck
@available(watchOS 9, *)
public final class Device {
    public var isSupported: Bool { DCAppAttestService.shared.isSupported }
}
extension Device: Sendable {}
'''),
    "newer-cryptokit": ("b", '''
import CryptoKit
func suite() -> Any { HPKE.Ciphersuite.P256_SHA256_AES_GCM_256 }
'''),
    "unlisted-security-api": ("b", '''
import Security
func copy(_ t: SecTrust) -> Any? { SecTrustCopyResult(t) }
'''),
    # KeychainStore+Attributes.swift before the fix: static tables of CFString.
    "cf-static": ("c", '''
import Security
enum Tables {
    static let protocols: [(String, CFString)] = [("https", kSecAttrProtocolHTTPS)]
}
'''),
    "cf-static-untyped": ("c", '''
import Security
enum Tables { static let https = kSecAttrProtocolHTTPS }
'''),
    "unknown-condition": ("#if", '''
#if canImport(SomethingNobodyKnows)
import Foundation
#endif
'''),
    "passes": (None, '''
#if canImport(Glibc)
import Glibc
#endif
import DeviceCheck
import Security
import CryptoKit
// Glibc.open(path) in a comment, and "explicit_bzero" in a string, are not code.
let note = """
    Glibc \\(1 + 1) explicit_bzero
    """
enum Tables {
    static let protocols: [(String, String)] = [("https", kSecAttrProtocolHTTPS as String)]
    static var keyType: CFString { kSecAttrKeyTypeECSECPrimeRandom }
}
@available(watchOS 9, *)
public final class Device {
    public var isSupported: Bool { DCAppAttestService.shared.isSupported }
}
@available(watchOS 9, *)
extension Device: Sendable {}
func make() -> Bool {
    guard #available(watchOS 9, *) else { return false }
    return DCAppAttestService.shared.isSupported
}
func chain(_ trust: SecTrust) -> Any? { SecTrustCopyCertificateChain(trust) }
func digest() -> Any { SHA256.hash(data: [1, 2, 3]) }
#if os(Linux)
func linux() { explicit_bzero(nil, 0) }
#endif
'''),
}


def self_test():
    problems = []
    for name, (expected, text) in FIXTURES.items():
        path = f"Platform.swift" if name == "passes" else f"{name}.swift"
        lines = run({"Fixture": (list(FIXTURE_MINIMUMS), {path: text})}, FIXTURE_MINIMUMS)
        kinds = {re.search(r": \((\S+)\) ", line).group(1) for line in lines}
        if expected is None and lines:
            problems.append(f"fixture {name} should pass but failed: {lines}")
        elif expected is not None and kinds != {expected}:
            problems.append(f"fixture {name} should fail with ({expected}) only, got {sorted(kinds) or 'a pass'}: "
                            f"{lines}")
    if "passes" in FIXTURES:
        structure = run({"Fixture": (["ios"], {"Other.swift": FIXTURES["passes"][1]})}, FIXTURE_MINIMUMS)
        if not any("outside its module's Platform.swift" in line for line in structure):
            problems.append("a C library named outside Platform.swift was not reported")
    watch = [line for line in run({"Fixture": (list(FIXTURE_MINIMUMS), {"d.swift": FIXTURES["unguarded-devicecheck"][1]})},
                                  FIXTURE_MINIMUMS)]
    if not watch or not all("[watchOS]" in line for line in watch):
        problems.append(f"DeviceCheck should fail on watchOS 8 only: {watch}")
    for problem in problems:
        print(f"check-apple-build: self-test: {problem}", file=sys.stderr)
    if not problems:
        print(f"check-apple-build: self-test: {len(FIXTURES)} fixtures behave as expected")
    return not problems


def main(arguments):
    if not self_test():
        return 1
    if "--self-test" in arguments:
        return 0
    modules, minimums = load_package()
    failures = run(modules, minimums)
    for line in failures:
        print(f"check-apple-build: {line}", file=sys.stderr)
    count = sum(len(files) for _, files in modules.values())
    declared = ", ".join(f"{PLATFORM_NAMES[p]} {show(v)}" for p, v in minimums.items())
    if failures:
        print(f"check-apple-build: {len(failures)} problems in {count} files of {len(modules)} app-side modules "
              f"({declared})", file=sys.stderr)
        return 1
    print(f"check-apple-build: {count} files of {len(modules)} app-side modules compile for {declared}: no Linux-only "
          "name, every Apple API covered, no non-Sendable static")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
