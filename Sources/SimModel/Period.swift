import SimKernel

/// Arrivals on a clock instead of Poisson: at `from + k·every` for k = 1, 2, … while that is at
/// most `until`, each delayed by a uniform draw in [0, `jitter`). With no jitter, a run of length T
/// starting at 0 makes exactly ⌊T / every⌋ arrivals.
public struct Period: Equatable, Sendable {
  public var every: SimDuration
  public var jitter = SimDuration.zero
  public var from = SimDuration.zero
  /// The last nominal arrival time; nil: the end of the run.
  public var until: SimDuration?

  public init(every: SimDuration) { self.every = every }

  /// The nominal time of arrival `k` (from 1).
  func nominal(_ k: Int32) -> SimTime { SimTime(from + every * Int64(k)) }

  /// The k-th arrival, jittered, or nil when it is past `until` (or the run's `end`).
  func arrival(_ k: Int32, end: SimDuration, stream: inout RandomStream) -> SimTime? {
    let nominal = nominal(k)
    guard nominal <= SimTime(until ?? end) else { return nil }
    guard jitter > .zero else { return nominal }
    return nominal + SimDuration(seconds: stream.nextUnit() * jitter.seconds)
  }
}
