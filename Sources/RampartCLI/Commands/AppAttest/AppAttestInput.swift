import Foundation
import RampartX509

/// Input decoding shared by the `rampart appattest` subcommands.
enum AppAttestInput {
    /// Decodes base64 in the standard or URL-safe alphabet, padded or not, ignoring whitespace.
    ///
    /// - Parameter text: The base64 text.
    /// - Returns: The bytes, or nil when the text is not base64.
    static func base64(_ text: String) -> [UInt8]? {
        var normalized = String(
            text.unicodeScalars.filter { !CharacterSet.whitespacesAndNewlines.contains($0) }
                .map { scalar -> Character in
                    switch scalar {
                    case "-": "+"
                    case "_": "/"
                    default: Character(scalar)
                    }
                }
        )
        guard !normalized.isEmpty, normalized.count % 4 != 1 else { return nil }
        while normalized.count % 4 != 0 { normalized += "=" }
        return Data(base64Encoded: normalized).map { Array($0) }
    }

    /// Reads an option given as `B64`, `@FILE` or `@-` (standard input). A file holding base64 text is decoded;
    /// any other file is taken as raw bytes.
    ///
    /// - Parameters:
    ///   - value: The option's value.
    ///   - name: The option, for messages.
    ///   - context: Where standard input comes from.
    /// - Returns: The bytes.
    /// - Throws: ``UsageError`` when the file cannot be read or the text is not base64.
    static func bytes(_ value: String, option name: String, context: CommandContext) throws -> [UInt8] {
        guard value.hasPrefix("@") else {
            guard let decoded = base64(value) else {
                throw UsageError("\(name) is not base64 (standard or URL-safe); give base64 text or @FILE")
            }
            return decoded
        }
        let path = String(value.dropFirst())
        let data: Data
        if path == "-" {
            data = context.readStandardInput()
        } else {
            guard let contents = FileManager.default.contents(atPath: path) else {
                throw UsageError("\(name): cannot read \(path); check the path and permissions")
            }
            data = contents
        }
        if let text = String(data: data, encoding: .utf8), let decoded = base64(text) {
            return decoded
        }
        guard !data.isEmpty else { throw UsageError("\(name): \(path) is empty") }
        return Array(data)
    }

    /// Reads the first certificate of a PEM or DER file.
    ///
    /// - Parameter path: The file.
    /// - Returns: The certificate.
    /// - Throws: ``UsageError`` when the file is unreadable or holds no certificate.
    static func certificate(atPath path: String) throws -> Certificate {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw UsageError("--root: cannot read \(path); check the path and permissions")
        }
        guard let certificate = try? Certificate.parseAll(Array(data)).first else {
            throw UsageError("--root: \(path) holds no PEM or DER certificate")
        }
        return certificate
    }

    /// Standard padded base64.
    static func encode(_ bytes: [UInt8]) -> String { Data(bytes).base64EncodedString() }
}

/// The `--json` shape of a refusal.
struct AppAttestRefusal: Encodable {
    let valid = false
    let reason: String
    let message: String
}
