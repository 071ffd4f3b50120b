import Foundation
import SimCLI
import SimKernel
import SimMetrics
import SimScenario

/// A scenario run in-process and without files: decoded as `run` decodes it, run on one thread,
/// and read as typed values: its report, the code `run` would exit with, each summary metric and
/// each result table as `run` would write it (rendered in memory from the same writers). The
/// harness for tests that check a run's numbers; a test of the command line itself (its printed
/// lines, its files, its flags) runs `syncsim(...)` or `ScenarioRun`.
public struct WorldRun {
  /// The run's report (`ScenarioRunner.run`): outcome, summary, expectations, parts.
  public let report: RunReport
  /// The run's result files, rendered on first read.
  private let files: [ResultFile]

  /// Runs the scenario `text` (JSON), with the seed or duration overridden where given. Throws
  /// `WorldRunError.invalid` with every problem when it does not decode.
  public init(_ text: String, seed: UInt64? = nil, duration: SimDuration? = nil) throws {
    let scenario: Scenario
    do {
      scenario = try ScenarioDecoder.decode(Array(text.utf8), file: "scenario.json").0
    } catch {
      throw WorldRunError.invalid("\(error)")
    }
    report = ScenarioRunner.run(scenario, seed: seed, duration: duration, jobs: 1)
    files = report.resultFiles(version: SyncSimCommand.version, includeTrace: false)
  }

  /// Runs the library scenario `Scenarios/<library>.json` with each edit's text replaced (an edit
  /// whose text is not in the file throws, so a test never runs the unedited scenario by mistake).
  public init(
    library: String, edits: [(String, String)] = [], seed: UInt64? = nil, duration: SimDuration? = nil
  ) throws {
    var text = try String(contentsOfFile: packageRoot + "/Scenarios/\(library).json", encoding: .utf8)
    for (from, to) in edits {
      guard text.contains(from) else { throw ScenarioRunError.editNotFound(from) }
      text = text.replacingOccurrences(of: from, with: to)
    }
    try self.init(text, seed: seed, duration: duration)
  }

  /// The recorder of the library scenario `Scenarios/<library>.json`, its accounts run as one
  /// part (so that it sees every row), for a test that reads the model's own rows.
  public static func recorder(library: String) throws -> MetricsRecorder {
    let file = packageRoot + "/Scenarios/\(library).json"
    let scenario = try ScenarioDecoder.decode(Array(try Data(contentsOf: URL(fileURLWithPath: file))), file: file).0
    return ScenarioRunner.run(scenario, jobs: 1, partitioned: false).recorder
  }

  /// The code `syncsim run` exits with for this run: 1 when an expectation failed or the run
  /// stopped at the event limit, else 0.
  public var code: Int32 { report.allExpectationsMet && !report.outcome.stopReason.isEventLimit ? 0 : 1 }

  /// The result file `name` (`latency.csv`, `resolved.json`, ...) as `run` writes it, as text.
  public func text(_ name: String) throws -> String {
    guard let file = files.first(where: { $0.name == name }) else { throw ScenarioRunError.unreadable(name) }
    return file.renderedText()
  }

  /// The result table `name` (`latency.csv`, `activities.csv`, ...) as `run` writes it.
  public func table(_ name: String) throws -> ResultTable {
    guard let table = CSVTable.parse(try text(name)) else { throw ScenarioRunError.unreadable(name) }
    return ResultTable(table: table)
  }

  /// The metric `metric` of `summary.csv` (as written, so as a test of the file reads it); nil
  /// when the run has no such column or its value is empty.
  public func summary(_ metric: String) throws -> Double? {
    try table("summary.csv").rows.first?[metric].flatMap(Double.init)
  }
}

public enum WorldRunError: Error {
  /// The scenario did not decode: the problems, as `run` would print them.
  case invalid(String)
}
