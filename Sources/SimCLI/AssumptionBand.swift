import SimExperiments
import SimKernel
import SimReport
import SimScenario
import SimTwin

/// `run --assumptions`: the run's headline metrics with their span over the assumptions, from a
/// one-at-a-time screening (`SensitivityDesign.oat`: each `[assumed]` parameter the scenario
/// leaves at its default, alone at each end of its plausible range, under the run's seed). It
/// misses what parameters do together; `syncsim sensitivity` measures that.
enum AssumptionBand {
  /// The metrics the band is given for.
  static let metrics = ["latency.p50", "latency.p95", "convergenceTime"]

  /// The lines printed after the run's summary, or why there are none.
  static func lines(
    file: String, bytes: [UInt8], scenario: Scenario, seed: UInt64?, duration: SimDuration?, jobs: Int
  ) -> [String] {
    guard let document = try? JSONParser.parse(bytes) else { return [] }
    let selection = SensitivitySelection(.assumed, scenario: scenario, document: document, file: file)
    guard !selection.factors.isEmpty else {
      return ["assumptions  none: every [assumed] key is set by the scenario or does nothing in it"]
    }
    let design = SensitivityDesign(method: .oat, factorCount: selection.factors.count, trajectories: 0, seed: 0)
    let runner = SensitivityRunner(
      document: document, file: file, factors: selection.factors, design: design,
      seeds: [seed ?? scenario.spec.seed], metrics: metrics)
    guard case .success(var scenarios) = runner.resolveAll() else {
      return ["assumptions  not measured: a parameter's end does not decode (syncsim sensitivity \(file) says why)"]
    }
    if let duration { for index in scenarios.indices { scenarios[index].spec.duration = duration } }
    let values = runner.execute(scenarios, jobs: jobs)
    var lines = [
      "assumptions  one at a time: \(selection.factors.count) [assumed] parameters, each alone at both ends of its "
        + "plausible range (\(design.points.count) worlds); together: syncsim sensitivity \(file)"
    ]
    for (column, metric) in metrics.enumerated() {
      lines.append(line(metric, column: column, values: values, runner: runner))
    }
    return lines
  }

  /// `fit --assumptions`: for the twin, which of each headline latency's five most influential
  /// parameters (one at a time, the identified ones over their 90 % intervals) the log identified,
  /// and which it left at their assumed value.
  static func fitLines(_ fitted: TwinFitRun, jobs: Int) -> [String] {
    let bytes = Array(fitted.twin.serialized().utf8)
    guard let (scenario, _) = try? ScenarioDecoder.decode(bytes, file: "twin.json") else { return [] }
    let intervals = fitted.estimate.parameters.filter(\.identified).map {
      SensitivitySelection.Fitted(path: $0.parameter.path, estimate: $0.estimate, low: $0.low, high: $0.high)
    }
    let selection = SensitivitySelection(
      .assumed, scenario: scenario, document: fitted.twin, file: "twin.json", fitted: intervals)
    guard !selection.factors.isEmpty else { return [] }
    let design = SensitivityDesign(method: .oat, factorCount: selection.factors.count, trajectories: 0, seed: 0)
    let metrics = ["latency.p50", "latency.p95"]
    let runner = SensitivityRunner(
      document: fitted.twin, file: "twin.json", factors: selection.factors, design: design,
      seeds: [scenario.spec.seed], metrics: metrics)
    guard case .success(let scenarios) = runner.resolveAll() else { return [] }
    let table = SensitivityTable(
      factors: selection.factors, design: design, metrics: metrics, values: runner.execute(scenarios, jobs: jobs))
    var lines = [
      "assumptions  the twin's \(selection.factors.count) parameters one at a time (\(design.points.count) worlds; "
        + "identified ones over their 90 % intervals):"
    ]
    for metric in table.metrics {
      lines.append("  \(metric.name):" + SensitivityCommand.identified(metric, factors: selection.factors).dropFirst(1))
    }
    return lines
  }

  /// "  latency.p95  32.397 s, from 12.1 s (push.fanoutLatency ×0.333) to 3.3 min (push.dropProbability 0.05)".
  static func line(_ metric: String, column: Int, values: [[Double?]], runner: SensitivityRunner) -> String {
    let unit = metric == "convergenceTime" || metric.hasPrefix("latency.") ? "s" : ""
    let figure = { (value: Double?) in SensitivityPage.figureText(value, unit: unit) }
    let name = metric.padding(toLength: 16, withPad: " ", startingAt: 0)
    let base = values[0][column]
    var lowest: (value: Double, point: Int)?
    var highest: (value: Double, point: Int)?
    for point in values.indices {
      guard let value = values[point][column] else { continue }
      if value < (lowest?.value ?? .infinity) { lowest = (value, point) }
      if value > (highest?.value ?? -.infinity) { highest = (value, point) }
    }
    guard let lowest, let highest else { return "  \(name)undefined at every end" }
    if lowest.value == highest.value { return "  \(name)\(figure(base)) at every end" }
    return "  \(name)\(figure(base)), from \(figure(lowest.value)) (\(runner.describe(lowest.point))) to "
      + "\(figure(highest.value)) (\(runner.describe(highest.point)))"
  }
}
