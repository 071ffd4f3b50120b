import SimMetrics

extension ScenarioBuilder {
  /// Reads the `sweep` section: factors (path + values, optional zip group, label and axis
  /// scale), exclusions, seeds and the report's title.
  func sweep(_ node: JSONNode?) -> SweepPlan? {
    guard let fields = reader.object(node, "sweep", known: ScenarioObject.sweep.keys) else { return nil }
    var plan = SweepPlan()
    plan.title = reader.string(fields["title"], "sweep.title")
    let factorsPath = "sweep.factors"
    for (index, entry) in (reader.array(fields["factors"], factorsPath, maxCount: 32) ?? []).enumerated() {
      let path = ScenarioReader.index(factorsPath, index)
      guard let factor = reader.object(entry, path, known: ScenarioObject.sweepFactor.keys) else {
        continue
      }
      let target = reader.required(factor, "path", path) { reader.string($0, $1) }
      let values = reader.required(factor, "values", path) { reader.array($0, $1, maxCount: 10_000) }
      let zip = reader.string(factor["zip"], ScenarioReader.join(path, "zip"))
      let label = reader.string(factor["label"], ScenarioReader.join(path, "label"))
      let scale = reader.choice(factor["scale"], ScenarioReader.join(path, "scale"), SweepPlan.AxisScale.self)
      guard let target, let values else { continue }
      if var made = makeFactor(target, values: values, zip: zip, path: ScenarioReader.join(path, "path")) {
        made.label = label
        made.scale = scale
        if scale == .log, let bad = values.first(where: { !Self.isPositiveNumber($0) }) {
          reader.problem(
            ScenarioReader.join(path, "scale"),
            "a log scale needs positive numbers, and \(bad.serialized()) is not one",
            hint: "use \"linear\", or leave the scale out (the report then picks one)")
        }
        plan.factors.append(made)
      }
    }
    checkZipGroups(plan)
    for (index, entry) in (reader.array(fields["exclude"], "sweep.exclude", maxCount: 10_000) ?? []).enumerated() {
      guard case .object(let members) = entry.value else {
        reader.problem(ScenarioReader.index("sweep.exclude", index), "expected an object of path: value")
        continue
      }
      let rule = members.map { (path: $0.key, value: $0.value.serialized()) }
      for pair in rule where !plan.factors.contains(where: { $0.path == pair.path }) {
        reader.problem(
          ScenarioReader.join(ScenarioReader.index("sweep.exclude", index), pair.path),
          "\"\(pair.path)\" is not a factor of the sweep")
      }
      plan.excluded.append(rule)
    }
    if let seedsNode = fields["seeds"] { plan.seeds = seeds(seedsNode, "sweep.seeds") ?? [] }
    if let problem = plan.sizeProblem() { reader.problem("sweep", problem.message, hint: problem.hint) }
    return plan
  }

  func makeFactor(_ target: String, values: [JSONNode], zip: String?, path: String) -> SweepPlan.Factor? {
    guard let steps = JSONNode.parsePath(target) else {
      reader.problem(
        path, "\"\(target)\" is not a JSON path", hint: "for example push.dropProbability or devices[1].power.battery")
      return nil
    }
    if case .key(let first) = steps[0],
      !ScenarioDecoder.topKeys.contains(first) || ["sweep", "version", "$schema"].contains(first)
    {
      let hint = suggestion(for: first, among: ScenarioDecoder.topKeys).map { "did you mean \"\($0)\"?" }
      reader.problem(path, "\"\(first)\" is not a scenario section that a sweep can set", hint: hint)
      return nil
    }
    if values.isEmpty {
      reader.problem(path, "a factor needs at least one value")
      return nil
    }
    return SweepPlan.Factor(path: target, steps: steps, values: values, zipGroup: zip)
  }

  /// Whether a factor's value can sit on a log axis: a number or a duration (`"30m"`) above 0.
  static func isPositiveNumber(_ node: JSONNode) -> Bool {
    switch node.value {
    case .number(_, let value): return value > 0
    case .string(let text): return DurationText.seconds(text).map { $0 > 0 } ?? false
    default: return false
    }
  }

  func checkZipGroups(_ plan: SweepPlan) {
    var lengths: [String: Int] = [:]  // lookup only
    for factor in plan.factors {
      guard let group = factor.zipGroup else { continue }
      if let length = lengths[group], length != factor.values.count {
        reader.problem(
          "sweep.factors", "zipped factors of group \"\(group)\" have \(length) and \(factor.values.count) values",
          hint: "zipped factors step together, so they need as many values")
      }
      lengths[group] = factor.values.count
    }
  }

  /// Seeds as a list, `"1..30"`, or `{"from": 1, "count": 30}`.
  func seeds(_ node: JSONNode, _ path: String) -> [UInt64]? {
    switch node.value {
    case .string(let text):
      guard let range = SweepPlan.parseSeeds(text) else {
        reader.problem(path, "\"\(text)\" is not a seed range", hint: "write \"1..30\" or a list of seeds")
        return nil
      }
      return range
    case .array(let elements):
      let values = elements.enumerated().compactMap {
        reader.integer($0.element, ScenarioReader.index(path, $0.offset), min: 0, max: Int.max)
      }
      return values.count == elements.count ? values.map { UInt64($0) } : nil
    default:
      guard let fields = reader.object(node, path, known: ScenarioObject.seedRange.keys) else { return nil }
      let from = reader.required(fields, "from", path) { reader.integer($0, $1, min: 0, max: Int.max / 2) }
      let count = reader.required(fields, "count", path) { reader.integer($0, $1, min: 1, max: 100_000) }
      guard let from, let count else { return nil }
      return (0..<count).map { UInt64(from + $0) }
    }
  }
}

extension SweepPlan {
  /// The most seeds a range `A..B` may hold.
  public static let maxSeedRange: UInt64 = 100_000

  /// `A..B`'s bounds when both are seeds and `A ≤ B`, whatever the size; nil otherwise.
  public static func seedRangeBounds(_ text: String) -> (low: UInt64, high: UInt64)? {
    guard text.contains("..") else { return nil }
    let parts = text.splitting(on: "..")
    guard parts.count == 2, let low = UInt64(parts[0]), let high = UInt64(parts[1]), low <= high else { return nil }
    return (low, high)
  }

  /// Parses `"1..30"` (inclusive) or `"1,2,5"`.
  public static func parseSeeds(_ text: String) -> [UInt64]? {
    if text.contains("..") {
      guard let (low, high) = seedRangeBounds(text), high - low < maxSeedRange else { return nil }
      return Array(low...high)
    }
    let values = text.split(separator: ",").map { UInt64($0.trimmingCharacters(in: " ")) }
    guard !values.isEmpty, values.allSatisfy({ $0 != nil }) else { return nil }
    return values.map { $0! }
  }
}

extension StringProtocol {
  func trimmingCharacters(in characters: String) -> String {
    var slice = Substring(self)
    while let first = slice.first, characters.contains(first) { slice.removeFirst() }
    while let last = slice.last, characters.contains(last) { slice.removeLast() }
    return String(slice)
  }

  func splitting(on separator: String) -> [String] {
    // Without Foundation: the scenario format does not import it.
    let text = Array(utf8)
    let mark = Array(separator.utf8)
    var parts: [String] = []
    var start = 0
    var index = 0
    while !mark.isEmpty && index + mark.count <= text.count {
      if text[index..<index + mark.count].elementsEqual(mark) {
        parts.append(String(decoding: text[start..<index], as: UTF8.self))
        index += mark.count
        start = index
      } else {
        index += 1
      }
    }
    parts.append(String(decoding: text[start...], as: UTF8.self))
    return parts
  }
}
