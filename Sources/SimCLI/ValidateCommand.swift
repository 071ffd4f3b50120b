import Foundation
import SimExperiments
import SimKernel
import SimMetrics
import SimScenario

/// `syncsim validate FILE... [--strict]`: reports every problem of every file.
struct ValidateCommand {
  static let usage = """
    usage: syncsim validate FILE... [--strict] [--estimate] [--accept-large] [--shard I/N]

    Checks scenario files and reports every problem as `file: JSON path: problem (hint)`.
    Exits 65 if any file has an error (or, with --strict, a warning; advice never fails).
    A JSON Schema among the files (Scenarios/schema.json) is skipped, so Scenarios/*.json works.

      --strict         warnings are errors
      --estimate       print what a run would cost: writes, rows, events, memory, files
      --accept-large   accept a scenario whose estimate is over a limit (as run --accept-large)
      --shard I/N      check it as `run --shard I/N` decodes it: a world of over 1,000,000
                       devices holds only that shard's devices, and is estimated for them
    """

  static func run(_ arguments: [String], console: Console) throws(UsageError) -> ExitCode {
    var args = ArgumentList(arguments)
    if args.flag("help") {
      console.print(usage)
      return .success
    }
    let strict = args.flag("strict")
    let estimate = args.flag("estimate")
    let acceptLarge = args.flag("accept-large")
    let shard = try args.option("shard").map { text throws(UsageError) in try RunCommand.shardOption(text) }
    let files = try args.positionals()
    guard !files.isEmpty else { throw UsageError("validate needs at least one file") }
    var failed = false
    for file in files {
      let loaded = ScenarioFile.load(file, acceptLarge: acceptLarge, shard: shard)
      // Read once: only a file that is not a scenario is looked at again, as a schema.
      if loaded.scenario == nil && ScenarioFile.isJSONSchema(loaded.bytes) {
        console.print("\(file): skipped (a JSON Schema, not a scenario)")
        continue
      }
      var problems = loaded.problems
      // A sweep is refused as a whole too, as `sweep` would refuse it (with the CPUs as threads).
      let sweepEstimate = loaded.scenario.flatMap { scenario in
        scenario.sweep.flatMap { plan in
          (try? JSONParser.parse(loaded.bytes)).map {
            SweepEstimate(
              scenario, document: $0, plan: plan, shard: nil, jobs: ProcessInfo.processInfo.activeProcessorCount)
          }
        }
      }
      if !acceptLarge, let sweepEstimate { problems += sweepEstimate.problems(file: file) }
      if let shard, let scenario = loaded.scenario,
        let problem = RunShard.problem(scenario, count: shard.count, trace: false)
      {
        problems.append(ScenarioProblem(file: file, path: "", message: problem))
      }
      for problem in problems { console.error(problem.description) }
      let errors = problems.filter { $0.severity == .error || strict && $0.severity == .warning }.count
      if let scenario = loaded.scenario, errors == 0 {
        console.print(
          "\(file): ok (\(scenario.deviceNames.count) devices\(scenario.shardWindow.map { " of \($0.worldDevices), shard \($0.shard.text)" } ?? ""), \(DurationText.format(scenario.spec.duration)), \(scenario.expectations.count) expectations)"
        )
        if estimate { console.print("\(file): estimate \(RunEstimate(scenario).description)") }
        if estimate, let sweepEstimate { console.print("\(file): sweep estimate \(sweepEstimate.description)") }
      } else {
        failed = true
        console.print("\(file): \(errors) problem\(errors == 1 ? "" : "s")")
      }
    }
    return failed ? .dataError : .success
  }
}
