/// A time as a log line prints it at its start, read by hand (no date formatter, so the same
/// text gives the same value on every machine): a date when it has one, the time of day to the
/// microsecond, and a UTC offset when it has one. What the text leaves out is left out here;
/// `LogClock` decides later what an absent date or offset means.
struct LogStamp: Equatable {
  /// Days since 1970-01-01, when the text has a date.
  var day: Int?
  /// Microseconds since midnight.
  var microsecondOfDay: Int64
  /// Seconds east of UTC, when the text has an offset (`+0100`, `+01:00`, `Z`).
  var offsetSeconds: Int?

  /// Reads a stamp at the start of `text`: `2023-12-07 14:14:15.227567+0100`,
  /// `2023-12-07T14:14:15Z`, `2026-09-02 19:02:24.184` (no offset), `20:48:27.339` (no date).
  /// Returns the stamp and the text after it, or nil when `text` does not start with one.
  static func read(_ text: Substring) -> (stamp: LogStamp, rest: Substring)? {
    let bytes = text.utf8
    var index = bytes.startIndex
    func digits(_ count: Int) -> Int? {
      var value = 0
      for _ in 0..<count {
        guard index < bytes.endIndex, let digit = digitValue(bytes[index]) else { return nil }
        value = value * 10 + digit
        index = bytes.index(after: index)
      }
      return value
    }
    func take(_ byte: UInt8) -> Bool {
      guard index < bytes.endIndex, bytes[index] == byte else { return false }
      index = bytes.index(after: index)
      return true
    }
    var day: Int?
    let start = index
    if let year = digits(4), take(45), let month = digits(2), take(45), let dayOfMonth = digits(2),
      (1...12).contains(month), (1...31).contains(dayOfMonth), take(32) || take(84) || take(116)
    {
      day = LogClock.daysFromCivil(year: year, month: month, day: dayOfMonth)
    } else {
      index = start
    }
    guard let hour = digits(2), take(58), let minute = digits(2), take(58), let second = digits(2),
      hour < 24, minute < 60, second <= 60
    else { return nil }
    var fraction: Int64 = 0
    if take(46) {
      var scale: Int64 = 100_000
      var count = 0
      while index < bytes.endIndex, let digit = digitValue(bytes[index]) {
        fraction += Int64(digit) * scale
        scale /= 10
        index = bytes.index(after: index)
        count += 1
      }
      guard count > 0 else { return nil }
    }
    var offset: Int?
    if take(90) || take(122) {
      offset = 0
    } else if index < bytes.endIndex, bytes[index] == 43 || bytes[index] == 45 {
      let signIndex = index
      let sign = bytes[index] == 45 ? -1 : 1
      index = bytes.index(after: index)
      if let hours = digits(2), hours < 24 {
        _ = take(58)
        if let minutes = digits(2), minutes < 60 {
          offset = sign * (hours * 3600 + minutes * 60)
        } else {
          index = signIndex
        }
      } else {
        index = signIndex
      }
    }
    // A stamp ends at a space, a tab, the end of the line, a colon or a bracket (some app logs), or
    // a non-ASCII character (the technotes' elision, `…`).
    if index < bytes.endIndex, bytes[index] < 0x80, ![32, 9, 58, 93].contains(bytes[index]) { return nil }
    let micro = Int64(hour * 3600 + minute * 60 + second) * 1_000_000 + fraction
    let stamp = LogStamp(day: day, microsecondOfDay: micro, offsetSeconds: offset)
    return (stamp, text[index...])
  }

  /// Reads a whole field as a stamp (Console.app's time column).
  static func field(_ text: Substring) -> LogStamp? {
    guard let (stamp, rest) = read(text), rest.allSatisfy({ $0 == " " }) else { return nil }
    return stamp
  }

  private static func digitValue(_ byte: UInt8) -> Int? { byte >= 48 && byte <= 57 ? Int(byte - 48) : nil }
}
