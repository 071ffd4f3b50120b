import Foundation
import SimKernel
import SimScenario

/// `syncsim bench estimate`: whether the estimate bounds a run's time. Each scenario (at each
/// `--durations` value) is estimated, then run on one thread writing only its summary; the
/// estimate's seconds less its files' share are set against the run's CPU seconds. Figures go to
/// the terminal.
enum EstimateBenchmark {
  static func command(_ arguments: [String], console: Console) throws(UsageError) -> ExitCode {
    var args = ArgumentList(arguments)
    let durations = try args.option("durations").map { text throws(UsageError) -> [SimDuration] in
      try text.split(separator: ",").map { part throws(UsageError) in
        guard let duration = DurationText.parse(String(part)), duration.seconds > 0, duration.seconds <= 400 * 86_400
        else { throw UsageError("--durations takes durations such as 1d,2d,4d,8d (each above 0, at most 400d)") }
        return duration
      }
    }
    let files = try args.positionals()
    guard !files.isEmpty else { throw UsageError("bench estimate needs scenario files") }
    console.print(
      "estimate: one core's seconds at most (files' share left out) against a summary-only run on one thread")
    console.print("scenario                      duration   est. events   events   est. s   cpu s   est./cpu")
    var under = 0
    for file in files {
      // Read as `run` reads it (bounded, regular files only).
      let loaded = ScenarioFile.load(file)
      guard !loaded.bytes.isEmpty else {
        for problem in loaded.problems { console.error(problem.description) }
        return .dataError
      }
      guard let scenario = loaded.scenario else {
        console.print("\(file): skipped, not a valid scenario (syncsim validate names its problems)")
        continue
      }
      for duration in durations ?? [scenario.spec.duration] {
        var timed = scenario
        timed.spec.duration = duration
        let estimate = RunEstimate(timed)
        let files = estimate.fileSeconds
        let started = processSeconds()
        let report = ScenarioRunner.run(timed, jobs: 1, summaryOnly: true)
        let cpu = processSeconds() - started
        let ratio = (estimate.seconds - files) / max(cpu, 1e-6)
        if ratio < 1 { under += 1 }
        console.print(
          String(scenario.name.prefix(28)).padding(toLength: 28, withPad: " ", startingAt: 0) + "  "
            + BenchCommand.pad(DurationText.format(duration), 8)
            + BenchCommand.pad(RunEstimate.count(estimate.events), 14)
            + BenchCommand.pad(RunEstimate.count(Double(report.outcome.processedEvents)), 9)
            + BenchCommand.pad(String(format: "%.2f", estimate.seconds - files), 9)
            + BenchCommand.pad(String(format: "%.2f", cpu), 8) + BenchCommand.pad(String(format: "%.1f", ratio), 11)
            + (ratio < 1 ? "  UNDER" : ""))
      }
    }
    console.print(under == 0 ? "every run within its estimate" : "runs over their estimate: \(under) (marked UNDER)")
    return under == 0 ? .success : .failure
  }

  /// This process's CPU seconds, user and system.
  static func processSeconds() -> Double {
    var usage = rusage()
    getrusage(Int32(RUSAGE_SELF.rawValue), &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
      + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
  }
}
