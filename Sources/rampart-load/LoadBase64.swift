/// Standard, padded base64 (RFC 4648 §4) appended straight to a request's bytes: the `Rampart-Assertion` header of
/// every signed request, without an intermediate `String`.
enum LoadBase64 {
    private static let alphabet: StaticString = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

    /// Appends the base64 of `bytes` to `output`.
    ///
    /// - Parameters:
    ///   - bytes: The bytes to encode.
    ///   - output: Where the `4 × ⌈count / 3⌉` characters go.
    static func append(_ bytes: [UInt8], to output: inout [UInt8]) {
        let table = alphabet.utf8Start
        output.reserveCapacity(output.count + (bytes.count + 2) / 3 * 4)
        bytes.withUnsafeBufferPointer { input in
            var index = 0
            while input.count - index >= 3 {
                let group = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
                output.append(table[Int(group >> 18)])
                output.append(table[Int(group >> 12 & 0x3F)])
                output.append(table[Int(group >> 6 & 0x3F)])
                output.append(table[Int(group & 0x3F)])
                index += 3
            }
            let left = input.count - index
            guard left > 0 else { return }
            let group = UInt32(input[index]) << 16 | (left == 2 ? UInt32(input[index + 1]) << 8 : 0)
            output.append(table[Int(group >> 18)])
            output.append(table[Int(group >> 12 & 0x3F)])
            output.append(left == 2 ? table[Int(group >> 6 & 0x3F)] : UInt8(ascii: "="))
            output.append(UInt8(ascii: "="))
        }
    }
}
