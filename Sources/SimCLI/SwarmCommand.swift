import Foundation
import SimExperiments
import SimScenario

/// `syncsim swarm [--runs N] [--seed S] [--jobs J] [--out DIR]`: random small worlds under random
/// faults, healed, checked for invariants and liveness.
struct SwarmCommand {
  /// The keys the swarm draws, from `ParameterTable` (a key given a swarm range is drawn).
  static let swarmKeys = ParameterTable.world.filter { $0.swarm != nil }.map { "      " + $0.path }
    .joined(separator: "\n")
  /// The faults the swarm schedules, each with its heal, from the timeline's action table.
  static let swarmFaults = SwarmFault.all.map { "      \($0.on) until \($0.off)" }.joined(separator: "\n")

  static let usage = """
    usage: syncsim swarm [--runs N] [--seed S] [--jobs J] [--out DIR] [--show K]

    A fault swarm: each run draws a small world (1–3 accounts of 1–3 devices, a shared zone in
    half of them), random edits, a random schedule of the faults the timeline's actions declare,
    each until its heal:
    \(swarmFaults)
    besides re-created containers, saves outside a CKSyncEngine app's engine and thermal pressure
    under the thermal policy, and the keys the parameter table gives a swarm range:
    \(swarmKeys)
    It heals every scheduled fault at 2 h (a drawn key stays) and runs 1 h more. It checks the
    conservation of writes, stage sums, no export from a disabled store, no record in a store
    without access, no write committed twice, and that every device has converged 1 h after the
    heal. Each failing run is printed with its seed; its scenario, shrunk to the fewest timeline
    entries that still fail, is written to DIR (default Results/swarm/).
    Exits 1 if any run fails.

      --runs N    how many runs (default 100)
      --seed S    the swarm's seed (default 1); run k of seed S is always the same world
      --jobs J    threads (default: the number of cores)
      --out DIR   where failing runs' scenarios go
      --show K    print run K's scenario as drawn, and run nothing
    """

  static func run(_ arguments: [String], console: Console) throws(UsageError) -> ExitCode {
    var args = ArgumentList(arguments)
    if args.flag("help") {
      console.print(usage)
      return .success
    }
    let runsText = try args.option("runs")
    let seedText = try args.option("seed")
    let jobsText = try args.option("jobs")
    let out = try OutputPath.folder(try args.option("out") ?? "Results/swarm", option: "--out")
    let showText = try args.option("show")
    if let extra = try args.positionals().first { throw UsageError("swarm takes no file (got \(extra))") }
    guard let runs = Int(runsText ?? "100"), runs >= 1, runs <= 1_000_000 else {
      throw UsageError("--runs must be 1…1000000")
    }
    guard let seed = UInt64(seedText ?? "1") else { throw UsageError("--seed must be a whole number") }
    guard let jobs = Int(jobsText ?? String(ProcessInfo.processInfo.activeProcessorCount)), jobs >= 1, jobs <= 256
    else { throw UsageError("--jobs must be 1…256") }
    let swarm = Swarm(seed: seed)
    if let showText {
      guard let index = Int(showText), index >= 0 else { throw UsageError("--show must be a run number (0, 1, ...)") }
      console.print(String(swarm.scenario(run: index).dropLast()))
      return .success
    }
    let clock = ContinuousClock()
    let started = clock.now
    let all = swarm.runAll(count: runs, jobs: jobs)
    var failed = 0
    for (index, run) in all.enumerated() where !run.failures.isEmpty {
      failed += 1
      let shrunk = Swarm.shrink(run.scenario)
      let file = out + "/swarm-\(seed)-\(index).json"
      do {
        try ScenarioFile.write([("swarm-\(seed)-\(index).json", shrunk)], to: out)
      } catch {
        console.error("error: cannot write \(file): \(OutputPath.describe(error))")
      }
      console.print("FAIL run \(index) (seed \(seed)): \(run.failures.joined(separator: "; "))")
      console.print("     reproduce: syncsim run \(file)")
    }
    let checks = all.reduce(0) { $0 + $1.checks }
    let liveness = all.filter(\.livenessChecked).count
    let wall = started.duration(to: clock.now)
    console.print(
      "swarm seed \(seed): \(runs) runs, \(checks) invariant checks, liveness asked of \(liveness) "
        + "(bound \(Int(Swarm.livenessBound.seconds / 60)) min after the heal), \(failed) failed, "
        + "wall \(String(format: "%.1f", Double(wall.components.seconds) + Double(wall.components.attoseconds) / 1e18)) s"
    )
    return failed == 0 ? .success : .failure
  }
}
