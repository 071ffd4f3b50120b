/// An instant of virtual time: integer nanoseconds since the start of the run.
public struct SimTime: Hashable, Comparable, Sendable, BitwiseCopyable {
  /// Nanoseconds since the start of the run.
  public var nanoseconds: Int64

  /// Creates the instant `nanoseconds` after the start of the run.
  @inlinable public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

  /// The start of every run.
  public static let zero = SimTime(nanoseconds: 0)
  /// A time later than any event; used as "never".
  public static let distantFuture = SimTime(nanoseconds: Int64.max)

  /// The instant `duration` after the start of the run.
  @inlinable public init(_ duration: SimDuration) { self.nanoseconds = duration.nanoseconds }

  /// This instant moved by `duration`, saturating at `distantFuture`.
  @inlinable public func advanced(by duration: SimDuration) -> SimTime {
    let (sum, overflow) = nanoseconds.addingReportingOverflow(duration.nanoseconds)
    return overflow ? .distantFuture : SimTime(nanoseconds: sum)
  }

  /// The duration from this instant to `other` (negative if `other` is earlier).
  @inlinable public func duration(to other: SimTime) -> SimDuration {
    SimDuration(nanoseconds: other.nanoseconds - nanoseconds)
  }

  /// Seconds since the start, for reporting only.
  @inlinable public var seconds: Double { Double(nanoseconds) / 1e9 }

  @inlinable public static func < (a: SimTime, b: SimTime) -> Bool { a.nanoseconds < b.nanoseconds }
  @inlinable public static func + (a: SimTime, b: SimDuration) -> SimTime { a.advanced(by: b) }
  @inlinable public static func - (a: SimTime, b: SimTime) -> SimDuration { b.duration(to: a) }
}

extension SimTime: CustomStringConvertible {
  /// `t=` and seconds with nine decimals.
  public var description: String { "t=" + formatFixed(nanoseconds, decimals: 9) + "s" }
}
