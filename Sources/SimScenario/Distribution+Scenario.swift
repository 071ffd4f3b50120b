import SimKernel

extension Distribution {
  /// The distribution with every duration multiplied by `factor` (> 0), its shape kept: a
  /// lognormal's mu moves by log(factor) and its sigma stays, a choice keeps its weights.
  public func scaled(by factor: Double) -> Distribution {
    switch self {
    case .constant(let value): return .constant(value * factor)
    case .uniform(let lower, let upper): return .uniform(lower: lower * factor, upper: upper * factor)
    case .exponential(let mean): return .exponential(mean: mean * factor)
    case .normal(let mean, let sd): return .normal(mean: mean * factor, standardDeviation: sd * factor)
    case .lognormal(let mu, let sigma): return .lognormal(mu: mu + DeterministicMath.log(factor), sigma: sigma)
    case .choice(let values, let weights): return .choice(values: values.map { $0 * factor }, weights: weights)
    }
  }

  /// The distribution as a scenario writes it (durations in seconds), which the reader reads
  /// back to the same distribution: `{"lognormal": {"mu": …, "sigma": …}}`, `{"uniform": [a, b]}`.
  public var scenarioJSON: String {
    let number = ScenarioReader.format
    switch self {
    case .constant(let value): return number(value)
    case .uniform(let lower, let upper): return #"{"uniform": [\#(number(lower)), \#(number(upper))]}"#
    case .exponential(let mean): return #"{"exponential": {"mean": \#(number(mean))}}"#
    case .normal(let mean, let sd): return #"{"normal": {"mean": \#(number(mean)), "sd": \#(number(sd))}}"#
    case .lognormal(let mu, let sigma): return #"{"lognormal": {"mu": \#(number(mu)), "sigma": \#(number(sigma))}}"#
    case .choice(let values, let weights):
      let items = zip(values, weights).map { #"{"value": \#(number($0)), "weight": \#(number($1))}"# }
      return #"{"choice": [\#(items.joined(separator: ", "))]}"#
    }
  }
}
