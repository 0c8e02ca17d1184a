internal import COpenSSL

/// Drains OpenSSL's thread-local error queue into one line, oldest first, including each entry's added data (where
/// `CMS_verify` puts the certificate verification error), so that a later failure never reports a stale entry.
func drainOpenSSLErrors() -> String {
    var parts: [String] = []
    while true {
        var data: UnsafePointer<CChar>?
        var flags: Int32 = 0
        let code = ERR_get_error_all(nil, nil, nil, &data, &flags)
        if code == 0 { break }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        var part = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        // ERR_TXT_STRING: the data is a NUL-terminated string owned by the error queue entry.
        if let data, flags & ERR_TXT_STRING != 0 {
            part += " (" + String(cString: data) + ")"
        }
        parts.append(part)
    }
    return parts.joined(separator: "; ")
}
