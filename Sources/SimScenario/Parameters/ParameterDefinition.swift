import SimKernel

/// One scenario key, declared once: where it is, what it takes, its default, unit, source and
/// meaning, when it does nothing, and what the swarm draws for it. The decoder, the schema, the
/// resolver's defaults, `docs/parameters.md`, the ignored-setting warnings and the swarm's random
/// worlds are all produced from these declarations (`ParameterTable`), as a policy's are from
/// `PolicyDefinition`; only structured values (stores, timeline actions, distributions' shapes)
/// are read by hand.
///
/// `Root` is what the key sets: `WorldSpec` for the sections (`cloud`, `push`, `polling`,
/// `scheduler`), `DeviceSpec` for a `devices[]` entry.
public struct ParameterDefinition<Root>: Sendable {
  /// What a key accepts; the decoder and the schema both read it.
  public enum Kind: Sendable, Equatable {
    /// A whole number in `min...max`.
    case integer(min: Int, max: Int)
    /// A number within bounds; `above` and `below` are exclusive.
    case number(min: Double? = nil, max: Double? = nil, above: Double? = nil, below: Double? = nil)
    /// A ratio from 0 to 1; `belowOne` refuses 1 (a certain failure would retry forever).
    case ratio(belowOne: Bool)
    /// A duration; `positive` refuses zero, and `atLeast` (with why) refuses shorter ones.
    case duration(positive: Bool, atLeast: SimDuration? = nil, why: String = "")
    case bool
    /// One of these words.
    case choice([String])
    /// A distribution of durations (`$defs/distribution`).
    case distribution
  }

  /// A decoded value.
  public enum Value: Sendable, Equatable {
    case integer(Int)
    case number(Double)
    case duration(SimDuration)
    case bool(Bool)
    case choice(String)
    case distribution(Distribution)

    public var integer: Int {
      if case .integer(let value) = self { return value }
      preconditionFailure("not an integer: \(self)")
    }

    public var number: Double {
      switch self {
      case .number(let value): return value
      case .integer(let value): return Double(value)
      default: preconditionFailure("not a number: \(self)")
      }
    }

    public var duration: SimDuration {
      if case .duration(let value) = self { return value }
      preconditionFailure("not a duration: \(self)")
    }

    public var bool: Bool {
      if case .bool(let value) = self { return value }
      preconditionFailure("not a bool: \(self)")
    }

    public var word: String {
      if case .choice(let value) = self { return value }
      preconditionFailure("not a choice: \(self)")
    }

    public var distribution: Distribution {
      if case .distribution(let value) = self { return value }
      preconditionFailure("not a distribution: \(self)")
    }
  }

  /// The default as a scenario would write it (what the schema states and `resolved.json`
  /// fills in), or what an absent key means when it has no value.
  public enum Default: Sendable, Equatable {
    case integer(Int)
    case number(Double)
    /// Duration text, e.g. "2.2ms".
    case duration(String)
    case bool(Bool)
    case choice(String)
    /// A distribution as JSON text, e.g. `{"lognormal": {"median": "2s", "p99": "60s"}}`.
    case distribution(String)
    /// No value: the key is off when absent; the text says what absence means ("unlimited").
    case absent(String)
  }

  /// What the swarm draws for the key in a random world: with `probability`, a value uniform in
  /// `lower...upper` (whole when `whole`; for a duration, seconds); otherwise the default.
  public struct SwarmRange: Sendable, Equatable {
    public var probability: Double
    public var lower: Double
    public var upper: Double
    public var whole: Bool

    public init(probability: Double, lower: Double, upper: Double, whole: Bool = false) {
      (self.probability, self.lower, self.upper, self.whole) = (probability, lower, upper, whole)
    }
  }

  /// The key's path below its root, dotted: `cloud.zoneBusyBackoff`, `power.battery`.
  public var path: String
  public var kind: Kind
  /// The unit of a number or duration ("records", "bytes", "s", "ratio"); empty for words.
  public var unit: String
  public var defaultValue: Default
  /// The source tag and where it comes from: "[A] TN3163 example", "[assumed]".
  public var source: String
  /// What the key does, in a phrase.
  public var meaning: String
  /// Another key of the same root that must be set (non-zero) for this one to do anything:
  /// the ignored-setting warning names it when this key is written and it is not.
  public var needs: String?
  /// The swarm's range, if the swarm varies the key.
  public var swarm: SwarmRange?
  /// A declared plausible range (a source's spread, a bound, sourced alternatives); nil leaves
  /// `plausibleRange` to the rule for `[assumed]` keys.
  public var range: PlausibleRange?
  /// Puts a decoded value into the root.
  public var apply: @Sendable (inout Root, Value) -> Void
  /// Reads the root's value back (nil where absent), so a test can hold the declared default
  /// against the model's own.
  public var read: @Sendable (Root) -> Value?

  public init(
    _ path: String, _ kind: Kind, unit: String = "", default defaultValue: Default, source: String, meaning: String,
    needs: String? = nil, swarm: SwarmRange? = nil, range: PlausibleRange? = nil, apply: @escaping @Sendable (inout Root, Value) -> Void,
    read: @escaping @Sendable (Root) -> Value?
  ) {
    self.path = path
    self.kind = kind
    self.unit = unit
    self.defaultValue = defaultValue
    self.source = source
    self.meaning = meaning
    self.needs = needs
    self.swarm = swarm
    self.range = range
    self.apply = apply
    self.read = read
  }

  /// Where the key could plausibly lie: its declared range, else the rule's for an `[assumed]`
  /// key (`PlausibleRange.derived`); nil for a key with a published value and no declared spread.
  public var plausibleRange: PlausibleRange? {
    if let range { return range }
    guard isAssumed else { return nil }
    return PlausibleRange.derived(kind: kind, default: defaultValue)
  }

  /// Whether the key's value rests on no published number (its source says `[assumed]`).
  public var isAssumed: Bool { source.contains("[assumed]") }

  /// The path's steps.
  public var steps: [String] { path.split(separator: ".").map(String.init) }

  /// The key itself, the last step.
  public var key: String { steps.last ?? path }
}

/// An object of keys: a section (`cloud`) or a nested object (`cloud.throttle`, `power`).
public struct ParameterGroup: Sendable, Equatable {
  /// The object's path below its root.
  public var path: String
  public var meaning: String
  /// Keys that must be present when the object is (`throttle` needs `requestsPerSecond`).
  public var required: [String]

  public init(_ path: String, meaning: String, required: [String] = []) {
    (self.path, self.meaning, self.required) = (path, meaning, required)
  }
}
