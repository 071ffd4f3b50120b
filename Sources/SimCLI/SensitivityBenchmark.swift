import Foundation
import SimExperiments
import SimScenario

/// `syncsim bench sensitivity`: a screening's speed, to the terminal only. The scenario's points
/// are decoded once (as `sensitivity` does before it runs), then the runs are timed alone, each
/// round on `--jobs` threads; worlds per second is runs over wall time.
enum SensitivityBenchmark {
  static func command(_ arguments: [String], console: Console) throws(UsageError) -> ExitCode {
    var args = ArgumentList(arguments)
    let file = try args.option("scenario") ?? "Scenarios/quickstart.json"
    let trajectories = try ArgumentList.integer(try args.option("trajectories"), option: "trajectories", in: 1...1000) ?? 10
    let rounds = try ArgumentList.integer(try args.option("rounds"), option: "rounds", in: 1...100) ?? 3
    let jobs = try ArgumentList.integer(try args.option("jobs"), option: "jobs", in: 1...256)
      ?? ProcessInfo.processInfo.activeProcessorCount
    let seedsText = try args.option("seeds") ?? "1..3"
    _ = try args.positionals()
    guard let seeds = SweepPlan.parseSeeds(seedsText) else { throw UsageError("--seeds takes 1..3 or 1,2,5") }
    let loaded = ScenarioFile.load(file)
    for problem in loaded.problems where problem.severity == .error { console.error(problem.description) }
    guard let scenario = loaded.scenario, let document = try? JSONParser.parse(loaded.bytes) else { return .dataError }
    let clock = ContinuousClock()
    let prepared = clock.now
    let selection = SensitivitySelection(.assumed, scenario: scenario, document: document, file: file)
    let design = SensitivityDesign(
      method: .morris, factorCount: selection.factors.count, trajectories: trajectories, seed: scenario.spec.seed)
    let runner = SensitivityRunner(
      document: document, file: file, factors: selection.factors, design: design, seeds: seeds,
      metrics: ["latency.p50", "latency.p95"])
    guard case .success(let scenarios) = runner.resolveAll() else {
      console.error("error: a point of the screening does not decode; run `syncsim sensitivity \(file)` to see why")
      return .dataError
    }
    let decodeSeconds = prepared.duration(to: clock.now).secondsValue
    console.print(
      "screening \(scenario.name): \(selection.factors.count) parameters, \(trajectories) trajectories, "
        + "\(seeds.count) seeds: \(runner.runCount) worlds on \(jobs) thread\(jobs == 1 ? "" : "s") "
        + "(\(ProcessInfo.processInfo.activeProcessorCount) cores); selecting and decoding the points "
        + String(format: "%.2f s", decodeSeconds))
    var rates: [Double] = []
    var first: [[Double?]]?
    for round in 1...rounds {
      let started = clock.now
      let values = runner.execute(scenarios, jobs: jobs)
      let seconds = started.duration(to: clock.now).secondsValue
      if let first, !Self.same(first, values) {
        console.error("error: round \(round) differs from round 1: the runs are not deterministic")
        return .failure
      }
      first = first ?? values
      rates.append(Double(runner.runCount) / seconds)
      console.print(
        "round \(round): " + String(format: "%.3f s, %.0f worlds/s", seconds, Double(runner.runCount) / seconds))
    }
    let sorted = rates.sorted()
    console.print(
      String(format: "worlds/s: min %.0f, median %.0f, max %.0f", sorted[0], sorted[sorted.count / 2], sorted.last!))
    return .success
  }

  /// Whether two rounds gave the same figures, bit for bit (nil where nil).
  static func same(_ a: [[Double?]], _ b: [[Double?]]) -> Bool {
    a.count == b.count && zip(a, b).allSatisfy { $0.count == $1.count && zip($0, $1).allSatisfy { $0?.bitPattern == $1?.bitPattern } }
  }
}
