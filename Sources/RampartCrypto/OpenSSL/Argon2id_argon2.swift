#if canImport(CArgon2)
internal import CArgon2

extension OpenSSLBackend {
    /// Runs `argon2id_hash_raw` and wraps the output in a ``SymmetricKey`` (the temporary buffer is wiped).
    static func argon2idHash(
        password: [UInt8], salt: [UInt8], parameters: Argon2Parameters, count: Int
    ) throws -> SymmetricKey {
        var output = [UInt8](repeating: 0, count: count)
        defer { output.withUnsafeMutableBytes { SecureMemory.wipe($0) } }
        // argon2id_hash_raw writes exactly hashlen bytes into the caller's buffer and keeps no pointer after returning.
        let status = password.withUnsafeBytes { pwd in
            salt.withUnsafeBytes { saltBuffer in
                output.withUnsafeMutableBytes { out in
                    argon2id_hash_raw(
                        parameters.iterations, parameters.memoryKiB, parameters.parallelism,
                        pwd.baseAddress, pwd.count, saltBuffer.baseAddress, saltBuffer.count,
                        out.baseAddress, out.count)
                }
            }
        }
        guard status == ARGON2_OK.rawValue else {
            throw CryptoError.invalidParameter(
                "Argon2id failed: \(String(cString: argon2_error_message(status)))")
        }
        return SymmetricKey(bytes: output)
    }
}

#endif
