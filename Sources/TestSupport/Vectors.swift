public import Foundation

/// Finds the shared test vectors (`../shared/vectors` or `$RAMPART_VECTORS`), which are read in place and never
/// copied into the repository (STYLE 10).
public enum Vectors {
    /// The vectors folder, or nil when it is absent (tests then skip, saying so).
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

    /// Whether the vectors are present; use as `@Test(.enabled(if: Vectors.available, "…"))`.
    public static var available: Bool { root != nil }

    /// The URL of a file under the vectors folder.
    ///
    /// - Parameter relativePath: e.g. `wycheproof/aes_gcm_test.json`.
    /// - Returns: The URL.
    /// - Throws: ``VectorsMissing`` when the folder is absent.
    public static func url(_ relativePath: String) throws -> URL {
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
