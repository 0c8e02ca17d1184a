#if canImport(COpenSSL)
internal import COpenSSL

/// Drains OpenSSL's thread-local error queue into one line, oldest first, so that a later failure never reports a
/// stale entry (swift-nio-ssl's `buildErrorStack`).
func drainOpenSSLErrors() -> String {
    var parts: [String] = []
    while true {
        let code = ERR_get_error()
        if code == 0 { break }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        parts.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }
    return parts.joined(separator: "; ")
}

extension CryptoError {
    /// An ``CryptoError/Code/openSSLFailure`` holding the drained OpenSSL error queue.
    static func openSSL(_ reason: String, file: String = #fileID, line: UInt = #line) -> CryptoError {
        .openSSLFailure(reason, detail: drainOpenSSLErrors(), file: file, line: line)
    }
}
#endif
