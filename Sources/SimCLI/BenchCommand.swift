import Foundation
import SimKernel

/// `syncsim bench kernel|fleet`: speed figures printed to the terminal, never written to files.
struct BenchCommand {
  static let usage = """
    usage: syncsim bench kernel [--pending N --events M]
           syncsim bench fleet [--accounts N] [--hours H] [--edits-per-hour R] [--rounds K]
                               [--jobs N] [--batch-devices N] [--one-kernel]
           syncsim bench fit [--scenario F] [--days D] [--jobs N] [--early-share S]
           syncsim bench sbc [--scenario F] [--draws N] [--hours H] [--particles N]
                             [--max-worlds N] [--jobs N] [--regression-adjust] [--early-share S]
           syncsim bench estimate FILE... [--durations D,D,...]
           syncsim bench sensitivity [--scenario F] [--trajectories N] [--seeds 1..3] [--rounds K] [--jobs N]

      kernel   the hold model at 1e3, 1e5 and 1e6 pending events: ns/event and events/s
      fleet    accounts × 2 devices on the private database with Poisson edits: events/s,
               wall time and peak memory; with --rounds K, K runs in one process and their
               minimum, median and maximum (the runs must agree on every event); every
               account is its own part with its own kernel, run on --jobs threads (default:
               the cores) in batches of --batch-devices devices; --one-kernel runs the whole
               fleet on one kernel, as before partitions
      fit      a run's event log fitted with a twin (by default the quickstart for 7 days,
               then the bulk importer's twin for 1 day; --scenario F fits F alone): each
               parameter's true value, estimate and interval, the held-back coverage, the
               fit's wall time and worlds per second, and how many worlds stopped early
      sbc      simulation-based calibration of the fit: --draws parameter sets from the
               prior (default 50), each run, logged and fitted with fit's defaults (100
               particles, at most 5,000 worlds); each true value's rank among posterior
               draws, with a χ² test of uniformity at 1 %
      estimate each scenario (at each of --durations) estimated, then run on one thread
               writing only its summary: the estimate's time (its files' share left out)
               against the run's CPU time; exit 1 when a run takes longer than estimated
      sensitivity  a Morris screening of the assumed parameters (default the quickstart, 10
               trajectories, seeds 1..3): its points decoded once, then its worlds run --rounds
               times (default 3, which must agree): worlds per second, minimum, median, maximum
    """

  static func run(_ arguments: [String], console: Console) throws(UsageError) -> ExitCode {
    if arguments.contains("--help") {
      console.print(usage)
      return .success
    }
    guard let target = arguments.first, !target.hasPrefix("--") else {
      throw UsageError("bench needs a target: kernel, fleet, fit, sbc, estimate or sensitivity")
    }
    let rest = Array(arguments.dropFirst())
    switch target {
    case "kernel":
      var args = ArgumentList(rest)
      let pending = try args.option("pending").map { Int($0) }
      let events = try args.option("events").map { Int($0) }
      _ = try args.positionals()
      if let pending {
        guard let pending, pending > 0, pending <= 10_000_000, let events = events ?? 5_000_000, events > 0 else {
          throw UsageError("--pending and --events must be positive (pending at most 10000000)")
        }
        return kernel(sizes: [(pending, events)], console: console)
      }
      return kernel(sizes: [(1_000, 5_000_000), (100_000, 5_000_000), (1_000_000, 3_000_000)], console: console)
    case "fleet": return try FleetBenchmark.command(rest, console: console)
    case "fit": return try FitBenchmark.fit(rest, console: console)
    case "sbc": return try FitBenchmark.sbc(rest, console: console)
    case "estimate": return try EstimateBenchmark.command(rest, console: console)
    case "sensitivity": return try SensitivityBenchmark.command(rest, console: console)
    default:
      throw UsageError("unknown bench target '\(target)' (expected kernel, fleet, fit, sbc, estimate or sensitivity)")
    }
  }

  static func kernel(sizes: [(Int, Int)], console: Console) -> ExitCode {
    console.print("hold model: pop the earliest event, schedule one at now + Exp(1 s); release build expected")
    console.print("pending      events    ns/event     events/s  fingerprint")
    for (pending, events) in sizes {
      let result = KernelBenchmark.run(pending: pending, events: events)
      console.print(
        pad(String(pending), 7) + pad(String(events), 12)
          + pad(String(format: "%.1f", result.nanosecondsPerEvent), 12)
          + pad(String(format: "%.0f", result.eventsPerSecond), 13) + "  " + result.fingerprint)
    }
    return .success
  }

  static func pad(_ text: String, _ width: Int) -> String {
    String(repeating: " ", count: max(0, width - text.count)) + text
  }
}
