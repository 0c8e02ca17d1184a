// swift-tools-version:6.1
import PackageDescription

/// Every Swift target gets the same upcoming features (STYLE 1.1).
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "Rampart",
    products: [
        .library(name: "RampartCrypto", targets: ["RampartCrypto"]),
        .library(name: "RampartX509", targets: ["RampartX509"]),
        .library(name: "RampartAppAttest", targets: ["RampartAppAttest"]),
        .library(name: "RampartPinning", targets: ["RampartPinning"]),
        .library(name: "RampartTLS", targets: ["RampartTLS"]),
        .library(name: "RampartAttestService", targets: ["RampartAttestService"]),
        .library(name: "RampartAttestClient", targets: ["RampartAttestClient"]),
        .library(name: "RampartVault", targets: ["RampartVault"]),
        .library(name: "RampartSeal", targets: ["RampartSeal"]),
        .executable(name: "rampart", targets: ["rampart"]),
        .executable(name: "rampart-bench", targets: ["rampart-bench"]),
    ],
    targets: [
        // MARK: C libraries (Debian packages, linked from the system)
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CPostgres", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(name: "CSecret", pkgConfig: "libsecret-1", providers: [.apt(["libsecret-1-dev"])]),
        .systemLibrary(name: "CArgon2", pkgConfig: "libargon2", providers: [.apt(["libargon2-dev"])]),

        // MARK: Libraries
        .target(name: "RampartCrypto", dependencies: ["COpenSSL"], swiftSettings: swiftSettings),
        .target(name: "RampartX509", dependencies: ["RampartCrypto", "COpenSSL"], swiftSettings: swiftSettings),
        .target(name: "RampartPinning", dependencies: ["RampartCrypto", "RampartX509"], swiftSettings: swiftSettings),
        .target(name: "RampartTLS", dependencies: ["RampartCrypto", "COpenSSL"], swiftSettings: swiftSettings),
        .target(name: "RampartSQLite", dependencies: ["CSQLite"], swiftSettings: swiftSettings),
        .target(
            name: "RampartAttestClient",
            dependencies: ["RampartCrypto", "RampartAppAttest", "RampartVault"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "RampartAttestService",
            dependencies: [
                "RampartCrypto", "RampartX509", "RampartAppAttest", "RampartAttestClient", "RampartVault",
                "RampartSQLite", "CPostgres", "CMicroHTTPD",
            ],
            exclude: ["OpenAPI/openapi.json"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "RampartVault",
            dependencies: ["RampartCrypto", "RampartSQLite", "CArgon2", "CSecret"],
            swiftSettings: swiftSettings
        ),
        .target(name: "RampartSeal", dependencies: ["RampartCrypto", "RampartVault"], swiftSettings: swiftSettings),
        .target(
            name: "RampartAppAttest",
            dependencies: ["RampartCrypto", "RampartX509", "COpenSSL"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "RampartCLI",
            dependencies: [
                "RampartCrypto", "RampartX509", "RampartPinning", "RampartTLS", "RampartAttestService", "RampartVault",
                "RampartSeal", "RampartAppAttest",
            ],
            swiftSettings: swiftSettings
        ),

        // MARK: Executables
        .executableTarget(name: "rampart", dependencies: ["RampartCLI"], swiftSettings: swiftSettings),
        .executableTarget(
            name: "rampart-bench",
            dependencies: [
                "RampartCrypto", "RampartX509", "RampartPinning", "RampartAttestService", "RampartVault", "RampartSeal",
                "RampartAppAttest", "RampartAttestClient",
            ],
            swiftSettings: swiftSettings
        ),

        // MARK: Fuzz targets (scripts/fuzz.sh builds them with -sanitize=fuzzer,address -DFUZZING; a plain build
        // gives replay tools: `swift run FuzzDER crash-file...`)
        .target(name: "CLibFuzzer", path: "Fuzz/CLibFuzzer"),
        .target(name: "FuzzSupport", dependencies: ["CLibFuzzer"], path: "Fuzz/FuzzSupport", swiftSettings: swiftSettings),
        .executableTarget(
            name: "FuzzDER",
            dependencies: ["FuzzSupport", "RampartX509"],
            path: "Fuzz/FuzzDER",
            exclude: ["Seeds"],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "FuzzPEM",
            dependencies: ["FuzzSupport", "RampartX509"],
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
            dependencies: ["FuzzSupport", "RampartAttestService", "RampartAppAttest"],
            path: "Fuzz/FuzzServiceRouter",
            exclude: ["Seeds"],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "FuzzJSON",
            dependencies: ["FuzzSupport", "RampartAppAttest"],
            path: "Fuzz/FuzzJSON",
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
            name: "FuzzAttestationObject",
            dependencies: ["FuzzSupport", "RampartAppAttest"],
            path: "Fuzz/FuzzAttestationObject",
            exclude: ["Seeds"],
            swiftSettings: swiftSettings
        ),

        // MARK: Tests
        .target(name: "TestSupport", dependencies: ["RampartCrypto"], swiftSettings: swiftSettings),
        .testTarget(
            name: "RampartCryptoTests",
            dependencies: ["RampartCrypto", "TestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RampartX509Tests",
            dependencies: ["RampartX509", "RampartCrypto", "TestSupport"],
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
            dependencies: ["RampartVault", "RampartSQLite", "RampartCrypto", "TestSupport", "rampart-vault-helper"],
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
                "RampartAttestService", "RampartAttestClient", "RampartAppAttest", "RampartVault", "RampartX509",
                "RampartSQLite", "RampartCrypto", "TestSupport",
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RampartAppAttestTests",
            dependencies: ["RampartAppAttest", "RampartCrypto", "RampartX509", "TestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RampartPinningTests",
            dependencies: ["RampartPinning", "RampartX509", "RampartCrypto", "TestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RampartTLSTests",
            dependencies: ["RampartTLS", "TestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RampartSealTests",
            dependencies: ["RampartSeal", "RampartVault", "RampartCrypto", "TestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RampartCLITests",
            dependencies: [
                "RampartCLI", "TestSupport", "RampartX509", "RampartPinning", "RampartTLS", "RampartAppAttest",
                "RampartAttestService", "RampartAttestClient", "RampartVault", "RampartSeal",
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
