/// A bounds-checked reader over untrusted bytes: every read checks what is left first and never traps.
struct ByteReader {
    private let bytes: [UInt8]
    private(set) var offset = 0
    /// The error code thrown when the input ends early or has trailing bytes.
    private let code: SealError.Code
    /// What is being read, for messages ("sealed header", "keyset").
    private let what: String

    init(_ bytes: [UInt8], what: String, code: SealError.Code) {
        self.bytes = bytes
        self.what = what
        self.code = code
    }

    /// How many bytes are left.
    var remaining: Int { bytes.count - offset }

    private func failure(_ reason: String) -> SealError {
        SealError(code: code, reason: reason, file: #fileID, line: #line)
    }

    mutating func readBytes(_ count: Int) throws -> [UInt8] {
        guard count >= 0, count <= remaining else {
            throw failure("the \(what) ends early: \(count) more bytes expected at offset \(offset), \(remaining) left")
        }
        let slice = Array(bytes[offset..<(offset + count)])
        offset += count
        return slice
    }

    mutating func readByte() throws -> UInt8 {
        let one = try readBytes(1)
        return one.first ?? 0
    }

    mutating func readUInt16() throws -> UInt16 {
        try readBytes(2).reduce(0) { ($0 << 8) | UInt16($1) }
    }

    mutating func readUInt32() throws -> UInt32 {
        try readBytes(4).reduce(0) { ($0 << 8) | UInt32($1) }
    }

    mutating func readUInt64() throws -> UInt64 {
        try readBytes(8).reduce(0) { ($0 << 8) | UInt64($1) }
    }

    /// Fails unless every byte was consumed (STYLE 7.1).
    func finish() throws {
        guard remaining == 0 else { throw failure("\(remaining) trailing bytes follow the \(what)") }
    }
}

/// Appends big-endian integers and byte strings.
struct ByteWriter {
    private(set) var bytes: [UInt8] = []

    mutating func append(_ byte: UInt8) { bytes.append(byte) }

    mutating func append(_ value: UInt16) {
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
        bytes.append(UInt8(truncatingIfNeeded: value))
    }

    mutating func append(_ value: UInt32) {
        for shift in stride(from: 24, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> shift)) }
    }

    mutating func append(_ value: UInt64) {
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> shift)) }
    }

    mutating func append(contentsOf other: [UInt8]) { bytes.append(contentsOf: other) }

    /// Overwrites two bytes at `offset` with a big-endian value (the header length, once known).
    mutating func patch(_ value: UInt16, at offset: Int) {
        guard offset >= 0, offset + 2 <= bytes.count else { return }
        bytes[offset] = UInt8(truncatingIfNeeded: value >> 8)
        bytes[offset + 1] = UInt8(truncatingIfNeeded: value)
    }
}
