extension [UInt8] {
    /// Appends the decimal digits of `value` (a negative one as 0), most significant first: all of them, or exactly
    /// the last `width` of them, zero-padded (a date's fields).
    ///
    /// Written byte by byte, without string interpolation or an array per field: it runs for every answer.
    ///
    /// - Parameters:
    ///   - value: The number: a status, a length, a date's field.
    ///   - width: How many digits to write, or nil for as many as `value` has.
    package mutating func appendDecimal(_ value: Int, width: Int? = nil) {
        let value = Swift.max(0, value)
        var divisor = 1
        if let width {
            for _ in 1..<Swift.max(1, width) { divisor *= 10 }
        } else {
            while divisor <= value / 10 { divisor *= 10 }
        }
        while divisor > 0 {
            append(UInt8(ascii: "0") + UInt8((value / divisor) % 10))
            divisor /= 10
        }
    }
}
