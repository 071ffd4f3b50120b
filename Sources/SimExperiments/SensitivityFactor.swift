import SimKernel
import SimScenario

/// One parameter a sensitivity screening varies over its plausible range: where the scenario
/// holds it (one JSON path for a world key, one per `devices[]` entry for a device key), and the
/// value each level of the range (0 … 1) sets there.
public struct SensitivityFactor: Sendable {
  /// The key as `docs/parameters.md` names it: `push.fanoutLatency`, `devices[].power.battery`.
  public var name: String
  /// Where a point sets it, each a JSON path of the scenario.
  public var paths: [String]
  public var source: String
  public var unit: String
  public var range: PlausibleRange
  /// Whether the key takes whole numbers (an integer's level is rounded).
  public var whole: Bool
  /// Whether the value is JSON text without quotes (a bool) rather than a word.
  public var literalChoices: Bool
  /// The distribution a `.scale` range multiplies: the scenario's own value of the key.
  public var baseDistribution: Distribution?

  public init(
    name: String, paths: [String], source: String, unit: String, range: PlausibleRange, whole: Bool = false,
    literalChoices: Bool = false, baseDistribution: Distribution? = nil
  ) {
    (self.name, self.paths, self.source, self.unit, self.range) = (name, paths, source, unit, range)
    (self.whole, self.literalChoices, self.baseDistribution) = (whole, literalChoices, baseDistribution)
  }

  /// The number (in the key's unit) or factor at `level`; nil for a choice.
  public func number(at level: Double) -> Double? {
    switch range.span {
    case .numbers(let low, let high, let logarithmic):
      let value = logarithmic ? Self.ratio(low, high, level) : low + (high - low) * level
      return whole ? value.rounded() : value
    case .scale(let low, let high):
      return Self.ratio(low, high, level)
    case .choices:
      return nil
    }
  }

  /// The choice at `level`: the range's values split it evenly (0 the first, 1 the last).
  public func choice(at level: Double) -> String? {
    guard case .choices(let values) = range.span, !values.isEmpty else { return nil }
    return values[min(values.count - 1, Int(level * Double(values.count)))]
  }

  /// The JSON text a point sets at the factor's paths for `level`.
  public func json(at level: Double) -> String {
    if let word = choice(at: level) { return literalChoices ? word : JSONNode.quote(word) }
    let value = number(at: level) ?? 0
    if case .scale = range.span, let base = baseDistribution { return base.scaled(by: value).scenarioJSON }
    return Self.text(value)
  }

  /// `document` with the factor's value for `level` at each of its paths; each path that cannot
  /// be set (it crosses something that is not an object or array) is a message in `problems`.
  public func setting(_ level: Double, in document: JSONNode, problems: inout [(path: String, message: String)]) -> JSONNode {
    let value: JSONNode
    do { value = try JSONParser.parse(Array(json(at: level).utf8)) } catch {
      problems.append((name, "cannot write its value: \(error.message)"))
      return document
    }
    var node = document
    for path in paths {
      guard let steps = JSONNode.parsePath(path) else { continue }
      switch node.setting(value, at: steps[...]) {
      case .success(let updated): node = updated
      case .failure(let error): problems.append((path, error.message))
      }
    }
    return node
  }

  /// The value at `level` as a person reads it: "0.05 s", "×3", "container".
  public func label(at level: Double) -> String {
    if let word = choice(at: level) { return word }
    let value = number(at: level) ?? 0
    if case .scale = range.span { return "×" + PlausibleRange.short(value) }
    return PlausibleRange.short(value) + (unit.isEmpty || unit == "ratio" ? "" : " " + unit)
  }

  /// `low` to `high` by ratio: equal steps of level are equal factors.
  static func ratio(_ low: Double, _ high: Double, _ level: Double) -> Double {
    guard low > 0, high > 0 else { return low + (high - low) * level }
    if level == 1 { return high }  // exactly, not through exp(log(…))
    return low * DeterministicMath.exp(DeterministicMath.log(high / low) * level)
  }

  /// A number as JSON: whole numbers without a fraction, others in full.
  static func text(_ value: Double) -> String {
    value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
  }
}
