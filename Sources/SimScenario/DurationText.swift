import SimKernel

/// Durations written as text with a unit (`"250ms"`, `"1.5s"`, `"30m"`, `"24h"`, `"7d"`) or as
/// plain seconds.
public enum DurationText {
  static let units: [(suffix: String, seconds: Double)] = [
    ("ns", 1e-9), ("us", 1e-6), ("µs", 1e-6), ("ms", 1e-3), ("s", 1), ("m", 60), ("min", 60), ("h", 3600),
    ("d", 86_400), ("w", 604_800),
  ]

  /// The grammar `parse` accepts, as the JSON Schema's pattern (ECMA-262): plain seconds with an
  /// optional exponent, or one or more numbers each with a unit, spaces allowed between and around.
  /// A leading `-` is read (and refused as negative) by the decoder, so the schema leaves it out.
  public static let schemaPattern =
    #"^ *(\+?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][-+]?[0-9]+)?|(\+?([0-9]+(\.[0-9]*)?|\.[0-9]+) *(ns|us|µs|ms|s|min|m|h|d|w) *)+) *$"#

  /// Parses `text`: plain seconds (`"90"`, `"1.5e3"`), a number with a unit, or several
  /// (`"1h30m"`, `"2d 6h"`); nil when it is none of these. A leading `-` gives a negative
  /// duration (which the decoder refuses with its own message).
  public static func parse(_ text: String) -> SimDuration? {
    seconds(text).flatMap(checked)
  }

  /// The seconds `text` says, before rounding to the clock's nanoseconds (nil: not a duration).
  public static func seconds(_ text: String) -> Double? {
    var scanner = Scanner(Array(text.unicodeScalars))
    scanner.skipSpaces()
    let negative = scanner.take("-")
    if !negative { _ = scanner.take("+") }
    let start = scanner.position
    guard scanner.number() else { return nil }
    let sign = negative ? -1.0 : 1.0
    if scanner.exponent() || scanner.atSpacesToEnd() {
      guard scanner.atSpacesToEnd(), let seconds = Double(scanner.text(from: start)) else { return nil }
      return sign * seconds
    }
    var total = 0.0
    var numberStart = start
    while true {
      guard let value = Double(scanner.text(from: numberStart)) else { return nil }
      scanner.skipSpaces()
      guard let factor = scanner.unit() else { return nil }
      total += value * factor
      scanner.skipSpaces()
      if scanner.atEnd { return sign * total }
      _ = scanner.take("+")
      numberStart = scanner.position
      guard scanner.number() else { return nil }
    }
  }

  private static func checked(_ seconds: Double) -> SimDuration? {
    seconds.isFinite && abs(seconds) < 9e9 ? SimDuration(seconds: seconds) : nil
  }

  /// Reads the duration grammar scalar by scalar (no Foundation, no regular expressions).
  private struct Scanner {
    let scalars: [Unicode.Scalar]
    var position = 0

    init(_ scalars: [Unicode.Scalar]) { self.scalars = scalars }

    var atEnd: Bool { position == scalars.count }

    func text(from start: Int) -> String {
      var text = ""
      text.unicodeScalars.append(contentsOf: scalars[start..<position])
      return text
    }

    mutating func take(_ scalar: Unicode.Scalar) -> Bool {
      guard position < scalars.count, scalars[position] == scalar else { return false }
      position += 1
      return true
    }

    mutating func skipSpaces() { while take(" ") {} }

    func atSpacesToEnd() -> Bool { scalars[position...].allSatisfy { $0 == " " } }

    mutating func digits() -> Int {
      let start = position
      while position < scalars.count, ("0"..."9").contains(scalars[position]) { position += 1 }
      return position - start
    }

    /// `[0-9]+(\.[0-9]*)?|\.[0-9]+`
    mutating func number() -> Bool {
      if digits() > 0 {
        if take(".") { _ = digits() }
        return true
      }
      return take(".") && digits() > 0
    }

    /// `[eE][-+]?[0-9]+`, only right after a number.
    mutating func exponent() -> Bool {
      let start = position
      guard take("e") || take("E") else { return false }
      if !take("-") { _ = take("+") }
      if digits() > 0 { return true }
      position = start
      return false
    }

    /// The longest unit at the position, and its length in seconds.
    mutating func unit() -> Double? {
      for (suffix, seconds) in DurationText.unitsLongestFirst {
        let unit = Array(suffix.unicodeScalars)
        if position + unit.count <= scalars.count, Array(scalars[position..<position + unit.count]) == unit {
          // A unit ends where the letters end: "30mins" is not "30min" followed by "s".
          let end = position + unit.count
          if end < scalars.count, scalars[end].properties.isAlphabetic { continue }
          position = end
          return seconds
        }
      }
      return nil
    }
  }

  static let unitsLongestFirst = units.sorted { $0.suffix.unicodeScalars.count > $1.suffix.unicodeScalars.count }

  /// A readable rounded text for people: `850ms`, `4.88s`, `12.5m`, `3.20h`, `2.5d`.
  public static func display(_ duration: SimDuration) -> String {
    let ns = duration.nanoseconds
    let magnitude = abs(ns)
    if magnitude < 1_000_000_000 {
      // Milliseconds with one decimal, dropped when it is 0: formatFixed's seconds scaled by 1000.
      let text = formatFixed(ns * 1000, decimals: 1)
      return (text.hasSuffix(".0") ? String(text.dropLast(2)) : text) + "ms"
    }
    if magnitude < 120_000_000_000 { return formatFixed(ns, decimals: 2) + "s" }
    if magnitude < 7_200_000_000_000 { return formatFixed(ns / 60, decimals: 1) + "m" }
    if magnitude < 172_800_000_000_000 { return formatFixed(ns / 3600, decimals: 2) + "h" }
    return formatFixed(ns / 86_400, decimals: 1) + "d"
  }

  /// `display` of a number of seconds of any size: past what a `SimDuration` holds (a sum over
  /// many rows of a long run), days with one decimal.
  public static func display(seconds: Double) -> String {
    guard seconds.isFinite else { return "–" }
    if abs(seconds) < 9e9 { return display(SimDuration(seconds: seconds)) }
    let days = (seconds / 86_400 * 10).rounded() / 10
    return String(format: "%.1f", days) + "d"
  }

  /// A compact text for a duration (`1.5s`, `30m`, `24h`), for messages.
  public static func format(_ duration: SimDuration) -> String {
    let ns = duration.nanoseconds
    for (suffix, nanos) in [("d", Int64(86_400_000_000_000)), ("h", 3_600_000_000_000), ("m", 60_000_000_000)]
    where ns != 0 && ns % nanos == 0 {
      return String(ns / nanos) + suffix
    }
    if ns % 1_000_000_000 == 0 { return String(ns / 1_000_000_000) + "s" }
    if ns % 1_000_000 == 0 { return String(ns / 1_000_000) + "ms" }
    return formatFixed(ns, decimals: 9) + "s"
  }
}

extension String {
  func trimmingSpaces() -> String {
    var scalars = Substring(self)
    while scalars.first == " " { scalars.removeFirst() }
    while scalars.last == " " { scalars.removeLast() }
    return String(scalars)
  }
}
