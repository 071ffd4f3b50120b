import SimKernel
import SimMetrics
import SimModel

/// Turns a scenario's JSON into a `Scenario`, reporting every problem found.
public enum ScenarioDecoder {
  /// Limits that keep any scenario within memory and time (each message names the one hit).
  public enum Limits {
    public static let maxDevices = 100_000
    public static let maxAccounts = 100_000
    public static let maxDuration = SimDuration.days(3650)
    public static let maxTimelineEntries = 100_000
    public static let maxBulkObjects = 1_000_000
    public static let maxEntities = 1_000
    public static let maxExpectedWrites = 20_000_000.0
    public static let maxFileBytes = 16 * 1024 * 1024
  }

  static let topKeys = [
    "version", "name", "description", "seed", "duration", "environment", "accounts", "devices", "model",
    "cloud", "push", "polling", "scheduler", "workloads", "usage", "timeline", "expect", "sampleInterval",
    "tolerances", "outputs", "sweep",
  ]

  /// Decodes `bytes` read from `file`; throws every problem when any is an error. `policies` are
  /// the scheduler policies the scenario may name (a researcher adds their own to SyncSim's).
  public static func decode(
    _ bytes: [UInt8], file: String, policies: PolicyRegistry = .standard
  ) throws(ScenarioProblems) -> (Scenario, [ScenarioProblem]) {
    guard bytes.count <= Limits.maxFileBytes else {
      throw ScenarioProblems(problems: [
        ScenarioProblem(
          file: file, path: "", message: "file is \(bytes.count) bytes, over the limit of \(Limits.maxFileBytes)")
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
    let reader = ScenarioReader(file: file)
    let scenario = ScenarioBuilder(reader: reader, policyRegistry: policies).build(root)
    let problems = reader.problems
    if problems.contains(where: { $0.severity == .error }) || scenario == nil {
      throw ScenarioProblems(problems: problems)
    }
    return (scenario!, problems)
  }
}
