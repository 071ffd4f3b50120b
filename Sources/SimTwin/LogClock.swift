/// Wall-clock times of a log, as microseconds since 1970-01-01 UTC, read from the timestamps
/// apps and `log show` write. Parsed by hand (no date formatter): the same text gives the same
/// value on every machine, whatever its time zone or locale.
public enum LogClock {
  /// Reads `2023-12-07T14:14:15.227567Z`, `2023-12-07 14:14:15.227567+0100` (as `log show`
  /// prints it), offsets written `+01:00`, `+0100` or `Z`, and any number of fraction digits
  /// (kept to the microsecond). Nil when the text is not such a time; a time without an offset
  /// is read as UTC.
  public static func microseconds(_ text: Substring) -> Int64? {
    let bytes = Array(text.utf8)
    var index = 0
    func number(_ digits: Int) -> Int? {
      guard index + digits <= bytes.count else { return nil }
      var value = 0
      for byte in bytes[index..<(index + digits)] {
        guard byte >= 48 && byte <= 57 else { return nil }
        value = value * 10 + Int(byte - 48)
      }
      index += digits
      return value
    }
    func take(_ byte: UInt8) -> Bool {
      guard index < bytes.count, bytes[index] == byte else { return false }
      index += 1
      return true
    }
    guard let year = number(4), take(45), let month = number(2), take(45), let day = number(2) else { return nil }
    guard take(84) || take(32) || take(116) else { return nil }  // T, space or t
    guard let hour = number(2), take(58), let minute = number(2), take(58), let second = number(2) else { return nil }
    guard (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second <= 60 else { return nil }
    var fraction: Int64 = 0
    if take(46) {
      var scale: Int64 = 100_000
      var digits = 0
      while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 {
        if scale > 0 {
          fraction += Int64(bytes[index] - 48) * scale
          scale /= 10
        }
        index += 1
        digits += 1
      }
      guard digits > 0 else { return nil }
    }
    var offsetSeconds = 0
    if take(90) || take(122) {  // Z
    } else if index < bytes.count, bytes[index] == 43 || bytes[index] == 45 {  // + or -
      let sign = bytes[index] == 45 ? -1 : 1
      index += 1
      guard let hours = number(2) else { return nil }
      _ = take(58)
      guard let minutes = number(2), hours < 24, minutes < 60 else { return nil }
      offsetSeconds = sign * (hours * 3600 + minutes * 60)
    }
    guard index == bytes.count else { return nil }
    let days = daysFromCivil(year: year, month: month, day: day)
    let seconds = Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second) - Int64(offsetSeconds)
    return seconds * 1_000_000 + fraction
  }

  /// Days since 1970-01-01 of a date (`--date`).
  public static func days(year: Int, month: Int, day: Int) -> Int { daysFromCivil(year: year, month: month, day: day) }

  /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
  static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yearOfEra = y - era * 400
    let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146_097 + dayOfEra - 719_468
  }

  /// `microseconds` as `2026-01-01T00:00:00.000000Z`, the form the event log writes.
  public static func text(_ microseconds: Int64) -> String {
    let seconds = microseconds >= 0 ? microseconds / 1_000_000 : (microseconds - 999_999) / 1_000_000
    let fraction = microseconds - seconds * 1_000_000
    let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
    let secondOfDay = Int(seconds - days * 86_400)
    let (year, month, day) = civil(fromDays: Int(days))
    func pad(_ value: Int, _ width: Int) -> String {
      let text = String(value)
      return String(repeating: "0", count: max(0, width - text.count)) + text
    }
    return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(secondOfDay / 3600, 2)):"
      + "\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2)).\(pad(Int(fraction), 6))Z"
  }

  /// The `log show` form, `2026-01-01 00:00:00.000000+0000`.
  public static func unifiedText(_ microseconds: Int64) -> String {
    let iso = text(microseconds)
    return String(iso.prefix(10)) + " " + String(iso.dropFirst(11).dropLast()) + "+0000"
  }

  /// Howard Hinnant's `civil_from_days`.
  static func civil(fromDays days: Int) -> (Int, Int, Int) {
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let dayOfEra = z - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let mp = (5 * dayOfYear + 2) / 153
    let day = dayOfYear - (153 * mp + 2) / 5 + 1
    let month = mp < 10 ? mp + 3 : mp - 9
    return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
  }
}
