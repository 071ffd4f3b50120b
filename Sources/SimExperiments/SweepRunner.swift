import SimKernel
import SimMetrics
import SimModel
import SimScenario

/// Runs a sweep: every point × seed, each run single-threaded and deterministic; runs spread over
/// worker threads. Results are stored by run index, so the output is the same whatever the
/// number of workers or shards.
public struct SweepRunner: Sendable {
  public let name: String
  public let document: JSONNode
  public let sourceBytes: [UInt8]
  public let file: String
  public let plan: SweepPlan
  /// Run points whose `RunEstimate` is over a limit (`--accept-large`).
  public let acceptLarge: Bool

  public init(
    name: String, document: JSONNode, sourceBytes: [UInt8], file: String, plan: SweepPlan, acceptLarge: Bool = false
  ) {
    self.acceptLarge = acceptLarge
    self.name = name
    self.document = document
    self.sourceBytes = sourceBytes
    self.file = file
    self.plan = plan
  }

  /// One run of the sweep: a point and a replication.
  public struct Run: Sendable {
    public var index: Int
    public var point: SweepPlan.Point
    public var replication: Int
    public var seed: UInt64
  }

  /// What one run yields: its metrics and provenance.
  public struct RunResult: Sendable {
    public var run: Run
    /// The run's metrics (its policies' `blocked.*` among them) and their values.
    public var metrics: [RunSummary.MetricInfo]
    public var values: [Double?]
    public var fingerprint: String
    public var scenarioHash: String
  }

  /// A stable hash of the scenario file's bytes (the same for every shard of one sweep).
  public var sourceHash: String { TrajectoryFingerprint(bytes: sourceBytes).hex }

  /// Every run, in order: points outer, replications inner.
  public func runs(defaultSeed: UInt64) -> [Run] {
    let seeds = plan.seeds.isEmpty ? [defaultSeed] : plan.seeds
    var result: [Run] = []
    for point in plan.points() {
      for (replication, seed) in seeds.enumerated() {
        result.append(Run(index: result.count, point: point, replication: replication, seed: seed))
      }
    }
    return result
  }

  /// The scenario document of a point: the base with each factor's value set at its path, and
  /// without the sweep section, which a run ignores (each point's `scenario.json` held the whole
  /// list of values: 100,000 points of one factor would have written 100,000 copies of it).
  public func resolvedDocument(_ point: SweepPlan.Point) -> Result<JSONNode, ScenarioProblems> {
    let (node, problems) = plan.document(document.removingMember("sweep"), at: point, file: file)
    return problems.isEmpty ? .success(node) : .failure(ScenarioProblems(problems: problems))
  }

  /// Decodes every point's scenario first, so that any bad value is reported before anything runs.
  public func resolveAll() -> Result<[Int: Scenario], ScenarioProblems> {
    var scenarios: [Int: Scenario] = [:]
    var problems: [ScenarioProblem] = []
    // Each point decoded without the sweep section, which a run ignores: its size would
    // otherwise be paid once per point.
    let base = document.removingMember("sweep")
    for point in plan.points() {
      let (node, pathProblems) = plan.document(base, at: point, file: file)
      problems += pathProblems
      do {
        let (scenario, _) = try ScenarioDecoder.decode(
          Array(node.serialized().utf8), file: file, checkingSweep: false, acceptLarge: acceptLarge)
        scenarios[point.index] = scenario
      } catch {
        problems += error.problems.map { plan.pointProblem($0, file: file, point: point) }
      }
    }
    // The same problem usually repeats at every point: report each once, in order.
    var unique: [ScenarioProblem] = []
    var seen = Set<String>()  // membership only; problems keep their order
    for problem in problems where seen.insert(problem.description).inserted { unique.append(problem) }
    return unique.isEmpty ? .success(scenarios) : .failure(ScenarioProblems(problems: unique))
  }

  /// Runs `runs` on `jobs` threads; `progress` is told each time a run finishes, and `finished`
  /// is given each run's result as it finishes (from the thread that ran it).
  public func execute(
    _ runs: [Run], scenarios: [Int: Scenario], jobs: Int, progress: (@Sendable (Int, Int) -> Void)? = nil,
    finished: (@Sendable (RunResult) -> Void)? = nil
  ) -> [RunResult] {
    let store = ResultStore<RunResult>(count: runs.count)
    let pool = WorkerPool(jobs: max(1, jobs))
    pool.run(count: runs.count) { position in
      let run = runs[position]
      let scenario = scenarios[run.point.index]!
      let report = ScenarioRunner.run(scenario, seed: run.seed, summaryOnly: true)
      let result = RunResult(
        run: run, metrics: report.summary.catalog, values: report.summary.values, fingerprint: report.fingerprint,
        scenarioHash: report.scenarioHash)
      finished?(result)
      store.set(position, result)
      progress?(store.finished, runs.count)
    }
    return store.results()
  }
}
