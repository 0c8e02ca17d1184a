// swift-tools-version:6.1
import PackageDescription

/// Every Swift target gets the same upcoming features (STYLE 1.1).
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

/// System libraries exist on Linux only: on Apple platforms the app-side modules use CryptoKit and Security instead,
/// and the server-side modules are not built for an app (DESIGN.md, STYLE 2.1).
let linux = TargetDependencyCondition.when(platforms: [Platform.linux])

let package = Package(
    name: "Rampart",
    platforms: [.iOS(.v15), .macOS(.v12), .tvOS(.v15), .watchOS(.v8), .visionOS(.v1)],
    products: [
        // Shared by the app and the server (no system library on Apple platforms).
        .library(name: "RampartASN1", targets: ["RampartASN1"]),
        .library(name: "RampartCrypto", targets: ["RampartCrypto"]),
        .library(name: "RampartX509", targets: ["RampartX509"]),
        .library(name: "RampartPinning", targets: ["RampartPinning"]),
        .library(name: "RampartRequestSigning", targets: ["RampartRequestSigning"]),
        .library(name: "RampartSecretStore", targets: ["RampartSecretStore"]),
        .library(name: "RampartSeal", targets: ["RampartSeal"]),
        .library(name: "RampartAttestClient", targets: ["RampartAttestClient"]),
        // App only.
        .library(name: "RampartApple", targets: ["RampartApple"]),
        // Server and tools.
        .library(name: "RampartChainVerification", targets: ["RampartChainVerification"]),
        .library(name: "RampartTLS", targets: ["RampartTLS"]),
        .library(name: "RampartAppAttest", targets: ["RampartAppAttest"]),
        .library(name: "RampartKeyAttestation", targets: ["RampartKeyAttestation"]),
        .library(name: "RampartJOSE", targets: ["RampartJOSE"]),
        .library(name: "RampartAttestSimulation", targets: ["RampartAttestSimulation"]),
        .library(name: "RampartHTTP", targets: ["RampartHTTP"]),
        .library(name: "RampartAttestService", targets: ["RampartAttestService"]),
        .library(name: "RampartVault", targets: ["RampartVault"]),
        .library(name: "RampartAudit", targets: ["RampartAudit"]),
        .executable(name: "rampart", targets: ["rampart"]),
        .executable(name: "rampart-service", targets: ["rampart-service"]),
        .executable(name: "rampart-bench", targets: ["rampart-bench"]),
        .executable(name: "rampart-load", targets: ["rampart-load"]),
        .executable(name: "rampart-limbo", targets: ["rampart-limbo"]),
    ],
    targets: [
        // MARK: C libraries (Debian packages, linked from the system; Linux only)
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CPostgres", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        // Socket and epoll calls Swift's Glibc module cannot reach (the service's event loop and rampart-load's).
        .systemLibrary(name: "CNetwork", path: "Sources/CNetwork"),
        // libsecret is dlopened when the Secret Service backend is first used (Sources/CSecret/shim.h): no pkg-config
        // flags, so no command maps it (and GLib) at start.
        .systemLibrary(name: "CSecret", providers: [.apt(["libsecret-1-0"])]),
        .systemLibrary(name: "CArgon2", pkgConfig: "libargon2", providers: [.apt(["libargon2-dev"])]),

        // MARK: Shared libraries (app and server)
        // The leaf under every key and certificate: the one PEM codec. Foundation only, no C library.
        .target(name: "RampartASN1", swiftSettings: swiftSettings),
        .target(
            name: "RampartCrypto",
            dependencies: [
                "RampartASN1", .target(name: "COpenSSL", condition: linux), .target(name: "CArgon2", condition: linux),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "RampartX509",
            dependencies: ["RampartASN1", "RampartCrypto", .target(name: "COpenSSL", condition: linux)],
            swiftSettings: swiftSettings
        ),
        .target(name: "RampartPinning", dependencies: ["RampartCrypto", "RampartX509"], swiftSettings: swiftSettings),
        .target(name: "RampartRequestSigning", dependencies: ["RampartCrypto"], swiftSettings: swiftSettings),
        .target(name: "RampartSecretStore", dependencies: ["RampartCrypto"], swiftSettings: swiftSettings),
        .target(
            name: "RampartSeal",
            dependencies: ["RampartCrypto", "RampartSecretStore"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "RampartAttestClient",
            dependencies: ["RampartCrypto", "RampartRequestSigning", "RampartSecretStore"],
            swiftSettings: swiftSettings
        ),

        // MARK: App-only library (Security, DeviceCheck, CryptoKit on Apple; the simulation of them on Linux)
        .target(
            name: "RampartApple",
            dependencies: [
                "RampartCrypto", "RampartX509", "RampartPinning", "RampartSecretStore", "RampartAttestClient",
                "RampartRequestSigning", "RampartSeal", .target(name: "RampartAppleSimulation", condition: linux),
            ],
            swiftSettings: swiftSettings
        ),
        // The example iOS app's logic (Examples/iOSApp): compiled here against the simulation, tested against rampart serve.
        .target(
            name: "RampartPointsCore",
            dependencies: [
                "RampartApple", "RampartAttestClient", "RampartPinning", "RampartSecretStore", "RampartRequestSigning",
            ],
            path: "Examples/iOSApp/Sources/Core",
            swiftSettings: swiftSettings
        ),
        // The example app's SwiftUI screens and pinned transport (Examples/iOSApp/Sources/App): built with the Apple
        // products (behind canImport(SwiftUI)/canImport(Security), so nothing of them is left on Linux).
        .target(
            name: "RampartPointsApp",
            dependencies: ["RampartPointsCore", "RampartApple", "RampartAttestClient"],
            path: "Examples/iOSApp/Sources/App",
            swiftSettings: swiftSettings
        ),
        // Linux only: Apple's declarations as documented, implemented over the Linux modules.
        .target(
            name: "RampartAppleSimulation",
            dependencies: [
                "RampartCrypto", "RampartX509", "RampartChainVerification", "RampartAppAttest", "RampartSecretStore",
            ],
            swiftSettings: swiftSettings
        ),

        // Linux only, test machinery: RampartCrypto's neutral sources and its `*_cryptokit.swift` backend (symlinks to
        // the same files) compiled over RampartAppleSimulation's CryptoKit, so the Wycheproof vectors run against the
        // CryptoKit backend on Linux too. No product exposes it.
        .target(
            name: "RampartCryptoKitBackend",
            dependencies: ["RampartASN1", "RampartAppleSimulation"],
            swiftSettings: swiftSettings + [.define("RAMPART_CRYPTOKIT_BACKEND")]
        ),

        // MARK: Server and tools libraries
        .target(
            name: "RampartChainVerification",
            dependencies: [
                "RampartCrypto", "RampartX509", "RampartPinning", .target(name: "COpenSSL", condition: linux),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "RampartTLS",
            dependencies: ["RampartCrypto", "RampartChainVerification", .target(name: "COpenSSL", condition: linux)],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "RampartSQLite",
            dependencies: ["RampartCrypto", .target(name: "CSQLite", condition: linux)],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "RampartPostgres",
            dependencies: ["RampartSQLite", .target(name: "CPostgres", condition: linux)],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "RampartAppAttest",
            dependencies: [
                "RampartCrypto", "RampartX509", "RampartChainVerification", .target(name: "COpenSSL", condition: linux),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "RampartKeyAttestation",
            dependencies: ["RampartCrypto", "RampartX509", "RampartAppAttest"],
            swiftSettings: swiftSettings
        ),
        // JWS, JWK, JWKS and the one strict base64url codec: session JWTs and access tokens.
        .target(
            name: "RampartJOSE",
            dependencies: ["RampartCrypto", "RampartRequestSigning", "RampartX509"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "RampartAttestSimulation",
            dependencies: [
                "RampartAppAttest", "RampartAttestClient", "RampartKeyAttestation", "RampartX509", "RampartCrypto",
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "RampartHTTP",
            dependencies: ["RampartCrypto", .target(name: "CNetwork", condition: linux)],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "RampartAttestService",
            dependencies: [
                "RampartCrypto", "RampartX509", "RampartAppAttest", "RampartRequestSigning", "RampartSQLite",
                "RampartJOSE",
                "RampartHTTP", .target(name: "RampartPostgres", condition: linux),
                .target(name: "CNetwork", condition: linux),
                "RampartKeyAttestation",
            ],
            exclude: ["OpenAPI/openapi.json"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "RampartVault",
            dependencies: [
                "RampartCrypto", "RampartSecretStore", "RampartSQLite", .target(name: "CSecret", condition: linux),
            ],
            swiftSettings: swiftSettings
        ),
        .target(name: "RampartAudit", dependencies: ["RampartPinning"], swiftSettings: swiftSettings),
        // What rampart-load prints and rampart-bench service reads (one type for both executables; not a product).
        .target(name: "RampartLoadReport", swiftSettings: swiftSettings),
        // The CLI without the service's libraries: `rampart` links only this, and forwards serve, routes, demo and
        // device to `rampart-service` (Sources/RampartCLI/ForwardedCommands.swift), so that no command maps libpq or
        // libcurl at start.
        .target(
            name: "RampartCLI",
            dependencies: [
                "RampartCrypto", "RampartX509", "RampartPinning", "RampartChainVerification", "RampartTLS",
                "RampartSecretStore", "RampartVault", "RampartSeal", "RampartAppAttest", "RampartAudit",
                "RampartKeyAttestation",
            ],
            swiftSettings: swiftSettings
        ),
        // The commands that need the service's libraries, and the whole command set `rampart-service` runs.
        .target(
            name: "RampartServiceCLI",
            dependencies: [
                "RampartCLI", "RampartCrypto", "RampartX509", "RampartAttestService", "RampartAttestClient",
                "RampartAttestSimulation", "RampartRequestSigning", "RampartSecretStore", "RampartAppAttest",
                "RampartKeyAttestation",
            ],
            swiftSettings: swiftSettings
        ),

        // MARK: Executables
        // `rampart` runs `rampart-service` (built beside it: `swift build`, scripts/build-release.sh) and never links
        // it; a target dependency on it would link all of its modules into `rampart`.
        .executableTarget(name: "rampart", dependencies: ["RampartCLI"], swiftSettings: swiftSettings),
        .executableTarget(name: "rampart-service", dependencies: ["RampartServiceCLI"], swiftSettings: swiftSettings),
        .executableTarget(
            name: "rampart-bench",
            dependencies: [
                "RampartCrypto", "RampartX509", "RampartPinning", "RampartChainVerification", "RampartAttestService",
                "RampartVault", "RampartSeal", "RampartAppAttest", "RampartAttestClient", "RampartAttestSimulation",
                "RampartRequestSigning", "RampartSecretStore", "RampartAudit", "RampartLoadReport",
                "RampartKeyAttestation",
            ],
            swiftSettings: swiftSettings
        ),
        // The load generator `rampart-bench service` starts against `rampart serve` (and users can run on its own).
        .executableTarget(
            name: "rampart-load",
            dependencies: [
                "RampartAppAttest", "RampartCrypto", "RampartRequestSigning", "RampartLoadReport",
                .target(name: "CNetwork", condition: linux),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "rampart-limbo",
            dependencies: ["RampartX509", "RampartChainVerification"],
            swiftSettings: swiftSettings
        ),

        // MARK: Fuzz targets (scripts/fuzz.sh builds them with -sanitize=fuzzer,address -DFUZZING; a plain build
        // gives replay tools: `swift run FuzzDER crash-file...`)
        .target(name: "CLibFuzzer", path: "Fuzz/CLibFuzzer"),
        .target(
            name: "FuzzSupport", dependencies: ["CLibFuzzer"], path: "Fuzz/FuzzSupport", swiftSettings: swiftSettings),
        .executableTarget(
            name: "FuzzDER",
            dependencies: ["FuzzSupport", "RampartASN1"],
            path: "Fuzz/FuzzDER",
            exclude: ["Seeds"],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "FuzzPEM",
            dependencies: ["FuzzSupport", "RampartASN1", "RampartX509"],
            path: "Fuzz/FuzzPEM",
            exclude: ["Seeds"],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "FuzzPinConfiguration",
            dependencies: ["FuzzSupport", "RampartPinning"],
            path: "Fuzz/FuzzPinConfiguration",
            exclude: ["Seeds", "lsan.supp"],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "FuzzCertificate",
            dependencies: ["FuzzSupport", "RampartX509"],
            path: "Fuzz/FuzzCertificate",
            exclude: ["Seeds"],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "FuzzSealHeader",
            dependencies: ["FuzzSupport", "RampartSeal", "RampartCrypto"],
            path: "Fuzz/SealHeader",
            exclude: ["Seeds"],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "FuzzVaultFile",
            dependencies: ["FuzzSupport", "RampartVault", "RampartCrypto"],
            path: "Fuzz/VaultFile",
            exclude: ["Seeds"],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "FuzzPublicKey",
            dependencies: ["FuzzSupport", "RampartCrypto"],
            path: "Fuzz/FuzzPublicKey",
            exclude: ["Seeds"],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "FuzzServiceRouter",
            dependencies: ["FuzzSupport", "RampartAttestService", "RampartAppAttest", "RampartRequestSigning"],
            path: "Fuzz/FuzzServiceRouter",
            exclude: ["Seeds"],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "FuzzRequestHead",
            dependencies: ["FuzzSupport", "RampartHTTP"],
            path: "Fuzz/FuzzRequestHead",
            exclude: ["Seeds"],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "FuzzSignedPinSet",
            dependencies: ["FuzzSupport", "RampartPinning", "RampartCrypto"],
            path: "Fuzz/FuzzSignedPinSet",
            exclude: ["Seeds"],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "FuzzJWS",
            dependencies: ["FuzzSupport", "RampartAttestService", "RampartCrypto", "RampartJOSE"],
            path: "Fuzz/FuzzJWS",
            exclude: ["Seeds"],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "FuzzJSON",
            dependencies: ["FuzzSupport", "RampartRequestSigning"],
            path: "Fuzz/FuzzJSON",
            exclude: ["Seeds"],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "FuzzSwiftLexer",
            dependencies: ["FuzzSupport", "RampartAudit"],
            path: "Fuzz/FuzzSwiftLexer",
            exclude: ["Seeds"],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "FuzzObjectiveCLexer",
            dependencies: ["FuzzSupport", "RampartAudit"],
            path: "Fuzz/FuzzObjectiveCLexer",
            exclude: ["Seeds"],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "FuzzCBOR",
            dependencies: ["FuzzSupport", "RampartAppAttest"],
            path: "Fuzz/FuzzCBOR",
            exclude: ["Seeds"],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "FuzzAuthenticatorData",
            dependencies: ["FuzzSupport", "RampartAppAttest"],
            path: "Fuzz/FuzzAuthenticatorData",
            exclude: ["Seeds"],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "FuzzKeyDescription",
            dependencies: ["FuzzSupport", "RampartKeyAttestation"],
            path: "Fuzz/FuzzKeyDescription",
            exclude: ["Seeds"],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "FuzzAttestationObject",
            dependencies: ["FuzzSupport", "RampartAppAttest"],
            path: "Fuzz/FuzzAttestationObject",
            exclude: ["Seeds"],
            swiftSettings: swiftSettings
        ),

        // MARK: Tests
        .target(name: "TestSupport", dependencies: ["RampartCrypto"], swiftSettings: swiftSettings),
        .testTarget(name: "RampartHTTPTests", dependencies: ["RampartHTTP"], swiftSettings: swiftSettings),
        .testTarget(name: "RampartASN1Tests", dependencies: ["RampartASN1"], swiftSettings: swiftSettings),
        .testTarget(
            name: "RampartCryptoTests",
            dependencies: ["RampartCrypto", "TestSupport"],
            exclude: ["Vectors"],  // test vectors with their LICENSE and provenance (read by TestSupport.Vectors)
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RampartCryptoKitBackendTests",
            dependencies: ["RampartCryptoKitBackend", "TestSupport"],
            swiftSettings: swiftSettings + [.define("RAMPART_CRYPTOKIT_BACKEND")]
        ),
        .testTarget(
            name: "RampartX509Tests",
            dependencies: ["RampartX509", "RampartChainVerification", "RampartCrypto", "TestSupport", "rampart-limbo"],
            exclude: ["Vectors"],  // test vectors with their LICENSE and provenance (read by TestSupport.Vectors)
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "rampart-vault-helper",
            dependencies: ["RampartVault"],
            path: "Tests/VaultHelper",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RampartVaultTests",
            dependencies: [
                "RampartVault", "RampartSecretStore", "RampartSQLite", "RampartCrypto", "TestSupport",
                "rampart-vault-helper", "SecretStoreContract",
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RampartSQLiteTests",
            dependencies: ["RampartSQLite", "TestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RampartAttestServiceTests",
            dependencies: [
                "RampartAttestService", "RampartAttestClient", "RampartAttestSimulation", "RampartAppAttest",
                "RampartRequestSigning", "RampartSecretStore", "RampartVault", "RampartX509", "RampartSQLite",
                "RampartCrypto", "RampartCLI", "RampartServiceCLI", "TestSupport", "RampartHTTP", "RampartPostgres",
                "RampartJOSE",
                "RampartKeyAttestation",
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RampartJOSETests",
            dependencies: ["RampartJOSE", "RampartCrypto", "TestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RampartAppleTests",
            dependencies: [
                "RampartPointsCore",
                "RampartApple", "RampartAppleSimulation", "RampartCrypto", "RampartX509", "RampartPinning",
                "RampartSecretStore", "RampartAttestClient", "RampartAttestService", "RampartAppAttest", "TestSupport",
                "SecretStoreContract", "RampartRequestSigning", "RampartSeal",
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RampartAttestClientTests",
            dependencies: [
                "RampartAttestClient", "RampartAttestSimulation", "RampartAppAttest", "RampartRequestSigning",
                "RampartSecretStore", "RampartCrypto",
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RampartRequestSigningTests",
            dependencies: ["RampartRequestSigning", "RampartCrypto", "TestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RampartAppAttestTests",
            dependencies: [
                "RampartAppAttest", "RampartRequestSigning", "RampartChainVerification", "RampartCrypto", "RampartX509",
                "TestSupport",
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RampartKeyAttestationTests",
            dependencies: [
                "RampartKeyAttestation", "RampartAppAttest", "RampartCrypto", "RampartX509", "TestSupport",
                "RampartAttestSimulation",
            ],
            exclude: ["Vectors"],  // Google's Key Attestation chains with their LICENSE and provenance
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RampartPinningTests",
            dependencies: [
                "RampartPinning", "RampartChainVerification", "RampartX509", "RampartCrypto", "TestSupport",
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RampartTLSTests",
            dependencies: ["RampartTLS", "RampartChainVerification", "TestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RampartSealTests",
            dependencies: ["RampartSeal", "RampartVault", "RampartSecretStore", "RampartCrypto", "TestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RampartCLITests",
            dependencies: [
                "RampartCLI", "RampartServiceCLI", "TestSupport", "RampartX509", "RampartPinning", "RampartChainVerification",
                "RampartTLS",
                "RampartAppAttest", "RampartAttestService", "RampartAttestClient", "RampartAttestSimulation",
                "RampartRequestSigning", "RampartSecretStore", "RampartVault", "RampartSeal", "RampartKeyAttestation",
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RampartLoadTests",
            dependencies: [
                "rampart-load", "RampartLoadReport", "RampartAttestService", "RampartAppAttest", "RampartCrypto",
                "RampartRequestSigning",
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RampartBenchTests",
            dependencies: ["rampart-bench", "RampartLoadReport", "TestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "TestSupportTests", dependencies: ["TestSupport"], swiftSettings: swiftSettings),
        .testTarget(
            name: "RampartAuditTests",
            dependencies: ["RampartAudit", "RampartCLI", "RampartPinning"],
            swiftSettings: swiftSettings
        ),
        // The secret-store contract every SecretStore passes (the vault backends, KeychainStore).
        .target(
            name: "SecretStoreContract",
            dependencies: ["RampartSecretStore"],
            path: "Tests/SecretStoreContract",
            swiftSettings: swiftSettings
        ),
    ]
)

// MARK: Apple-only builds
//
// Apple's toolchains cannot build the server-side modules (their C libraries are Linux-only dependencies), and SwiftPM
// builds every target of a package for `swift test`. With RAMPART_APPLE_ONLY set, the package declares only what an
// app adds and the tests of it that run on Apple platforms (.github/workflows/apple.yml); the full package is Linux's.
if Context.environment["RAMPART_APPLE_ONLY"] != nil {
    let appleTargets: Set<String> = [
        "RampartASN1", "RampartCrypto", "RampartX509", "RampartPinning", "RampartRequestSigning", "RampartSecretStore",
        "RampartSeal", "RampartAttestClient", "RampartApple", "RampartPointsCore", "RampartPointsApp",
        "TestSupport", "RampartCryptoTests", "RampartASN1Tests",
        "RampartRequestSigningTests",
    ]
    func keeps(_ dependency: Target.Dependency) -> Bool {
        switch dependency {
        case .targetItem(let name, _), .byNameItem(let name, _): appleTargets.contains(name)
        default: true
        }
    }
    package.targets = package.targets.filter { appleTargets.contains($0.name) }
    for target in package.targets { target.dependencies = target.dependencies.filter(keeps) }
    package.products = package.products.filter { product in
        (product as? Product.Library)?.targets.allSatisfy(appleTargets.contains) ?? false
    }
}
