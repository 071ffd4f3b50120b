import SimKernel
import SimMetrics
import SimModel

/// Turns a scenario's JSON into a `Scenario`, reporting every problem found.
public enum ScenarioDecoder {
  /// Limits that keep any scenario within memory and time (each message names the one hit).
  public enum Limits {
    /// A million devices run in about two minutes on two cores when their accounts are
    /// independent (each part then holds only its own state; docs/limits.md).
    public static let maxDevices = 1_000_000
    /// The highest store index an edit, a bulk action or a workload may name (`"store": i`).
    public static let highestStoreIndex = 15
    /// A world run in shards (`run --shard I/N`) decodes only its shard's devices (the world's
    /// parts are found from its device entries without expanding them), so it may hold more.
    public static let maxShardedDevices = 10_000_000
    public static let maxAccounts = 10_000_000
    public static let maxDuration = SimDuration.days(3650)
    public static let maxTimelineEntries = 100_000
    /// Devices named across all timeline entries (an entry for "all" counts every device).
    public static let maxTimelineDeviceActions = 2_000_000
    public static let maxBulkObjects = 1_000_000
    public static let maxEntities = 1_000
    /// Runs in one sweep (points × seeds).
    public static let maxSweepRuns = 100_000
    /// Points above which a sweep's validation decodes each factor's values once against the
    /// scenario rather than every point (docs/limits.md).
    public static let maxSweepPointsCheckedWhole = 2_000
    /// Edits in one independent part (`WorldPartitioning`; the whole world when accounts are
    /// coupled): a part's run keeps every write's record.
    public static let maxExpectedWrites = 20_000_000.0
    /// Edits in all the parts together: they bound the run's time.
    public static let maxTotalWrites = 200_000_000.0
    public static let maxFileBytes = 16 * 1024 * 1024
  }

  /// The top level's keys (`ScenarioObject.scenario`).
  static let topKeys = ScenarioObject.scenario.keys

  /// Where the first byte that is not valid UTF-8 is, or nil when all of it is.
  static func invalidUTF8Offset(_ bytes: [UInt8]) -> Int? {
    var decoder = UTF8()
    var iterator = bytes.makeIterator()
    var offset = 0
    while true {
      switch decoder.decode(&iterator) {
      case .scalarValue(let scalar): offset += UTF8.width(scalar)
      case .emptyInput: return nil
      case .error: return offset
      }
    }
  }

  /// Decodes `bytes` read from `file`; throws every problem when any is an error. `policies` are
  /// the scheduler policies the scenario may name (a researcher adds their own to SyncSim's).
  ///
  /// A scenario's own `sweep` section is checked by decoding each of its points (so `validate`
  /// refuses what `sweep` would); `checkingSweep: false` skips that, for decoding a point itself.
  ///
  /// A scenario whose `RunEstimate` is over a limit is refused unless `acceptLarge`.
  public static func decode(
    _ bytes: [UInt8], file: String, policies: PolicyRegistry = .standard, parameters: ParameterSet = .standard,
    checkingSweep: Bool = true,
    acceptLarge: Bool = false, shard: ShardWindow.Request? = nil
  ) throws(ScenarioProblems) -> (Scenario, [ScenarioProblem]) {
    guard bytes.count <= Limits.maxFileBytes else {
      throw ScenarioProblems(problems: [
        ScenarioProblem(
          file: file, path: "", message: "file is \(bytes.count) bytes, over the limit of \(Limits.maxFileBytes)")
      ])
    }
    if let offset = invalidUTF8Offset(bytes) {
      throw ScenarioProblems(problems: [
        ScenarioProblem(
          file: file, path: "", message: "invalid UTF-8 at byte \(offset)",
          hint: "save the file as UTF-8; SyncSim does not replace bad bytes, so names always match as written")
      ])
    }
    let root: JSONNode
    do {
      root = try JSONParser.parse(bytes)
    } catch {
      throw ScenarioProblems(problems: [
        ScenarioProblem(
          file: "\(file):\(error.line):\(error.column)", path: "", message: "malformed JSON: \(error.message)")
      ])
    }
    return try decode(
      root: root, file: file, policies: policies, parameters: parameters, checkingSweep: checkingSweep,
      acceptLarge: acceptLarge, shard: shard)
  }

  /// `decode` of a document already parsed (a sweep point's, edited in place: serializing and
  /// parsing each point again was 43 % of validating a sweep of 100 points, issue 71).
  static func decode(
    root: JSONNode, file: String, policies: PolicyRegistry = .standard, parameters: ParameterSet = .standard,
    checkingSweep: Bool = true, acceptLarge: Bool = false, shard: ShardWindow.Request? = nil,
    timelineMemo: TimelineMemo? = nil
  ) throws(ScenarioProblems) -> (Scenario, [ScenarioProblem]) {
    let reader = ScenarioReader(file: file)
    var builder = ScenarioBuilder(reader: reader, policyRegistry: policies, parameters: parameters)
    builder.shard = shard
    builder.timelineMemo = timelineMemo
    var scenario = builder.build(root)
    var problems = reader.reportedProblems
    if !acceptLarge, let scenario, !problems.contains(where: { $0.severity == .error }) {
      problems += RunEstimate(scenario).problems(file: file)
    }
    // Accepted over the limits, a run is let reach its end (it stopped at the default limit before,
    // though the refusal had said "pass --accept-large to run it anyway").
    if acceptLarge, let accepted = scenario, !problems.contains(where: { $0.severity == .error }) {
      scenario?.spec.maxEvents = RunEstimate(accepted).acceptedEventLimit
    }
    if checkingSweep, let scenario, let plan = scenario.sweep, !problems.contains(where: { $0.severity == .error }) {
      problems += sweepProblems(plan, root: root, file: file, policies: policies, acceptLarge: acceptLarge)
    }
    if problems.contains(where: { $0.severity == .error }) || scenario == nil {
      throw ScenarioProblems(problems: problems)
    }
    return (scenario!, problems)
  }

  /// The errors of the scenario's own sweep: each point decoded as `sweep` will decode it. A
  /// problem at a factor's path (a misspelt key) is reported at that factor; others name the point.
  static func sweepProblems(
    _ plan: SweepPlan, root: JSONNode, file: String, policies: PolicyRegistry, acceptLarge: Bool
  )
    -> [ScenarioProblem]
  {
    var result: [ScenarioProblem] = []
    var checked = plan.points()
    let everyPoint = checked.count <= Limits.maxSweepPointsCheckedWhole
    if !everyPoint {
      // Each value once, the other factors at their first: decodes grow with the values, not
      // with their product (65,536 points took over 200 s, one decode each).
      let whole = checked.count
      checked = plan.oneValueAtATime()
      result.append(
        ScenarioProblem(
          file: file, path: "sweep",
          message: "\(whole) points: validate checked each factor's values one at a time (\(checked.count) scenarios); "
            + "sweep checks every combination before it runs any",
          severity: .advice))
    }
    // A point's scenario never reads its sweep: without it, each decode is the scenario's size,
    // not the sweep's (10,000 values made validation quadratic).
    let base = root.removingMember("sweep")
    let memo = TimelineMemo.applies(to: plan.factors) ? TimelineMemo() : nil
    for point in checked {
      let (document, pathProblems) = plan.document(base, at: point, file: file)
      var problems = pathProblems
      do {
        _ = try decode(
          root: document, file: file, policies: policies, checkingSweep: false, acceptLarge: acceptLarge,
          timelineMemo: memo)
      } catch {
        problems += error.problems.filter { $0.severity == .error }.map {
          plan.pointProblem($0, file: file, point: point)
        }
      }
      for problem in problems {
        let mapped: ScenarioProblem
        if let index = plan.factors.firstIndex(where: {
          problem.path == $0.path || problem.path.hasPrefix($0.path + ".")
        }) {
          let factor = ScenarioReader.index("sweep.factors", index)
          let misspelt = problem.message.hasPrefix("unknown key")
          let value = plan.labels(of: point)[index]
          mapped = ScenarioProblem(
            file: file, path: ScenarioReader.join(factor, misspelt ? "path" : "values"),
            message: (misspelt ? "" : "value \(value): ") + "\(problem.path): \(problem.message)", hint: problem.hint)
        } else {
          let labels = zip(plan.factors, plan.labels(of: point)).map { "\($0.path)=\($1)" }.joined(separator: ", ")
          mapped = ScenarioProblem(
            file: file, path: "sweep",
            message: "at \(everyPoint ? "point \(point.index) " : "")(\(labels)): \(problem.path): \(problem.message)",
            hint: problem.hint)
        }
        if !result.contains(mapped) { result.append(mapped) }
      }
    }
    return result
  }
}
