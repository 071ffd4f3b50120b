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
  /// `a + b`, held at the largest or smallest duration instead of overflowing: for totals over
  /// a run's metrics (a thousand activities each blocked for ten years, or retry-afters of two
  /// years each, pass the 292 years an `Int64` of nanoseconds holds), never for the clock.
  @inlinable public func saturatingAdding(_ other: SimDuration) -> SimDuration {
    let (sum, overflow) = nanoseconds.addingReportingOverflow(other.nanoseconds)
    guard overflow else { return SimDuration(nanoseconds: sum) }
    return SimDuration(nanoseconds: other.nanoseconds > 0 ? .max : .min)
  }
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
  withFixedDigits(nanoseconds, decimals: decimals) { String(decoding: $0, as: UTF8.self) }
}

/// Appends `nanoseconds` as `formatFixed` writes it to `bytes`, with no `String` between: a
/// large `latency.csv` has millions of such fields.
public func appendFixed(_ nanoseconds: Int64, decimals: Int, to bytes: inout [UInt8]) {
  withFixedDigits(nanoseconds, decimals: decimals) { bytes.append(contentsOf: $0) }
}

/// Calls `body` with the UTF-8 digits of `nanoseconds` as seconds with `decimals` decimals.
@inline(__always)
func withFixedDigits<Result>(
  _ nanoseconds: Int64, decimals: Int, _ body: (UnsafeBufferPointer<UInt8>) -> Result
) -> Result {
  precondition((0...9).contains(decimals), "decimals must be 0...9, got \(decimals)")
  var divisor: UInt64 = 1
  for _ in 0..<(9 - decimals) { divisor *= 10 }
  // Round half away from zero at the requested precision.
  let negative = nanoseconds < 0
  let magnitude = negative ? UInt64(bitPattern: 0 &- nanoseconds) : UInt64(nanoseconds)
  var scaled = magnitude / divisor + (magnitude % divisor >= (divisor + 1) / 2 && divisor > 1 ? 1 : 0)
  // Digits written backwards into a small buffer, then handed over at once: a CSV of millions of
  // times spent a third of its time building these from pieces.
  return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { buffer in
    var position = 32
    func put(_ byte: UInt8) {
      position -= 1
      buffer[position] = byte
    }
    let isNegative = negative && scaled != 0
    if decimals > 0 {
      for _ in 0..<decimals {
        put(UInt8(ascii: "0") + UInt8(scaled % 10))
        scaled /= 10
      }
      put(UInt8(ascii: "."))
    }
    repeat {
      put(UInt8(ascii: "0") + UInt8(scaled % 10))
      scaled /= 10
    } while scaled > 0
    if isNegative { put(UInt8(ascii: "-")) }
    return body(UnsafeBufferPointer(rebasing: buffer[position..<32]))
  }
}
