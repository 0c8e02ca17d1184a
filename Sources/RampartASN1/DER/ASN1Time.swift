public import Foundation

/// UTCTime and GeneralizedTime as RFC 5280 profiles them (section 4.1.2.5), converted without a calendar object.
///
/// RFC 5280 4.1.2.5.1: UTCTime "MUST be expressed in Greenwich Mean Time (Zulu) and MUST include seconds
/// (i.e., times are YYMMDDHHMMSSZ)"; a two-digit year of 50 or more is 19YY, below 50 is 20YY.
/// RFC 5280 4.1.2.5.2: GeneralizedTime "MUST be expressed in Greenwich Mean Time (Zulu) and MUST include seconds
/// (i.e., times are YYYYMMDDHHMMSSZ), even where the number of seconds is zero. GeneralizedTime values MUST NOT
/// include fractional seconds." Anything else (offsets, missing seconds, fractions, out-of-range fields such as
/// 30 February or second 60) is rejected.
public enum ASN1Time {
    /// Decodes a UTCTime or GeneralizedTime element.
    ///
    /// - Parameter node: The element.
    /// - Returns: The instant.
    /// - Throws: ``ASN1Error`` with code `invalidDER` when the element is neither type or breaks the profile above.
    public static func date(from node: ASN1Node) throws -> Date {
        let text = Array(node.contentSlice)
        let yearDigits: Int
        switch node.identifier {
        case .utcTime: yearDigits = 2
        case .generalizedTime: yearDigits = 4
        default: throw ASN1Error.invalidDER("a time should be a UTCTime or GeneralizedTime but is a \(node.identifier)")
        }
        guard text.count == yearDigits + 11, text.last == UInt8(ascii: "Z") else {
            throw ASN1Error.invalidDER(
                "a \(node.identifier) must be \(yearDigits == 2 ? "YYMMDDHHMMSSZ" : "YYYYMMDDHHMMSSZ") (RFC 5280 4.1.2.5)"
            )
        }
        var fields: [Int] = []
        var index = 0
        for width in [yearDigits, 2, 2, 2, 2, 2] {
            var value = 0
            for _ in 0..<width {
                let digit = text[index]
                guard digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") else {
                    throw ASN1Error.invalidDER("a \(node.identifier) holds a non-digit (RFC 5280 4.1.2.5)")
                }
                value = value * 10 + Int(digit - UInt8(ascii: "0"))
                index += 1
            }
            fields.append(value)
        }
        var year = fields[0]
        if yearDigits == 2 { year += year >= 50 ? 1900 : 2000 }
        guard
            let date = Self.date(
                year: year, month: fields[1], day: fields[2], hour: fields[3], minute: fields[4], second: fields[5])
        else {
            throw ASN1Error.invalidDER("a \(node.identifier) names a day or time that does not exist")
        }
        return date
    }

    /// The instant for a UTC calendar date and time, or nil when a field is out of range.
    static func date(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) -> Date? {
        guard (1...9999).contains(year), (1...12).contains(month), (1...daysIn(month, of: year)).contains(day),
            (0...23).contains(hour), (0...59).contains(minute), (0...59).contains(second)
        else { return nil }
        let days = daysSinceEpoch(year: year, month: month, day: day)
        return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + hour * 3_600 + minute * 60 + second))
    }

    /// The UTC calendar fields of `date` (seconds truncated), or nil outside years 1–9999.
    static func fields(of date: Date) -> [Int]? {
        let interval = date.timeIntervalSince1970.rounded(.down)
        guard interval.isFinite, interval >= -62_135_596_800, interval <= 253_402_300_799 else { return nil }
        let seconds = Int(interval)
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = civil(fromDaysSinceEpoch: days)
        return [year, month, day, secondOfDay / 3_600, secondOfDay % 3_600 / 60, secondOfDay % 60]
    }

    /// The text of a UTCTime (years 1950–2049) or GeneralizedTime for `date`, as RFC 5280 4.1.2.5 chooses them.
    ///
    /// - Returns: The identifier and content octets, or nil outside years 1–9999.
    static func encode(_ date: Date, forceGeneralized: Bool = false) -> (ASN1Identifier, [UInt8])? {
        guard let fields = fields(of: date) else { return nil }
        let useUTCTime = !forceGeneralized && (1950...2049).contains(fields[0])
        var text = useUTCTime ? pad(fields[0] % 100, 2) : pad(fields[0], 4)
        for field in fields.dropFirst() { text += pad(field, 2) }
        return (useUTCTime ? .utcTime : .generalizedTime, Array((text + "Z").utf8))
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    private static func isLeap(_ year: Int) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

    private static func daysIn(_ month: Int, of year: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 in the proleptic Gregorian calendar (years counted from March, so leap days fall last).
    private static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The inverse of ``daysSinceEpoch(year:month:day:)``.
    private static func civil(fromDaysSinceEpoch days: Int) -> (Int, Int, Int) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
