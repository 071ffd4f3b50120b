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

    public init(path: String, steps: [JSONNode.PathStep], values: [JSONNode], zipGroup: String?) {
      self.path = path
      self.steps = steps
      self.values = values
      self.zipGroup = zipGroup
    }
  }

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

  /// The points in a stable order: cartesian over factor groups (the last group varies fastest),
  /// zipped factors stepping together, excluded combinations left out. Point indices count the
  /// kept points.
  public func points() -> [Point] {
    // Groups in order of first appearance; each group is either one factor or a zipped set.
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
    let lengths = groups.map { factors[$0[0]].values.count }
    var result: [Point] = []
    var counters = [Int](repeating: 0, count: groups.count)
    let total = lengths.reduce(1, *)
    for _ in 0..<total {
      var indices = [Int](repeating: 0, count: factors.count)
      for (group, members) in groups.enumerated() { for member in members { indices[member] = counters[group] } }
      if !isExcluded(indices) { result.append(Point(index: result.count, valueIndices: indices)) }
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

  func isExcluded(_ indices: [Int]) -> Bool {
    excluded.contains { rule in
      rule.allSatisfy { pair in
        guard let factor = factors.firstIndex(where: { $0.path == pair.path }) else { return false }
        return factors[factor].values[indices[factor]].serialized() == pair.value
      }
    }
  }

  /// The value of each factor at a point, as JSON text (for CSV columns and folder manifests).
  public func labels(of point: Point) -> [String] {
    factors.enumerated().map { index, factor in
      let text = factor.values[point.valueIndices[index]].serialized()
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
