internal import CArgon2

/// Calls `argon2id_hash_raw`, the only place RampartSeal touches libargon2.
func argon2idHashRaw(
    password: UnsafeRawBufferPointer,
    salt: UnsafeRawBufferPointer,
    parameters: Argon2Parameters,
    outputByteCount: Int
) throws -> [UInt8] {
    var output = [UInt8](repeating: 0, count: outputByteCount)
    // argon2id_hash_raw reads pwd and salt only during the call, allocates and frees its own memory blocks (wiping
    // them, ARGON2_DEFAULT_FLAGS), and writes exactly hashlen bytes into `hash`. A null pointer with length 0 is
    // accepted for an empty password.
    let status = output.withUnsafeMutableBytes { out in
        argon2id_hash_raw(
            parameters.iterations, parameters.memoryKiB, parameters.parallelism,
            password.baseAddress, password.count, salt.baseAddress, salt.count, out.baseAddress, out.count)
    }
    guard status == ARGON2_OK.rawValue else {
        let message = argon2_error_message(status).map { String(cString: $0) } ?? "error \(status)"
        if status == ARGON2_MEMORY_ALLOCATION_ERROR.rawValue {
            throw SealError.limitExceeded("Argon2id could not allocate \(parameters.memoryKiB) KiB: \(message)")
        }
        throw SealError.invalidParameter("Argon2id failed: \(message)")
    }
    return output
}
