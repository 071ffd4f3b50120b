import SimMetrics

/// A parameter sweep: factors over scenario fields (by JSON path), their combination, and the
/// seeds of the replications. Written in the scenario's `sweep` section or on the command line.
public struct SweepPlan: Sendable {
  /// One factor: a JSON path and the values it takes.
  public struct Factor: Sendable {
    public var path: String
    public var steps: [JSONNode.PathStep]
    public var values: [JSONNode]
    /// Factors with the same group name vary together (zipped); nil = crossed with the rest.
    public var zipGroup: String?
    /// The factor's name in a report's axes and legends (nil: its JSON path).
    public var label: String?
    /// The report's x-axis scale when this factor is on it (nil: the report picks).
    public var scale: AxisScale?

    public init(
      path: String, steps: [JSONNode.PathStep], values: [JSONNode], zipGroup: String?, label: String? = nil,
      scale: AxisScale? = nil
    ) {
      self.path = path
      self.steps = steps
      self.values = values
      self.zipGroup = zipGroup
      self.label = label
      self.scale = scale
    }
  }

  /// How a report spaces a numeric factor's values on its x axis.
  public enum AxisScale: String, Sendable, CaseIterable {
    case linear, log
  }

  /// The report's title for the sweep (nil: the scenario's name).
  public var title: String?

  public var factors: [Factor] = []
  /// Combinations to skip: each is a set of (path, value) pairs that must all match.
  public var excluded: [[(path: String, value: String)]] = []
  /// The seeds of the replications (default: the scenario's seed only).
  public var seeds: [UInt64] = []

  public init() {}

  /// One point of the sweep: the value index of each factor.
  public struct Point: Sendable {
    public var index: Int
    public var valueIndices: [Int]
  }

  /// The factors in their groups, in order of first appearance: each group is one factor or a
  /// zipped set that steps together.
  func groups() -> [[Int]] {
    var groups: [[Int]] = []
    var groupNames: [String] = []
    for (index, factor) in factors.enumerated() {
      if let name = factor.zipGroup, let existing = groupNames.firstIndex(of: name) {
        groups[existing].append(index)
      } else {
        groups.append([index])
        groupNames.append(factor.zipGroup ?? "\u{0}\(index)")
      }
    }
    return groups
  }

  /// How many combinations the factors make before exclusions, counted without building them;
  /// `Int.max` when the product overflows.
  public func combinationCount() -> Int {
    var total = 1
    for group in groups() {
      let (product, overflow) = total.multipliedReportingOverflow(by: factors[group[0]].values.count)
      if overflow { return Int.max }
      total = product
    }
    return total
  }

  /// Why the sweep is too large or empty to run, if it is; counted before any point is built
  /// (25 two-valued factors are 33 million points), and enumerated only when exclusions could
  /// bring a count within ten times the limit down under it.
  public func sizeProblem(limit: Int = ScenarioDecoder.Limits.maxSweepRuns) -> (message: String, hint: String)? {
    let hint = "fewer factors or values, zipped factors, or one sweep per value of a factor (a cluster's array job)"
    let seedCount = max(1, seeds.count)
    let combinations = combinationCount()
    let (runs, overflow) = combinations.multipliedReportingOverflow(by: seedCount)
    if combinations > limit * 10 || (excluded.isEmpty && (overflow || runs > limit)) {
      let count = overflow || combinations == Int.max ? "more than \(Int.max)" : String(runs)
      let made = combinations == Int.max ? "too many combinations" : "\(combinations) combinations"
      return ("\(count) runs (\(made) × \(seedCount) seeds) is over the limit of \(limit)", hint)
    }
    let points = points().count
    if points == 0 { return ("every combination is excluded: nothing to run", "remove an exclusion") }
    if points * seedCount > limit {
      return ("\(points * seedCount) runs (\(points) points × \(seedCount) seeds) is over the limit of \(limit)", hint)
    }
    return nil
  }

  /// The points in a stable order: cartesian over factor groups (the last group varies fastest),
  /// zipped factors stepping together, excluded combinations left out. Point indices count the
  /// kept points. Takes time linear in the combinations: callers bound `combinationCount()` first.
  public func points() -> [Point] {
    let groups = groups()
    let lengths = groups.map { factors[$0[0]].values.count }
    let rules = exclusionRules()
    var result: [Point] = []
    var counters = [Int](repeating: 0, count: groups.count)
    let total = lengths.reduce(1, *)
    for _ in 0..<total {
      var indices = [Int](repeating: 0, count: factors.count)
      for (group, members) in groups.enumerated() { for member in members { indices[member] = counters[group] } }
      let excluded = rules.contains { rule in rule.allSatisfy { $0.values.contains(indices[$0.factor]) } }
      if !excluded { result.append(Point(index: result.count, valueIndices: indices)) }
      var position = groups.count - 1
      while position >= 0 {
        counters[position] += 1
        if counters[position] < lengths[position] { break }
        counters[position] = 0
        position -= 1
      }
    }
    return result
  }

  /// Points that between them give every factor each of its values once, the other factors at
  /// their first value (zipped factors step together): as many as the longest factors add up to.
  public func oneValueAtATime() -> [Point] {
    var result: [Point] = []
    for group in groups() {
      for value in factors[group[0]].values.indices where value > 0 || result.isEmpty {
        var indices = [Int](repeating: 0, count: factors.count)
        for member in group { indices[member] = value }
        result.append(Point(index: result.count, valueIndices: indices))
      }
    }
    return result
  }

  /// A problem of a point's scenario as the user can act on it: the scenario with the factors set
  /// is a document the user never wrote, so a syntax error in it (a factor's value nesting past
  /// the limit) names the point and its values, not a line of that document (which read as line
  /// 71 of a 20-line file).
  public func pointProblem(_ problem: ScenarioProblem, file: String, point: Point) -> ScenarioProblem {
    guard problem.file != file, problem.path.isEmpty else { return problem }
    let values = zip(factors, labels(of: point)).map { factor, label in
      // Short: a value that nests 60 deep is not read in a message.
      let line = label
      return "\(factor.path)=" + (line.count > 60 ? line.prefix(57) + "..." : line)
    }.joined(separator: ", ")
    let message =
      problem.message.hasPrefix("malformed JSON: ") ? String(problem.message.dropFirst(16)) : problem.message
    return ScenarioProblem(
      file: file, path: "sweep",
      message: "at point \(point.index) (\(values)): the scenario with these values is not valid JSON: \(message)",
      hint: "a factor's value nests too deep or is too large for a scenario", severity: problem.severity)
  }

  /// Each exclusion as the value indices it matches per factor, worked out once (comparing
  /// serialized values at every point made large sweeps slow). A rule naming no factor of the
  /// sweep never matches.
  func exclusionRules() -> [[(factor: Int, values: Set<Int>)]] {
    excluded.compactMap { rule in
      var matches: [(factor: Int, values: Set<Int>)] = []
      for pair in rule {
        guard let factor = factors.firstIndex(where: { $0.path == pair.path }) else { return nil }
        let values = Set(
          factors[factor].values.indices.filter { factors[factor].values[$0].serialized() == pair.value })
        matches.append((factor, values))
      }
      return matches
    }
  }

  /// The value of each factor at a point, as JSON text on one line (for CSV columns, folder
  /// manifests and messages): an object-valued factor is no multi-line CSV field.
  public func labels(of point: Point) -> [String] {
    factors.enumerated().map { index, factor in
      let text = factor.values[point.valueIndices[index]].compactSerialized()
      if case .string(let string) = factor.values[point.valueIndices[index]].value { return string }
      return text
    }
  }

  /// The scenario document of `point`: `base` with each factor's value set at its path, and a
  /// problem for each factor whose path crosses something that is not an object or array.
  public func document(
    _ base: JSONNode, at point: Point, file: String
  ) -> (document: JSONNode, problems: [ScenarioProblem]) {
    var node = base
    var problems: [ScenarioProblem] = []
    for (index, factor) in factors.enumerated() {
      switch node.setting(factor.values[point.valueIndices[index]], at: factor.steps[...]) {
      case .success(let updated): node = updated
      case .failure(let error): problems.append(ScenarioProblem(file: file, path: factor.path, message: error.message))
      }
    }
    return (node, problems)
  }
}

extension SweepLabels {
  /// A plan's labels, factor by factor.
  public init(plan: SweepPlan) {
    self.init(
      title: plan.title, factors: plan.factors.map { Factor(path: $0.path, label: $0.label, scale: $0.scale?.rawValue) })
  }
}
