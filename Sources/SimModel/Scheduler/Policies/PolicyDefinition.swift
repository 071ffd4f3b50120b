import SimKernel

/// How a scheduler policy appears in a scenario: its name, its JSON keys, and how it is built.
///
/// Each policy declares its definition in its own file (`static let definition`), and
/// `PolicyRegistry` lists them. The scenario decoder, the JSON Schema, the summary's
/// `blocked.<name>.*` columns and the policy table of docs/scenario-format.md are all produced from the registry,
/// so a new policy is one file and one line in the registry.
public struct PolicyDefinition: Sendable {
  /// The policy's key under `scheduler.policies` and its name in results (a CSV-safe identifier).
  public var name: String
  /// One line: what the policy refuses, and when it lifts.
  public var summary: String
  /// The source tag of the policy's behaviour ([A], [RE], [assumed] ...).
  public var source: String
  /// Whether the policy is in the set when the scenario does not name it (spec §5's set).
  public var isOnByDefault: Bool
  /// The keys of the policy's JSON object, each with its default and source.
  public var options: [PolicyOption]
  /// Builds the policy from the options the scenario gave (the rest take their defaults).
  public var make: @Sendable (PolicyOptionValues) -> any SchedulerPolicy
  /// A documented rule of the real policy that the model leaves out, if any: a run whose
  /// activities this policy held says so, since the real device may have let them through.
  public var omittedRule: String?

  public init(
    name: String, summary: String, source: String, isOnByDefault: Bool, options: [PolicyOption] = [],
    omittedRule: String? = nil, make: @escaping @Sendable (PolicyOptionValues) -> any SchedulerPolicy
  ) {
    self.omittedRule = omittedRule
    self.name = name
    self.summary = summary
    self.source = source
    self.isOnByDefault = isOnByDefault
    self.options = options
    self.make = make
  }

  /// The policy with every option at its default.
  public func makeDefault() -> any SchedulerPolicy { make(PolicyOptionValues()) }
}

/// One key of a policy's JSON object.
public struct PolicyOption: Sendable {
  /// What the key's value is, and its accepted range.
  public enum Kind: Sendable {
    /// A whole number in `min...max`.
    case integer(min: Int, max: Int)
    /// A number in `min...max`.
    case number(min: Double, max: Double)
    /// A duration (a number of seconds or text with a unit), positive when `positive`, at most
    /// `maxSeconds`.
    case duration(positive: Bool, maxSeconds: Double)
    /// `true` or `false`.
    case bool
    /// A list of rate-limit windows: `[{"maxRuns": n, "window": duration}, ...]`.
    case rateLimitWindows
  }

  public var key: String
  public var kind: Kind
  /// The default as a scenario would write it (`"1h"`, `1`, `true`), for the schema and README.
  public var defaultText: String
  /// The default's source tag and figure, as in docs/specification.md (`[RE] 3600 s`).
  public var source: String
  /// What the key means, with its unit.
  public var meaning: String

  public init(key: String, kind: Kind, defaultText: String, source: String, meaning: String) {
    self.key = key
    self.kind = kind
    self.defaultText = defaultText
    self.source = source
    self.meaning = meaning
  }
}

/// The option values a scenario gave a policy, by key; a key not given reads as nil.
public struct PolicyOptionValues: Sendable {
  /// One decoded value.
  public enum Value: Sendable {
    case integer(Int)
    case number(Double)
    case seconds(Double)
    case bool(Bool)
    case rateLimitWindows([RateLimitWindow])
  }

  private var values: [(key: String, value: Value)] = []

  public init() {}

  /// Sets `key`'s value (a later value for the same key replaces it).
  public mutating func set(_ key: String, _ value: Value) {
    values.removeAll { $0.key == key }
    values.append((key, value))
  }

  func value(_ key: String) -> Value? { values.first { $0.key == key }?.value }

  public func integer(_ key: String) -> Int? {
    if case .integer(let value) = value(key) { value } else { nil }
  }

  public func number(_ key: String) -> Double? {
    switch value(key) {
    case .number(let value): value
    case .integer(let value): Double(value)
    default: nil
    }
  }

  public func seconds(_ key: String) -> Double? {
    if case .seconds(let value) = value(key) { value } else { nil }
  }

  public func bool(_ key: String) -> Bool? {
    if case .bool(let value) = value(key) { value } else { nil }
  }

  public func rateLimitWindows(_ key: String) -> [RateLimitWindow]? {
    if case .rateLimitWindows(let value) = value(key) { value } else { nil }
  }
}
