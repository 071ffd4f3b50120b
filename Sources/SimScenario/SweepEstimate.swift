/// What a sweep costs as a whole, worked out before any point is decoded: each point's decoded
/// scenario and files, each run's result and rows, and the runs in flight at once.
///
/// A point's own run is estimated (and refused) as any run is (`RunEstimate`); what this adds is
/// what grows with the number of points and runs, which no single run's estimate sees: a sweep of
/// 100,000 values of one factor was accepted and would have held about 14 GB.
public struct SweepEstimate: Sendable, Equatable {
  public var points: Int
  public var runs: Int
  public var memoryBytes: Double
  public var outputBytes: Double

  /// Fitted on a two-device hour of quickstart's kind (104 metrics a run): 1,000 points of one
  /// seed peaked at 158 MB, 4,000 at 584 MB, 1,000 points of four seeds at 346 MB; their files
  /// were 31 MB, 117 MB and 58 MB (docs/limits.md).
  enum Cost {
    /// The decoded scenario of a point and its summary rows, held until the sweep is written.
    static let bytesPerPoint = 70_000.0
    /// A run's result (its metrics' values and provenance) and its rows of `sweep.csv`, held
    /// until the sweep is written.
    static let bytesPerRun = 63_000.0
    /// `sweep.csv`: a row per metric of each run.
    static let outputBytesPerRun = 8_700.0
    /// `sweep-summary.csv`'s rows of a point, its folder and `resolved.json`; its `scenario.json`
    /// is the document's size.
    static let outputBytesPerPoint = 16_500.0
  }

  /// - Parameters:
  ///   - base: the estimate of the scenario without its sweep (one run).
  ///   - documentBytes: the scenario file's size without its sweep section.
  ///   - jobs: threads; each runs one point's run at a time.
  public init(base: RunEstimate, points: Int, runs: Int, documentBytes: Int, jobs: Int) {
    self.points = points
    self.runs = runs
    let inFlight = Double(max(1, min(jobs, runs)))
    memoryBytes =
      RunEstimate.Cost.baseBytes + Cost.bytesPerPoint * Double(points) + Cost.bytesPerRun * Double(runs)
      + inFlight * max(0, base.memoryBytes - RunEstimate.Cost.baseBytes)
    outputBytes =
      Double(points) * (Cost.outputBytesPerPoint + Double(documentBytes)) + Cost.outputBytesPerRun * Double(runs)
  }

  /// The estimate of `plan` over `scenario` (whose file is `document`), for one shard of it or
  /// the whole: the shard's runs and the points they touch.
  public init(
    _ scenario: Scenario, document: JSONNode, plan: SweepPlan, shard: (index: Int, count: Int)?, jobs: Int
  ) {
    let points = plan.points().count
    var runs = points * max(1, plan.seeds.count)
    if let shard { runs = max(0, runs - (shard.index - 1) + shard.count - 1) / shard.count }
    self.init(
      base: RunEstimate(scenario), points: min(points, runs), runs: runs,
      documentBytes: document.removingMember("sweep").serialized().utf8.count, jobs: jobs)
  }

  /// One line for people: `~4,000 points, 4,000 runs, 584 MB of memory, 117 MB of files`.
  public var description: String {
    "~\(RunEstimate.count(Double(points))) points, \(RunEstimate.count(Double(runs))) runs, "
      + "\(RunEstimate.bytes(memoryBytes)) of memory, \(RunEstimate.bytes(outputBytes)) of files"
  }

  /// The problems of a sweep over a limit (empty when within them): the limits of a run.
  public func problems(file: String) -> [ScenarioProblem] {
    let hint = "fewer points or seeds, or run it in shards (--shard I/N, then merge); or pass --accept-large to run it anyway"
    let over = [
      ("need", "of memory", memoryBytes, RunEstimate.Limits.memoryBytes),
      ("write", "of files", outputBytes, RunEstimate.Limits.outputBytes),
    ].filter { $0.2 > $0.3 }
    return over.map { verb, what, bytes, limit in
      ScenarioProblem(
        file: file, path: "sweep",
        message: "the sweep would \(verb) about \(RunEstimate.bytes(bytes)) \(what) (\(description)), over the limit "
          + "of \(RunEstimate.bytes(limit))",
        hint: hint)
    }
  }
}
