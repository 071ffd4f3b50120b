import Foundation
import SimExperiments
import SimKernel
import SimMetrics
import SimScenario

/// `syncsim run SCENARIO.json [--seed N] [--duration D] [--out DIR] [--trace]`.
struct RunCommand {
  static let usage = """
    usage: syncsim run SCENARIO.json [--seed N] [--duration D] [--out DIR] [--trace]

    Runs a scenario, prints a summary and writes CSV results into DIR
    (default Results/<scenario name>/): summary.csv, latency.csv, activities.csv,
    timeline.csv, and trace.csv with --trace. Exits 1 if an expectation fails.

      --seed N        override the scenario's seed
      --duration D    override the simulated duration ("30m", "24h", "7d" or seconds)
      --out DIR       where to write the CSV files
      --trace         also write every processed event to trace.csv
    """

  static func run(_ arguments: [String], console: Console) throws(UsageError) -> ExitCode {
    var args = ArgumentList(arguments)
    if args.flag("help") {
      console.print(usage)
      return .success
    }
    let seedText = try args.option("seed")
    let durationText = try args.option("duration")
    let out = try args.option("out")
    let trace = args.flag("trace")
    let files = try args.positionals()
    guard files.count == 1 else {
      throw UsageError(files.isEmpty ? "run needs a scenario file" : "run takes one scenario file")
    }
    var seed: UInt64?
    if let seedText {
      guard let value = UInt64(seedText) else {
        throw UsageError("--seed must be a whole number from 0 to \(UInt64.max)")
      }
      seed = value
    }
    var duration: SimDuration?
    if let durationText {
      guard let value = DurationText.parse(durationText), value > .zero, value <= .days(3650) else {
        throw UsageError("--duration must be a positive duration such as 30m, 24h or 7d")
      }
      duration = value
    }
    let loaded = ScenarioFile.load(files[0])
    for problem in loaded.problems { console.error(problem.description) }
    guard let scenario = loaded.scenario else {
      console.error("\(loaded.problems.count) problem\(loaded.problems.count == 1 ? "" : "s") found; nothing was run")
      return .dataError
    }
    let clock = ContinuousClock()
    let started = clock.now
    var lastProgress = started
    let progress: ((SimTime, SimTime) -> Void)? =
      console.errIsTerminal
      ? { reached, end in
        let now = clock.now
        guard started.duration(to: now) > .seconds(2), lastProgress.duration(to: now) > .milliseconds(200) else {
          return
        }
        lastProgress = now
        let percent = end.nanoseconds > 0 ? Int(reached.nanoseconds * 100 / end.nanoseconds) : 100
        console.errorRaw(
          "\r\(scenario.name): \(percent)% of \(DurationText.format(SimDuration(nanoseconds: end.nanoseconds))) simulated"
        )
      } : nil
    let report = ScenarioRunner.run(
      scenario, seed: seed, duration: duration, trace: trace, sourceBytes: loaded.bytes, progress: progress)
    let wall = started.duration(to: clock.now)
    if console.errIsTerminal && started.duration(to: clock.now) > .seconds(2) { console.errorRaw("\r\u{1B}[K") }
    let directory = out ?? "Results/\(scenario.name)"
    do {
      try ScenarioFile.write(report.files(version: SyncSimCommand.version, includeTrace: trace), to: directory)
    } catch {
      console.error("error: cannot write results to \(directory): \(error.localizedDescription)")
      return .cannotCreate
    }
    RunSummaryPrinter.print(report, wall: wall, directory: directory, console: console)
    return report.allExpectationsMet ? .success : .failure
  }
}
