import Foundation
import SimExperiments
import SimMetrics
import SimReport
import SimScenario

/// `sensitivity A.json --versus B.json`: does B's difference from A survive the assumptions? Both
/// scenarios run at every point of one design (the same parameters at the same levels, the same
/// seeds), and the screening is of the difference B − A: its value as written, its span over the
/// assumptions, whether it keeps its sign at every point, and which assumption moves it most.
enum SensitivityVersus {
  /// What the A side has ready: its selection, design, runner and decoded points.
  struct Side {
    var selection: SensitivitySelection
    var design: SensitivityDesign
    var runner: SensitivityRunner
    var scenarios: [Scenario]
  }

  static func execute(
    _ options: SensitivityCommand.Options, versus file: String, a: Side, console: Console
  ) -> ExitCode {
    let loaded = ScenarioFile.load(file, acceptLarge: options.acceptLarge)
    for problem in loaded.problems { console.error(problem.description) }
    guard let scenario = loaded.scenario, let document = try? JSONParser.parse(loaded.bytes) else {
      return .dataError
    }
    let runner = SensitivityRunner(
      document: document, file: file, factors: a.selection.retargeted(to: scenario, document: document),
      design: a.design, seeds: a.runner.seeds, metrics: a.runner.metrics)
    let scenarios: [Scenario]
    switch runner.resolveAll(acceptLarge: options.acceptLarge) {
    case .success(let decoded): scenarios = decoded
    case .failure(let error):
      for problem in error.problems { console.error(problem.description) }
      console.error("\(error.problems.count) problem\(error.problems.count == 1 ? "" : "s") found in \(file); nothing was run")
      return .dataError
    }
    let clock = ContinuousClock()
    let started = clock.now
    let valuesA = a.runner.execute(a.scenarios, jobs: options.jobs)
    let valuesB = runner.execute(scenarios, jobs: options.jobs)
    let difference = zip(valuesA, valuesB).map { rowA, rowB in
      zip(rowA, rowB).map { valueA, valueB in valueA.flatMap { x in valueB.map { $0 - x } } }
    }
    var table = SensitivityTable(
      factors: a.selection.factors, design: a.design, metrics: a.runner.metrics, values: difference)
    for index in table.metrics.indices { table.metrics[index].name += " difference" }
    let directory = options.out ?? "Results/\(scenario.name)-versus-sensitivity"
    let design = SensitivityCommand.describe(
      options, design: a.design, factors: a.selection.factors.count, seeds: a.runner.seeds.count)
    let title = "Sensitivity of \(scenario.name) − \(a.runner.file)"
    let files = [
      ResultFile(name: "sensitivity.csv", text: table.csv.text),
      ResultFile(name: "sensitivity-points.csv", text: SensitivityCommand.pointsTable(a.runner, values: difference).text),
      ResultFile(name: "sensitivity.html", text: SensitivityCommand.page(table, title: title, design: design).html()),
    ]
    do { try ResultSetWriter.write(files, to: directory, kind: .sensitivity) } catch {
      console.error("error: cannot write results to \(directory): \(OutputPath.describe(error))")
      return .cannotCreate
    }
    console.print(
      "sensitivity \(file) − \(a.runner.file): \(design), each scenario, on \(options.jobs) thread"
        + "\(options.jobs == 1 ? "" : "s"), wall " + String(format: "%.2f", started.duration(to: clock.now).secondsValue)
        + " s")
    for (column, metric) in table.metrics.enumerated() {
      console.print(verdict(metric, column: column, difference: difference))
      console.print("  " + SensitivityCommand.words(metric, factors: a.selection.factors))
    }
    console.print("results \(directory)/")
    return .success
  }

  /// "latency.p95 difference: B − A is −12.3 s as written and below 0 at every one of 537 points:
  /// the difference survives the assumptions" or "… changes sign at 40 of 537 points: it does not".
  static func verdict(_ metric: SensitivityTable.Metric, column: Int, difference: [[Double?]]) -> String {
    let figure = { (value: Double?) in SensitivityPage.figureText(value, unit: metric.unit) }
    let values = difference.compactMap { $0[column] }
    guard let base = metric.base else { return "\(metric.name): undefined as written" }
    let sign = base < 0 ? -1.0 : base > 0 ? 1 : 0
    let against = values.filter { sign == 0 ? $0 != 0 : $0 * sign <= 0 }.count
    let side = sign < 0 ? "below 0" : sign > 0 ? "above 0" : "0"
    if against == 0 {
      return "\(metric.name): B − A is \(figure(base)) as written and \(side) at every one of \(values.count) points: "
        + "the difference survives the assumptions"
    }
    return "\(metric.name): B − A is \(figure(base)) as written, but not \(side) at \(against) of \(values.count) "
      + "points (from \(figure(metric.lowest)) to \(figure(metric.highest))): the difference does not survive them"
  }
}
