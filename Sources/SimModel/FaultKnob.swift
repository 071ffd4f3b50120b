import SimKernel

/// A setting a request fault declares for itself (`RequestFault.knobs`): the scenario key
/// `cloud.<name>`, what it takes, its source and meaning, and the swarm's range.
///
/// The scenario's parameter table takes these rows from the faults (`RequestFaults.knobs`), and
/// the values reach the fault through `ServerParameters.faultKnobs`, so a fault with settings of
/// its own needs no field in `ServerParameters` and no row in `ParameterTable`: it is its file
/// and its line in `RequestFaults.Standard` (and a `CloudError` case when its error is new).
public struct FaultKnob: Sendable, Equatable {
  /// What the key takes.
  public enum Kind: Sendable, Equatable {
    /// A probability per request, from 0 (the default: the fault is off) to below 1.
    case probability
    /// A distribution of durations, with its default and the default as a scenario writes it.
    case distribution(default: Distribution, text: String)
  }

  /// What the swarm draws: with `probability`, a value uniform in `lower...upper`.
  public struct SwarmRange: Sendable, Equatable {
    public let probability: Double
    public let lower: Double
    public let upper: Double
  }

  /// The key below `cloud`.
  public let name: String
  public let kind: Kind
  /// The source tag and where it comes from.
  public let source: String
  /// What the key does, in a phrase.
  public let meaning: String
  /// Another knob (its name) that must be set for this one to do anything.
  public let needs: String?
  public let swarm: SwarmRange?

  /// The default of a distribution knob.
  var defaultDistribution: Distribution {
    guard case .distribution(let value, _) = kind else { preconditionFailure("\(name) is not a distribution") }
    return value
  }

  public init(
    _ name: String, _ kind: Kind, source: String, meaning: String, needs: String? = nil,
    swarm: (probability: Double, lower: Double, upper: Double)? = nil
  ) {
    self.name = name
    self.kind = kind
    self.source = source
    self.meaning = meaning
    self.needs = needs
    self.swarm = swarm.map { SwarmRange(probability: $0.probability, lower: $0.lower, upper: $0.upper) }
  }
}

/// The values a scenario gives the faults' own knobs; a knob left at its default is absent.
/// Read by key only, when the faults are made (`RequestFault.init?(server:)`).
public struct FaultKnobValues: Equatable, Sendable {
  var probabilities: [String: Double] = [:]
  var distributions: [String: Distribution] = [:]

  public init() {}

  /// The probability `knob` is set to (0, off, by default).
  public func probability(_ knob: FaultKnob) -> Double { probabilities[knob.name] ?? 0 }

  /// The distribution `knob` is set to, or its default.
  public func distribution(_ knob: FaultKnob) -> Distribution {
    distributions[knob.name] ?? knob.defaultDistribution
  }

  /// Sets `knob`'s probability; its default leaves it absent.
  public mutating func set(_ knob: FaultKnob, probability: Double) {
    probabilities[knob.name] = probability == 0 ? nil : probability
  }

  /// Sets `knob`'s distribution; its default leaves it absent.
  public mutating func set(_ knob: FaultKnob, distribution: Distribution) {
    distributions[knob.name] = distribution == knob.defaultDistribution ? nil : distribution
  }
}
