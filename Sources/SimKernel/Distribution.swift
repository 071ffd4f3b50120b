/// A probability distribution over real numbers (durations in seconds, sizes, counts).
///
/// Sampling uses only `RandomStream` and `DeterministicMath`, so a sample depends on the seed
/// alone. Values are not clamped: callers that need non-negative durations use
/// `sampleDuration(using:)`, which floors at zero.
public enum Distribution: Equatable, Sendable {
  /// Always `value`.
  case constant(Double)
  /// Uniform on [lower, upper).
  case uniform(lower: Double, upper: Double)
  /// Exponential with the given mean.
  case exponential(mean: Double)
  /// Normal with mean and standard deviation.
  case normal(mean: Double, standardDeviation: Double)
  /// Lognormal: exp(N(mu, sigma)).
  case lognormal(mu: Double, sigma: Double)
  /// One of `values`, chosen with probability proportional to `weights` (an empirical distribution).
  case choice(values: [Double], weights: [Double])

  /// The 99th percentile of the standard normal distribution.
  public static let z99 = 2.3263478740408408

  /// A lognormal distribution with the given median and 99th percentile.
  ///
  /// - Precondition: 0 < median ≤ p99.
  public static func lognormal(median: Double, p99: Double) -> Distribution {
    precondition(median > 0 && p99 >= median, "lognormal needs 0 < median ≤ p99")
    let mu = DeterministicMath.log(median)
    return .lognormal(mu: mu, sigma: (DeterministicMath.log(p99) - mu) / z99)
  }

  /// Draws one value.
  public func sample(using rng: inout RandomStream) -> Double {
    switch self {
    case .constant(let value): return value
    case .uniform(let lower, let upper): return rng.uniform(lower, upper)
    case .exponential(let mean): return rng.exponential(mean: mean)
    case .normal(let mean, let sd): return mean + sd * rng.standardNormal()
    case .lognormal(let mu, let sigma): return DeterministicMath.exp(mu + sigma * rng.standardNormal())
    case .choice(let values, let weights): return Self.pick(values, weights, &rng)
    }
  }

  /// Draws a value in seconds and converts it to a duration, floored at zero.
  public func sampleDuration(using rng: inout RandomStream) -> SimDuration {
    if case .constant(let value) = self { return SimDuration(seconds: max(0, value)) }
    return SimDuration(seconds: max(0, sample(using: &rng)))
  }

  /// The analytic mean.
  public var mean: Double {
    switch self {
    case .constant(let value): return value
    case .uniform(let lower, let upper): return (lower + upper) / 2
    case .exponential(let mean): return mean
    case .normal(let mean, _): return mean
    case .lognormal(let mu, let sigma): return DeterministicMath.exp(mu + sigma * sigma / 2)
    case .choice(let values, let weights):
      let total = weights.reduce(0, +)
      return zip(values, weights).reduce(0) { $0 + $1.0 * $1.1 } / total
    }
  }

  /// The analytic variance.
  public var variance: Double {
    switch self {
    case .constant: return 0
    case .uniform(let lower, let upper): return (upper - lower) * (upper - lower) / 12
    case .exponential(let mean): return mean * mean
    case .normal(_, let sd): return sd * sd
    case .lognormal(let mu, let sigma):
      let s2 = sigma * sigma
      return (DeterministicMath.exp(s2) - 1) * DeterministicMath.exp(2 * mu + s2)
    case .choice(let values, let weights):
      let total = weights.reduce(0, +)
      let m = mean
      return zip(values, weights).reduce(0) { $0 + $1.1 * ($1.0 - m) * ($1.0 - m) } / total
    }
  }

  private static func pick(_ values: [Double], _ weights: [Double], _ rng: inout RandomStream) -> Double {
    let total = weights.reduce(0, +)
    var target = rng.nextUnit() * total
    for (value, weight) in zip(values, weights) {
      if target < weight { return value }
      target -= weight
    }
    return values[values.count - 1]
  }
}
