import SimKernel

/// App sessions: Poisson arrivals and a session-length distribution (spec §3 usage model).
public struct UsageModel: Equatable, Sendable {
  public var sessionsPerDay: Double
  /// Session length, seconds. [assumed] lognormal median 2 min, p99 20 min.
  public var sessionLength = Distribution.lognormal(median: 120, p99: 1200)
  /// From a session's end to suspension, seconds; nil uses the app's `backgroundGrace`.
  public var suspendAfterSeconds: Double? = nil
  /// Relative session rates for each hour of the day (24 weights, from midnight; needs the
  /// run's `clockStart`): sessions stay `sessionsPerDay` a day on average, spread as people
  /// open apps, in the morning and evening more than at night. Nil spreads them evenly.
  public var byHour: [Double]?
  /// Sessions on a clock rather than Poisson (`sessionsPerDay` is then 86,400 / period).
  public var period: Period?
  public init(sessionsPerDay: Double) { self.sessionsPerDay = sessionsPerDay }
}
