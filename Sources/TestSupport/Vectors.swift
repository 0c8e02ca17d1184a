public import Foundation

/// Finds the test vectors.
///
/// Vectors whose licence allows it live in the repository beside the tests that read them, with their LICENSE and
/// provenance (swift-certificates keeps its vectors so), so a fresh clone runs those tests: Wycheproof in
/// `Tests/RampartCryptoTests/Vectors/wycheproof/` and x509-limbo in `Tests/RampartX509Tests/Vectors/x509-limbo/` (both
/// Apache-2.0). The rest (real-device App Attest objects, SPKI pin fixtures) are read in place from the shared
/// vectors folder, `../shared/vectors` or `$RAMPART_VECTORS`, and the tests that need them say they were skipped when
/// it is absent.
public enum Vectors {
    /// The sources kept in the repository, by their folder name in the shared layout, with their place here.
    static let inRepository = [
        "wycheproof": "Tests/RampartCryptoTests/Vectors/wycheproof",
        "x509-limbo": "Tests/RampartX509Tests/Vectors/x509-limbo",
        "android-key-attestation": "Tests/RampartKeyAttestationTests/Vectors/android-key-attestation",
    ]

    /// The package root (this file is `Sources/TestSupport/Vectors.swift`).
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The shared vectors folder, or nil when it is absent (tests then skip, saying so).
    public static let root: URL? = {
        let fileManager = FileManager.default
        if let override = ProcessInfo.processInfo.environment["RAMPART_VECTORS"], !override.isEmpty {
            return fileManager.fileExists(atPath: override) ? URL(fileURLWithPath: override) : nil
        }
        // Walk up from this source file to the package root, then to its sibling `shared/vectors`.
        var directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        for _ in 0..<6 {
            let candidate = directory.appendingPathComponent("../shared/vectors").standardizedFileURL
            if fileManager.fileExists(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return nil
    }()

    /// Whether the shared vectors folder is present; use as `@Test(.enabled(if: Vectors.available, "…"))` for
    /// vectors read from it.
    public static var available: Bool { root != nil }

    /// Whether the vectors of `source` (a folder name: `wycheproof`, `appattest`, …) can be read: always for the
    /// sources kept in the repository, else when the shared folder is present.
    ///
    /// - Parameter source: The source's folder name.
    /// - Returns: Whether its files can be read.
    public static func available(_ source: String) -> Bool { inRepository[source] != nil || available }

    /// The URL of a vector file: in the repository for the sources kept here, else under the shared folder.
    ///
    /// - Parameter relativePath: e.g. `wycheproof/aes_gcm_test.json`.
    /// - Returns: The URL.
    /// - Throws: ``VectorsMissing`` when the file is in the shared folder and that is absent.
    public static func url(_ relativePath: String) throws -> URL {
        let source = String(relativePath.prefix { $0 != "/" })
        if let place = inRepository[source] {
            return packageRoot.appendingPathComponent(place)
                .appendingPathComponent(String(relativePath.dropFirst(source.count)))
        }
        guard let root else { throw VectorsMissing() }
        return root.appendingPathComponent(relativePath)
    }

    /// Reads a vector file.
    ///
    /// - Parameter relativePath: e.g. `wycheproof/aes_gcm_test.json`.
    /// - Returns: Its bytes.
    /// - Throws: ``VectorsMissing`` or a file error.
    public static func data(_ relativePath: String) throws -> Data {
        try Data(contentsOf: url(relativePath))
    }
}

/// The shared vectors folder is not present; set `RAMPART_VECTORS` to its path.
public struct VectorsMissing: Error, CustomStringConvertible {
    /// The explanation.
    public var description: String {
        "../shared/vectors not found next to the checkout; set RAMPART_VECTORS to the vectors folder"
    }
}

/// Hex helpers for test tables.
public enum Hex {
    /// Decodes a hex string (no separators); nil when malformed.
    ///
    /// - Parameter text: The hex.
    /// - Returns: The bytes.
    public static func decode(_ text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = value(digits[index]), let low = value(digits[index + 1]) else { return nil }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }

    /// Encodes bytes as lowercase hex.
    ///
    /// - Parameter bytes: The bytes.
    /// - Returns: The hex string.
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    private static func value(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
