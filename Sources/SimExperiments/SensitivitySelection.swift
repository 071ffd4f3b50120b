import SimKernel
import SimModel
import SimScenario

/// Which parameters a screening varies, and why the others of the table are left out: the keys
/// with a plausible range (`assumed`: those tagged `[assumed]`; `all`: those with a declared spread
/// too), less those the scenario sets itself (its own value is its author's input, not an
/// assumption under the answer) and those that do nothing without a key it leaves unset. Keys
/// named one by one are varied whatever the scenario sets.
public struct SensitivitySelection: Sendable {
  /// What `--only` asked for.
  public enum Scope: Sendable, Equatable {
    case assumed, all
    case keys([String])
  }

  public var factors: [SensitivityFactor] = []
  /// Keys with a range left out, each with why.
  public var skipped: [(name: String, why: String)] = []
  /// Named keys that are no parameter or have no range, each with why (a usage error).
  public var problems: [String] = []

  /// A parameter a twin's fit identified (`fit.csv`): its estimate and 90 % interval, in the
  /// key's unit (a distribution's median).
  public struct Fitted: Sendable, Equatable {
    public var path: String
    public var estimate: Double
    public var low: Double
    public var high: Double

    public init(path: String, estimate: Double, low: Double, high: Double) {
      (self.path, self.estimate, self.low, self.high) = (path, estimate, low, high)
    }
  }

  /// The selection for `scope` in `scenario` (decoded from `document`).
  public init(
    _ scope: Scope, scenario: Scenario, document: JSONNode, file: String = "scenario.json",
    parameters: ParameterSet = .standard, fitted: [Fitted] = []
  ) {
    let named: [String]? = if case .keys(let keys) = scope { keys.map(Self.bareName) } else { nil }
    let deviceEntries = Self.deviceEntries(document)
    for definition in parameters.world {
      consider(
        definition, name: definition.path, paths: [definition.path], scope: scope, named: named,
        setByScenario: Self.node(document, definition.steps) != nil,
        needsUnset: definition.needs.map { Self.node(document, $0.split(separator: ".").map(String.init)) == nil }
          ?? false,
        base: definition.read(scenario.spec))
    }
    for definition in parameters.device {
      let paths = (0..<deviceEntries.count).map { "devices[\($0)].\(definition.path)" }
      let setBy = deviceEntries.contains { Self.node($0, definition.steps) != nil }
      let needsUnset =
        definition.needs.map { need in
          deviceEntries.allSatisfy { Self.node($0, need.split(separator: ".").map(String.init)) == nil }
        } ?? false
      consider(
        definition, name: "devices[]." + definition.path, paths: paths, scope: scope, named: named,
        setByScenario: setBy, needsUnset: needsUnset, base: scenario.spec.devices.first.flatMap(definition.read))
    }
    considerPolicies(document: document, scope: scope, named: named)
    for interval in fitted {
      guard let definition = parameters.world.first(where: { $0.path == interval.path }) else { continue }
      guard let range = Self.range(of: interval, base: definition.read(scenario.spec)) else { continue }
      factors.removeAll { $0.name == interval.path }
      skipped.removeAll { $0.name == interval.path }
      var made = factor(
        definition, name: interval.path, paths: [interval.path], range: range, base: definition.read(scenario.spec))
      made.source = "[fit] " + definition.source
      factors.append(made)
    }
    for name in named ?? [] where !factors.contains(where: { Self.bareName($0.name) == name }) {
      if !problems.contains(where: { $0.hasPrefix("\(name):") }) {
        problems.append("\(name): no scenario key of that name (docs/parameters.md lists them)")
      }
    }
    probe(document: document.removingMember("sweep"), file: file, named: named != nil)
  }

  /// Tries each factor alone at both ends of its range, as the decoder reads the scenario then:
  /// a factor the decoder refuses there (a key of `cloud.throttle`, which is off without its
  /// rate) or says it ignores (polling without a public store) changes nothing in this scenario,
  /// and is left out with the decoder's words; one named with `--only` is a problem instead.
  mutating func probe(document: JSONNode, file: String, named: Bool) {
    let baseline = Self.warnings(document, file: file)
    var kept: [SensitivityFactor] = []
    for factor in factors {
      var why: String?
      for level in [0.0, 1.0] where why == nil {
        var unset: [(path: String, message: String)] = []  // what cannot be set, the decoder names too
        let node = factor.setting(level, in: document, problems: &unset)
        do {
          let (_, warnings) = try ScenarioDecoder.decode(
            Array(node.serialized().utf8), file: file, checkingSweep: false, acceptLarge: true)
          why = warnings.first { !baseline.contains($0.description) }?.message
        } catch {
          why = error.problems.first { $0.severity == .error }.map { "\($0.path): \($0.message)" }
        }
      }
      if let why {
        if named { problems.append("\(Self.bareName(factor.name)): changes nothing in this scenario (\(why))") }
        else { skipped.append((factor.name, why)) }
      } else {
        kept.append(factor)
      }
    }
    factors = kept
  }

  /// The decoder's warnings about the document as written.
  static func warnings(_ document: JSONNode, file: String) -> Set<String> {
    let decoded = try? ScenarioDecoder.decode(
      Array(document.serialized().utf8), file: file, checkingSweep: false, acceptLarge: true)
    return Set((decoded?.1 ?? []).map(\.description))  // membership only
  }

  /// Adds the key when the scope takes it, or says why not.
  mutating func consider<Root>(
    _ definition: ParameterDefinition<Root>, name: String, paths: [String], scope: Scope, named: [String]?,
    setByScenario: Bool, needsUnset: Bool, base: ParameterDefinition<Root>.Value?
  ) {
    if let named {
      guard named.contains(Self.bareName(name)) else { return }
      guard let range = definition.plausibleRange else {
        problems.append("\(Self.bareName(name)): no plausible range (it has a published value; docs/parameters.md)")
        return
      }
      if paths.isEmpty {
        problems.append("\(Self.bareName(name)): the scenario has no devices to set it on")
        return
      }
      factors.append(factor(definition, name: name, paths: paths, range: range, base: base))
      return
    }
    guard let range = definition.plausibleRange, scope == .all || definition.isAssumed else { return }
    if paths.isEmpty { return }
    if setByScenario {
      skipped.append((name, "set by the scenario"))
    } else if needsUnset, let need = definition.needs {
      skipped.append((name, "does nothing without \(need)"))
    } else {
      factors.append(factor(definition, name: name, paths: paths, range: range, base: base))
    }
  }

  func factor<Root>(
    _ definition: ParameterDefinition<Root>, name: String, paths: [String], range: PlausibleRange,
    base: ParameterDefinition<Root>.Value?
  ) -> SensitivityFactor {
    var whole = false
    if case .integer = definition.kind { whole = true }
    var literal = false
    if case .bool = definition.kind { literal = true }
    var distribution: Distribution?
    if case .distribution(let value) = base { distribution = value }
    return SensitivityFactor(
      name: name, paths: paths, source: definition.source, unit: definition.unit, range: range, whole: whole,
      literalChoices: literal, baseDistribution: distribution)
  }

  /// The `[assumed]` options of the policies on by default (`activityGroup.limit`), by the same
  /// rule as the table's keys: a number a third to three times its default, a bool either way.
  /// A policy the scenario writes (`true`, `false` or an object) is its author's choice.
  mutating func considerPolicies(document: JSONNode, scope: Scope, named: [String]?) {
    for policy in PolicyRegistry.standard.definitions where policy.isOnByDefault {
      for option in policy.options where option.source.contains("[assumed]") {
        let name = "scheduler.policies.\(policy.name).\(option.key)"
        if let named, !named.contains(name) { continue }
        guard let range = Self.range(of: option) else { continue }
        if named == nil && Self.node(document, ["scheduler", "policies", policy.name]) != nil {
          skipped.append((name, "set by the scenario"))
          continue
        }
        var whole = false
        if case .integer = option.kind { whole = true }
        var literal = false
        if case .bool = option.kind { literal = true }
        factors.append(
          SensitivityFactor(
            name: name, paths: [name], source: option.source, unit: "", range: range, whole: whole,
            literalChoices: literal))
      }
    }
  }

  /// A policy option's range by the table's rule (`PlausibleRange.derived`), its kind and default
  /// read as a table key's; nil for a kind the rule does not cover (rate-limit windows).
  static func range(of option: PolicyOption) -> PlausibleRange? {
    typealias Key = ParameterDefinition<WorldSpec>
    let text = option.defaultText
    switch option.kind {
    case .integer(let min, let max):
      guard let value = Int(text) else { return nil }
      return PlausibleRange.derived(kind: Key.Kind.integer(min: min, max: max), default: Key.Default.integer(value))
    case .number(let min, let max):
      guard let value = Double(text) else { return nil }
      return PlausibleRange.derived(kind: Key.Kind.number(min: min, max: max), default: Key.Default.number(value))
    case .duration(let positive, let maxSeconds):
      // A table key's duration has no upper bound; a policy's does, and the range stays under it.
      let range = PlausibleRange.derived(kind: Key.Kind.duration(positive: positive), default: Key.Default.duration(text))
      guard case .numbers(let low, let high, _)? = range?.span, high > maxSeconds else { return range }
      return .numbers(low, maxSeconds, PlausibleRange.assumedReason)
    case .bool:
      return PlausibleRange.derived(kind: Key.Kind.bool, default: Key.Default.bool(text == "true"))
    default:
      return nil
    }
  }

  /// These factors set in another scenario (`sensitivity A --versus B`): a device key on each of
  /// its `devices[]` entries, a distribution scaled around its own value there. The ranges stay
  /// A's, so both scenarios meet the same assumptions at every point.
  public func retargeted(
    to scenario: Scenario, document: JSONNode, parameters: ParameterSet = .standard
  ) -> [SensitivityFactor] {
    let entries = Self.deviceEntries(document).count
    return factors.map { factor in
      var moved = factor
      let bare = Self.bareName(factor.name)
      if factor.name.hasPrefix("devices[].") {
        moved.paths = (0..<entries).map { "devices[\($0)].\(bare)" }
        let definition = parameters.device.first { $0.path == bare }
        if case .distribution(let value)? = scenario.spec.devices.first.flatMap({ definition?.read($0) }) {
          moved.baseDistribution = value
        }
      } else if let definition = parameters.world.first(where: { $0.path == bare }),
        case .distribution(let value)? = definition.read(scenario.spec)
      {
        moved.baseDistribution = value
      }
      return moved
    }
  }

  /// A fitted interval as a range: a distribution's scale from low / estimate to high / estimate
  /// (the fit estimates its median), a number's own bounds; nil for an empty interval.
  static func range(of interval: Fitted, base: ParameterDefinition<WorldSpec>.Value?) -> PlausibleRange? {
    guard interval.high > interval.low else { return nil }
    let reason = "the fit's 90 % interval"
    if case .distribution? = base {
      guard interval.estimate > 0, interval.low > 0 else { return nil }
      return .scale(interval.low / interval.estimate, interval.high / interval.estimate, reason)
    }
    return .numbers(interval.low, interval.high, reason)
  }

  /// A key as written without its `devices[].` prefix, the name `--only` accepts either way.
  static func bareName(_ name: String) -> String {
    name.hasPrefix("devices[].") ? String(name.dropFirst("devices[].".count)) : name
  }

  /// The scenario's `devices[]` entries.
  static func deviceEntries(_ document: JSONNode) -> [JSONNode] {
    guard case .array(let entries)? = document.member("devices")?.value else { return [] }
    return entries
  }

  /// The value at a dotted path of objects, if there is one.
  static func node(_ root: JSONNode, _ steps: [String]) -> JSONNode? {
    var node = root
    for step in steps {
      guard let next = node.member(step) else { return nil }
      node = next
    }
    return node
  }
}
