import SimKernel

/// Durations written as text with a unit (`"250ms"`, `"1.5s"`, `"30m"`, `"24h"`, `"7d"`) or as
/// plain seconds.
public enum DurationText {
  static let units: [(suffix: String, seconds: Double)] = [
    ("ns", 1e-9), ("us", 1e-6), ("µs", 1e-6), ("ms", 1e-3), ("s", 1), ("m", 60), ("min", 60), ("h", 3600),
    ("d", 86_400), ("w", 604_800),
  ]

  /// Parses `text`: plain seconds, a number with a unit, or several (`"1h30m"`, `"2d 6h"`);
  /// nil when it is none of these.
  public static func parse(_ text: String) -> SimDuration? {
    let trimmed = text.trimmingSpaces()
    if let seconds = Double(trimmed), seconds.isFinite, abs(seconds) < 9e9 { return SimDuration(seconds: seconds) }
    var rest = Substring(trimmed)
    var total = 0.0
    var parts = 0
    while !rest.isEmpty {
      while rest.first == " " { rest.removeFirst() }
      let numberEnd = rest.firstIndex { !($0.isNumber || $0 == "." || $0 == "-" || $0 == "+") } ?? rest.endIndex
      guard let value = Double(rest[..<numberEnd]), value.isFinite else { return nil }
      rest = rest[numberEnd...]
      while rest.first == " " { rest.removeFirst() }
      let unitEnd = rest.firstIndex { !$0.isLetter } ?? rest.endIndex
      let unit = String(rest[..<unitEnd])
      guard let factor = units.first(where: { $0.suffix == unit })?.seconds else { return nil }
      rest = rest[unitEnd...]
      total += value * factor
      parts += 1
    }
    guard parts > 0, abs(total) < 9e9 else { return nil }
    return SimDuration(seconds: total)
  }

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
