import SimKernel
import SimMetrics

/// Reads a JSON tree for a scenario, recording every problem with its JSON path instead of
/// stopping at the first. Each read returns nil (and records why) when the value is unusable.
final class ScenarioReader {
  let file: String
  private(set) var problems: [ScenarioProblem] = []
  /// At most this many problems are kept: a file of 100,000 bad references would otherwise take
  /// seconds and hundreds of megabytes to report. The rest are counted.
  static let maxProblems = 10_000
  private(set) var suppressed = 0
  /// Whether further problems are only counted: a hint (a did-you-mean search) is not worth
  /// working out for them.
  var isFull: Bool { problems.count >= Self.maxProblems }
  private(set) var suppressedError = false
  /// Logical keys named in the scenario, numbered in order of first appearance.
  private(set) var logicalKeys: [String] = []
  private var logicalKeyIndex: [String: Int32] = [:]  // lookup only

  func logicalKey(_ name: String) -> Int32 {
    if let index = logicalKeyIndex[name] { return index }
    logicalKeys.append(name)
    logicalKeyIndex[name] = Int32(logicalKeys.count - 1)
    return Int32(logicalKeys.count - 1)
  }

  init(file: String) { self.file = file }

  func record(_ problem: ScenarioProblem) {
    guard problems.count < Self.maxProblems else {
      suppressed += 1
      if problem.severity == .error { suppressedError = true }
      return
    }
    problems.append(problem)
  }

  func problem(_ path: String, _ message: String, hint: String? = nil) {
    record(ScenarioProblem(file: file, path: path, message: message, hint: hint))
  }

  func warning(_ path: String, _ message: String, hint: String? = nil) {
    record(ScenarioProblem(file: file, path: path, message: message, hint: hint, severity: .warning))
  }

  /// A cost the scenario may take on purpose: reported, never an error (not even with --strict).
  func advice(_ path: String, _ message: String, hint: String? = nil) {
    record(ScenarioProblem(file: file, path: path, message: message, hint: hint, severity: .advice))
  }

  /// The problems, with one more saying how many were left out (an error if any of them was).
  var reportedProblems: [ScenarioProblem] {
    guard suppressed > 0 else { return problems }
    return problems + [
      ScenarioProblem(
        file: file, path: "", message: "\(suppressed) more problems not listed (the first \(Self.maxProblems) are)",
        hint: "fix these and validate again", severity: suppressedError ? .error : .warning)
    ]
  }

  static func join(_ path: String, _ key: String) -> String { path.isEmpty ? key : path + "." + key }
  static func index(_ path: String, _ index: Int) -> String { path + "[\(index)]" }

  // MARK: - Objects

  /// The members of an object, after reporting keys not in `known` (with a did-you-mean).
  func object(_ node: JSONNode?, _ path: String, known: [String]) -> [String: JSONNode]? {
    guard let node else { return nil }
    guard case .object(let members) = node.value else {
      problem(path, "expected an object, got \(node.value.typeName)")
      return nil
    }
    var result: [String: JSONNode] = [:]
    for (key, value) in members {
      if known.contains(key) {
        result[key] = value
      } else {
        let hint =
          suggestion(for: key, among: known).map { "did you mean \"\($0)\"?" }
          ?? "known keys: " + known.joined(separator: ", ")
        problem(Self.join(path, key), "unknown key \"\(key)\"", hint: hint)
      }
    }
    return result
  }

  func array(_ node: JSONNode?, _ path: String, maxCount: Int) -> [JSONNode]? {
    guard let node else { return nil }
    guard case .array(let elements) = node.value else {
      problem(path, "expected an array, got \(node.value.typeName)")
      return nil
    }
    if elements.count > maxCount {
      problem(path, "\(elements.count) entries is more than the limit of \(maxCount)")
      return nil
    }
    return elements
  }

  // MARK: - Scalars

  func bool(_ node: JSONNode?, _ path: String) -> Bool? {
    guard let node else { return nil }
    guard case .bool(let value) = node.value else {
      problem(path, "expected true or false, got \(node.value.typeName)")
      return nil
    }
    return value
  }

  func string(_ node: JSONNode?, _ path: String) -> String? {
    guard let node else { return nil }
    guard case .string(let value) = node.value else {
      problem(path, "expected a string, got \(node.value.typeName)")
      return nil
    }
    return value
  }

  /// A name that reaches result files and reports (a device, entity, attribute, relationship or
  /// configuration): a string that a spreadsheet cannot read as a formula and that holds no
  /// control or bidirectional-override character (which would reorder what a reader sees).
  func name(_ node: JSONNode?, _ path: String) -> String? {
    guard let name = string(node, path) else { return nil }
    if let first = name.unicodeScalars.first, "=+-@".unicodeScalars.contains(first) {
      problem(
        path, "\"\(name)\" begins with '\(first)', which spreadsheets read as a formula",
        hint: "names go into CSV files; begin with a letter or digit")
    } else if let bad = name.unicodeScalars.first(where: ScenarioProblem.isUnprintable) {
      problem(
        path, "the name holds the invisible character U+\(String(bad.value, radix: 16, uppercase: true))",
        hint: "control and bidirectional-override characters would change what a reader of the results sees")
    }
    return name
  }

  func number(
    _ node: JSONNode?, _ path: String, min: Double? = nil, max: Double? = nil, above: Double? = nil
  ) -> Double? {
    guard let node else { return nil }
    guard case .number(_, let value) = node.value else {
      problem(path, "expected a number, got \(node.value.typeName)")
      return nil
    }
    if let above, value <= above {
      problem(path, "\(Self.format(value)) must be greater than \(Self.format(above))")
      return nil
    }
    if let min, value < min {
      problem(path, "\(Self.format(value)) is below \(Self.format(min))")
      return nil
    }
    if let max, value > max {
      problem(path, "\(Self.format(value)) is above \(Self.format(max))")
      return nil
    }
    return value
  }

  func integer(_ node: JSONNode?, _ path: String, min: Int, max: Int) -> Int? {
    guard let node else { return nil }
    guard case .number(let text, let value) = node.value else {
      problem(path, "expected a whole number, got \(node.value.typeName)")
      return nil
    }
    guard value == value.rounded(), !text.contains("."), abs(value) < 9e15 else {
      problem(path, "expected a whole number, got \(text)")
      return nil
    }
    let integer = Int(value)
    if integer < min {
      problem(path, "\(integer) is below \(min)")
      return nil
    }
    if integer > max {
      problem(path, "\(integer) is above \(max)")
      return nil
    }
    return integer
  }

  /// A ratio in [0, 1].
  func ratio(_ node: JSONNode?, _ path: String) -> Double? {
    guard let node else { return nil }
    guard case .number(_, let value) = node.value else {
      problem(path, "expected a number from 0 to 1, got \(node.value.typeName)")
      return nil
    }
    if value < 0 || value > 1 {
      problem(
        path, "\(Self.format(value)) is not a ratio from 0 to 1",
        hint: value > 1 && value <= 100 ? "write \(Self.format(value / 100)) for \(Self.format(value)) %" : nil)
      return nil
    }
    return value
  }

  /// A duration as text with a unit or plain seconds; `positive` refuses zero and negatives.
  func duration(
    _ node: JSONNode?, _ path: String, positive: Bool = false, max: SimDuration = .days(3650)
  ) -> SimDuration? {
    guard let node else { return nil }
    let parsed: SimDuration?
    switch node.value {
    case .number(_, let seconds): parsed = abs(seconds) < 9e9 ? SimDuration(seconds: seconds) : nil
    case .string(let text):
      parsed = DurationText.parse(text)
      if parsed == nil {
        problem(
          path, "\"\(text)\" is not a duration",
          hint: "write a number with a unit: \"250ms\", \"1.5s\", \"30m\", \"24h\", \"7d\", or plain seconds")
        return nil
      }
    default:
      problem(path, "expected a duration, got \(node.value.typeName)", hint: "for example \"30s\" or 30")
      return nil
    }
    guard let duration = parsed else {
      problem(path, "duration out of range")
      return nil
    }
    if duration < .zero || (positive && duration == .zero) {
      problem(path, "\(DurationText.format(duration)) must be \(positive ? "positive" : "zero or more")")
      return nil
    }
    if duration > max {
      problem(path, "\(DurationText.format(duration)) is longer than the limit of \(DurationText.format(max))")
      return nil
    }
    return duration
  }

  /// One of an enum's raw values.
  func choice<T: RawRepresentable & CaseIterable>(_ node: JSONNode?, _ path: String, _ type: T.Type) -> T?
  where T.RawValue == String {
    guard let text = string(node, path) else { return nil }
    if let value = T(rawValue: text) { return value }
    let names = T.allCases.map(\.rawValue)
    let hint =
      suggestion(for: text, among: names).map { "did you mean \"\($0)\"?" } ?? "one of: "
      + names.joined(separator: ", ")
    problem(path, "unknown value \"\(text)\"", hint: hint)
    return nil
  }

  static func format(_ value: Double) -> String {
    value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
  }

  // MARK: - Distributions

  /// A distribution of durations (seconds), written as a small object or a plain duration; its
  /// kinds are `DistributionKindTable`'s rows.
  func distribution(_ node: JSONNode?, _ path: String) -> Distribution? {
    guard let node else { return nil }
    switch node.value {
    case .string, .number:
      return duration(node, path).map { .constant($0.seconds) }
    default: break
    }
    guard let members = object(node, path, known: DistributionKindTable.names) else { return nil }
    guard members.count == 1, let (kind, value) = members.first else {
      // Only unknown kinds: `object` has reported each, with the kinds there are.
      if members.isEmpty, case .object(let written) = node.value, !written.isEmpty { return nil }
      problem(
        path, members.isEmpty ? "empty distribution" : "a distribution has exactly one kind",
        hint: "for example {\"lognormal\": {\"median\": \"150ms\", \"p99\": \"2s\"}}")
      return nil
    }
    // A kind outside the table: `object` has reported it, with the kinds there are.
    guard let row = DistributionKindTable.all.first(where: { $0.name == kind }) else { return nil }
    return row.read(self, value, Self.join(path, kind))
  }

  func uniformDistribution(_ value: JSONNode, _ inner: String) -> Distribution? {
    guard let bounds = array(value, inner, maxCount: 2), bounds.count == 2 else {
      problem(inner, "expected [lower, upper]")
      return nil
    }
    guard let lower = duration(bounds[0], Self.index(inner, 0)), let upper = duration(bounds[1], Self.index(inner, 1))
    else { return nil }
    guard lower <= upper else {
      problem(inner, "lower bound \(DurationText.format(lower)) is above upper bound \(DurationText.format(upper))")
      return nil
    }
    return .uniform(lower: lower.seconds, upper: upper.seconds)
  }

  func exponentialDistribution(_ value: JSONNode, _ inner: String) -> Distribution? {
    guard let fields = object(value, inner, known: ["mean"]) else { return nil }
    guard let mean = required(fields, "mean", inner, { self.duration($0, $1, positive: true) }) else { return nil }
    return .exponential(mean: mean.seconds)
  }

  func normalDistribution(_ value: JSONNode, _ inner: String) -> Distribution? {
    guard let fields = object(value, inner, known: ["mean", "sd"]) else { return nil }
    let mean = required(fields, "mean", inner) { self.duration($0, $1) }
    let sd = required(fields, "sd", inner) { self.duration($0, $1) }
    guard let mean, let sd else { return nil }
    return .normal(mean: mean.seconds, standardDeviation: sd.seconds)
  }

  func lognormal(_ node: JSONNode, _ path: String) -> Distribution? {
    guard let fields = object(node, path, known: ["median", "p99", "mu", "sigma"]) else { return nil }
    if fields["mu"] != nil || fields["sigma"] != nil {
      let mu = required(fields, "mu", path) { self.number($0, $1) }
      let sigma = required(fields, "sigma", path) { self.number($0, $1, min: 0) }
      if fields["median"] != nil || fields["p99"] != nil {
        problem(path, "give either median and p99, or mu and sigma")
      }
      guard let mu, let sigma else { return nil }
      return .lognormal(mu: mu, sigma: sigma)
    }
    let median = required(fields, "median", path) { self.duration($0, $1, positive: true) }
    let p99 = required(fields, "p99", path) { self.duration($0, $1, positive: true) }
    guard let median, let p99 else { return nil }
    guard p99 >= median else {
      problem(
        Self.join(path, "p99"), "p99 \(DurationText.format(p99)) is below the median \(DurationText.format(median))")
      return nil
    }
    return .lognormal(median: median.seconds, p99: p99.seconds)
  }

  func choiceDistribution(_ node: JSONNode, _ path: String) -> Distribution? {
    guard let options = array(node, path, maxCount: 10_000), !options.isEmpty else {
      problem(path, "expected a non-empty array of {\"value\": duration, \"weight\": number}")
      return nil
    }
    var values: [Double] = []
    var weights: [Double] = []
    for (index, option) in options.enumerated() {
      let optionPath = Self.index(path, index)
      guard let fields = object(option, optionPath, known: ["value", "weight"]) else { continue }
      let value = required(fields, "value", optionPath) { self.duration($0, $1) }
      let weight = required(fields, "weight", optionPath) { self.number($0, $1, above: 0) }
      if let value, let weight {
        values.append(value.seconds)
        weights.append(weight)
      }
    }
    guard values.count == options.count else { return nil }
    return .choice(values: values, weights: weights)
  }

  /// Reads a required member, reporting it when missing.
  func required<T>(_ fields: [String: JSONNode], _ key: String, _ path: String, _ read: (JSONNode?, String) -> T?) -> T?
  {
    guard let node = fields[key] else {
      problem(Self.join(path, key), "missing required key \"\(key)\"")
      return nil
    }
    return read(node, Self.join(path, key))
  }
}
