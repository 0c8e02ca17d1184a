import Foundation
import RampartCrypto

/// How a passphrase becomes a key-encryption key, with its costs; the choice is stored in the sealed header.
///
/// ``argon2id`` (OWASP: 19 MiB, t = 2, p = 1) is the default. Costs below OWASP's floor are refused when sealing
/// unless the value was made with an `unsafe…` factory, which exists for tests and for reading old data.
public struct PasswordKDF: Sendable, Hashable, CustomStringConvertible {
    enum Kind: Hashable, Sendable {
        case argon2id(Argon2Parameters)
    }

    let kind: Kind
    /// Whether sealing may use costs below the OWASP floor (set only by the `unsafe…` factories).
    let allowsWeakCosts: Bool

    /// Argon2id with OWASP's parameters (m = 19 MiB, t = 2, p = 1): the default.
    public static let argon2id = PasswordKDF(kind: .argon2id(.owasp), allowsWeakCosts: false)

    /// Argon2id with the given costs.
    ///
    /// - Parameter parameters: The costs; sealing refuses them unless ``Argon2Parameters/meetsOWASPMinimum``.
    /// - Returns: The KDF.
    public static func argon2id(_ parameters: Argon2Parameters) -> PasswordKDF {
        PasswordKDF(kind: .argon2id(parameters), allowsWeakCosts: false)
    }

    /// Argon2id with costs that may be below OWASP's floor: for tests, never for user data.
    ///
    /// - Warning: Weak costs let an attacker who holds a sealed file guess passphrases quickly.
    /// - Parameter parameters: The costs.
    /// - Returns: The KDF.
    public static func unsafeArgon2id(_ parameters: Argon2Parameters) -> PasswordKDF {
        PasswordKDF(kind: .argon2id(parameters), allowsWeakCosts: true)
    }

    /// Whether the costs reach OWASP's password-storage recommendation for this KDF.
    public var meetsOWASPMinimum: Bool {
        switch kind {
        case .argon2id(let parameters): parameters.meetsOWASPMinimum
        }
    }

    /// A short name with the costs, e.g. `Argon2id m=19456,t=2,p=1`.
    public var description: String {
        switch kind {
        case .argon2id(let parameters): "Argon2id \(parameters)"
        }
    }

    /// Compares the algorithm and costs, not the weak-costs permission.
    public static func == (lhs: PasswordKDF, rhs: PasswordKDF) -> Bool { lhs.kind == rhs.kind }

    /// Hashes the algorithm and costs.
    public func hash(into hasher: inout Hasher) { hasher.combine(kind) }

    /// Refuses weak costs unless explicitly allowed.
    func checkStrength() throws {
        guard meetsOWASPMinimum || allowsWeakCosts else {
            throw SealError.invalidParameter(
                "\(description) is below OWASP's minimum; use PasswordKDF.argon2id or raise the costs")
        }
    }

    /// Derives the 32-byte key-encryption key.
    func deriveKey(passphrase: SymmetricKey, salt: [UInt8]) throws -> SymmetricKey {
        switch kind {
        case .argon2id(let parameters):
            let bytes = try passphrase.withUnsafeBytes { password in
                try Argon2id.deriveKey(password: password, salt: salt, parameters: parameters)
            }
            return SymmetricKey(bytes: bytes)
        }
    }
}

// MARK: - Header encoding

extension PasswordKDF {
    /// The KDF identifiers of the header (docs/seal-format.md).
    enum HeaderID {
        static let argon2id: UInt8 = 1
    }

    /// `kdf id ‖ parameters`, big-endian.
    func serialize(into writer: inout ByteWriter) {
        switch kind {
        case .argon2id(let parameters):
            writer.append(HeaderID.argon2id)
            writer.append(parameters.memoryKiB)
            writer.append(parameters.iterations)
            writer.append(parameters.parallelism)
        }
    }

    /// Reads `kdf id ‖ parameters`, enforcing the DoS limits before any derivation.
    init(reading reader: inout ByteReader) throws {
        let id = try reader.readByte()
        switch id {
        case HeaderID.argon2id:
            let parameters = Argon2Parameters(
                memoryKiB: try reader.readUInt32(), iterations: try reader.readUInt32(),
                parallelism: try reader.readUInt32())
            do {
                try parameters.validate()
            } catch let error as SealError where error.code == .invalidParameter {
                throw SealError.malformedHeader("the header's Argon2id parameters are invalid: \(error.reason)")
            }
            self.init(kind: .argon2id(parameters), allowsWeakCosts: true)
        default:
            throw SealError.unsupportedAlgorithm("the header names password KDF \(id), which this version does not know")
        }
    }
}
