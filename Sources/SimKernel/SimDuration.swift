/// A span of virtual time, in integer nanoseconds (about ±292 years).
///
/// Durations and instants are distinct types so that adding two instants does not compile.
/// The clock never uses `Double`; conversions from seconds round to the nearest nanosecond.
public struct SimDuration: Hashable, Comparable, Sendable, BitwiseCopyable {
  /// The length in nanoseconds.
  public var nanoseconds: Int64

  /// Creates a duration of `nanoseconds` nanoseconds.
  @inlinable public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

  public static let zero = SimDuration(nanoseconds: 0)

  @inlinable public static func nanoseconds(_ n: Int64) -> SimDuration { SimDuration(nanoseconds: n) }
  @inlinable public static func microseconds(_ n: Int64) -> SimDuration { SimDuration(nanoseconds: n * 1_000) }
  @inlinable public static func milliseconds(_ n: Int64) -> SimDuration { SimDuration(nanoseconds: n * 1_000_000) }
  @inlinable public static func seconds(_ n: Int64) -> SimDuration { SimDuration(nanoseconds: n * 1_000_000_000) }
  @inlinable public static func minutes(_ n: Int64) -> SimDuration { .seconds(n * 60) }
  @inlinable public static func hours(_ n: Int64) -> SimDuration { .seconds(n * 3_600) }
  @inlinable public static func days(_ n: Int64) -> SimDuration { .seconds(n * 86_400) }

  /// A duration of `seconds` seconds, rounded to the nearest nanosecond and clamped to the range.
  @inlinable @inline(__always) public init(seconds: Double) {
    // Round half away from zero with a plain conversion: `rounded()` calls libm (slow here).
    let scaled = seconds * 1e9
    if scaled.isNaN {
      nanoseconds = 0
    } else if scaled >= 9.2e18 {
      nanoseconds = Int64.max / 2
    } else if scaled <= -9.2e18 {
      nanoseconds = Int64.min / 2
    } else {
      nanoseconds = scaled >= 0 ? Int64(scaled + 0.5) : Int64(scaled - 0.5)
    }
  }

  /// The length in seconds, for reporting only (never for the clock).
  @inlinable public var seconds: Double { Double(nanoseconds) / 1e9 }

  @inlinable public static func < (a: SimDuration, b: SimDuration) -> Bool { a.nanoseconds < b.nanoseconds }
  @inlinable public static func + (a: SimDuration, b: SimDuration) -> SimDuration {
    SimDuration(nanoseconds: a.nanoseconds + b.nanoseconds)
  }
  @inlinable public static func - (a: SimDuration, b: SimDuration) -> SimDuration {
    SimDuration(nanoseconds: a.nanoseconds - b.nanoseconds)
  }
  @inlinable public static func += (a: inout SimDuration, b: SimDuration) { a = a + b }
  @inlinable public static func -= (a: inout SimDuration, b: SimDuration) { a = a - b }
  @inlinable public static func * (a: SimDuration, k: Int64) -> SimDuration {
    SimDuration(nanoseconds: a.nanoseconds * k)
  }
  @inlinable public static func / (a: SimDuration, k: Int64) -> SimDuration {
    SimDuration(nanoseconds: a.nanoseconds / k)
  }
}

extension SimDuration: CustomStringConvertible {
  /// Seconds with nine decimals, e.g. `1.500000000s`; locale-free.
  public var description: String { formatFixed(nanoseconds, decimals: 9) + "s" }
}

/// Formats `nanoseconds` as seconds with a fixed number of decimals, without Foundation or locale.
public func formatFixed(_ nanoseconds: Int64, decimals: Int) -> String {
  precondition((0...9).contains(decimals), "decimals must be 0...9, got \(decimals)")
  var divisor: Int64 = 1
  for _ in 0..<(9 - decimals) { divisor *= 10 }
  // Round half away from zero at the requested precision.
  let negative = nanoseconds < 0
  let magnitude = negative ? UInt64(bitPattern: 0 &- nanoseconds) : UInt64(nanoseconds)
  let scaled = (magnitude + UInt64(divisor / 2)) / UInt64(divisor)
  var scale: UInt64 = 1
  for _ in 0..<decimals { scale *= 10 }
  let whole = scaled / scale
  var text = (negative && scaled != 0 ? "-" : "") + String(whole)
  if decimals > 0 {
    let fraction = String(scaled % scale)
    text += "." + String(repeating: "0", count: decimals - fraction.count) + fraction
  }
  return text
}
