import SimKernel
import SimMetrics
import SimScenario

/// Runs a screening's points: each point's scenario is the document with its factors' values set,
/// run once per seed (the same seeds at every point, so that two points differ by the factor and
/// not by chance); a point's value of a metric is its mean over the seeds. Runs spread over
/// worker threads and are stored by index, so the result is the same whatever the thread count.
public struct SensitivityRunner: Sendable {
  public let document: JSONNode
  public let file: String
  public let factors: [SensitivityFactor]
  public let design: SensitivityDesign
  public let seeds: [UInt64]
  public let metrics: [String]

  public init(
    document: JSONNode, file: String, factors: [SensitivityFactor], design: SensitivityDesign, seeds: [UInt64],
    metrics: [String]
  ) {
    (self.document, self.file, self.factors, self.design) = (document.removingMember("sweep"), file, factors, design)
    (self.seeds, self.metrics) = (seeds, metrics)
  }

  /// How many worlds the screening runs: every point under every seed.
  public var runCount: Int { design.points.count * seeds.count }

  /// The scenario document of a point: each factor set at its level (left as written where nil).
  public func document(of point: Int) -> Result<JSONNode, ScenarioProblems> {
    var node = document
    var problems: [(path: String, message: String)] = []
    for (index, factor) in factors.enumerated() {
      guard let level = design.points[point][index] else { continue }
      node = factor.setting(level, in: node, problems: &problems)
    }
    guard problems.isEmpty else {
      let found = problems.map { ScenarioProblem(file: file, path: $0.path, message: $0.message) }
      return .failure(ScenarioProblems(problems: found))
    }
    return .success(node)
  }

  /// Every point's scenario, decoded before anything runs; the problems of every point that
  /// fails (each once), naming the point's values.
  public func resolveAll(acceptLarge: Bool = false) -> Result<[Scenario], ScenarioProblems> {
    var scenarios: [Scenario] = []
    var problems: [ScenarioProblem] = []
    var seen = Set<String>()  // membership only; problems keep their order
    for point in design.points.indices {
      do {
        let node = try document(of: point).get()
        let (scenario, _) = try ScenarioDecoder.decode(
          Array(node.serialized().utf8), file: file, checkingSweep: false, acceptLarge: acceptLarge)
        scenarios.append(scenario)
      } catch {
        for problem in error.problems where problem.severity == .error && seen.insert(problem.description).inserted {
          var named = problem
          named.message = "at \(describe(point)): \(problem.message)"
          problems.append(named)
        }
      }
    }
    return problems.isEmpty ? .success(scenarios) : .failure(ScenarioProblems(problems: problems))
  }

  /// A point's factors as set, for messages: "push.fanoutLatency=×3, cloud.requestLatency=×0.33".
  public func describe(_ point: Int) -> String {
    let set = factors.indices.compactMap { index in
      design.points[point][index].map { "\(factors[index].name)=\(factors[index].label(at: $0))" }
    }
    return set.isEmpty ? "the scenario as written" : set.joined(separator: ", ")
  }

  /// Runs every point under every seed on `jobs` threads; returns each point's mean of each
  /// metric (nil where no seed's run defines it). `progress` is told each finished run.
  public func execute(
    _ scenarios: [Scenario], jobs: Int, progress: (@Sendable (Int, Int) -> Void)? = nil
  ) -> [[Double?]] {
    means(of: execute(Array(0..<runCount), scenarios: scenarios, jobs: jobs, progress: progress))
  }

  /// Runs the runs numbered `runs` (run k is point k ÷ seeds under seed k mod seeds: a shard's
  /// share) on `jobs` threads; returns each one's metrics, in the order asked.
  /// `finished` is given each run's number and metrics as it finishes (from the thread that ran
  /// it), for a journal.
  public func execute(
    _ runs: [Int], scenarios: [Scenario], jobs: Int, progress: (@Sendable (Int, Int) -> Void)? = nil,
    finished: (@Sendable (Int, [Double?]) -> Void)? = nil
  ) -> [[Double?]] {
    let store = ResultStore<[Double?]>(count: runs.count)
    let metrics = metrics
    let seeds = seeds
    WorkerPool(jobs: max(1, jobs)).run(count: runs.count) { position in
      let (point, replication) = runs[position].quotientAndRemainder(dividingBy: seeds.count)
      let report = ScenarioRunner.run(scenarios[point], seed: seeds[replication], summaryOnly: true)
      let values = metrics.map { report.summary.value($0) }
      finished?(runs[position], values)
      store.set(position, values)
      progress?(store.finished, runs.count)
    }
    return store.results()
  }

  /// Each point's mean of each metric over its seeds, from every run's metrics in run order
  /// (nil where no seed's run defines it).
  public func means(of runs: [[Double?]]) -> [[Double?]] {
    design.points.indices.map { point in
      metrics.indices.map { metric in
        let values = (0..<seeds.count).compactMap { runs[point * seeds.count + $0][metric] }
        return values.isEmpty ? nil : values.reduce(0, +) / Double(values.count)
      }
    }
  }
}
