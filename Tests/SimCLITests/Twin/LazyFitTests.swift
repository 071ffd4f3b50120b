import Foundation
import SimKernel
import SimModel
import SimScenario
import SimTestSupport
import Testing

@testable import SimTwin

/// The fit's early stop of hopeless worlds (lazy ABC, issue 78 item 6): a world paused at its
/// checkpoint runs on exactly as it would have, one stopped there weighs nothing, and one run on
/// although it looked hopeless weighs 1/keep, so the posterior keeps its expectation.
@Suite struct LazyFitTests {
  /// Quickstart for 6 hours, its spec and device names, and the log its seed-1 world leaves.
  static func world() throws -> (spec: WorldSpec, names: [String], log: SyncLog) {
    let text = try String(contentsOfFile: packageRoot + "/Scenarios/quickstart.json", encoding: .utf8)
    let scenario = try ScenarioDecoder.decode(Array(text.utf8), file: "quickstart.json", checkingSweep: false).0
    let log = SimulatedLog.run(scenario.spec, names: scenario.deviceNames, epoch: 0)
    return (scenario.spec, scenario.deviceNames, log)
  }

  static func decision(_ log: SyncLog, limit: Double, keep: Double) -> TwinFit.EarlyDecision {
    let end = Int64(2 * 3600) * 1_000_000
    let window = log.window(from: 0, to: end)
    let observed = LogSummaries(SyncTrace(events: window.events, devices: window.devices, span: (0, end)))
    let active = observed.values.indices.filter { observed.values[$0] != nil }
    return TwinFit.EarlyDecision(
      look: TwinFit.EarlyLook(end: end, observed: observed), active: active,
      scales: Array(repeating: 0.1, count: LogSummaries.definitions.count), limit: limit, keep: keep)
  }

  static func simulate(_ world: (spec: WorldSpec, names: [String], log: SyncLog), seed: UInt64, early: TwinFit.EarlyDecision?)
    -> TwinFit.Outcome
  {
    let parameters = TwinParameter.all
    return TwinFit.simulate(
      world.spec, names: world.names, epoch: 0, parameters: parameters,
      sigmas: parameters.map { $0.sigma(in: world.spec) }, units: parameters.map { _ in 0.5 }, seed: seed,
      lens: LogLens(world.log.events), window: nil, early: early)
  }

  @Test func aWorldPausedAtItsCheckpointRunsOnAsIfUnpaused() throws {
    let world = try Self.world()
    let whole = Self.simulate(world, seed: 5, early: nil)
    #expect(whole.summaries.compactMap { $0 }.count >= 6)
    // Every world passes the checkpoint: the same summaries as a world not paused.
    let paused = Self.simulate(world, seed: 5, early: Self.decision(world.log, limit: .infinity, keep: 0.1))
    #expect(!paused.stopped && paused.factor == 1)
    #expect(paused.summaries.map { $0 ?? -1 } == whole.summaries.map { $0 ?? -1 })
  }

  @Test func aHopelessWorldIsStoppedOrRunOnWithWeightOneOverKeep() throws {
    let world = try Self.world()
    // Every world looks hopeless (limit below any distance): about half go on, weighing 2.
    var stopped = 0
    for seed in UInt64(1)...40 {
      let outcome = Self.simulate(world, seed: seed, early: Self.decision(world.log, limit: -1, keep: 0.5))
      if outcome.stopped {
        stopped += 1
        #expect(TwinFit.distance(outcome.summaries, observed: [], active: [], scales: []) == .infinity)
      } else {
        #expect(outcome.factor == 2)
        #expect(outcome.summaries == Self.simulate(world, seed: seed, early: nil).summaries)
      }
    }
    // Binomial(40, 0.5): 10…30 holds with probability above 0.998, and the draws are fixed.
    #expect((10...30).contains(stopped), "\(stopped) of 40 stopped")
  }

  /// The fit itself: `generations.csv` counts the worlds stopped early; with `--early-share 0`
  /// none are, and both fits hold commit → push's known value.
  @Test(.enabled(if: longTestsEnabled, "a long test: SYNCSIM_LONG_TESTS=1 swift test runs it, as CI does")) func theFitCountsTheWorldsItStoppedEarly() throws {
    try withTemporaryDirectory { folder in
      let text = try String(contentsOfFile: packageRoot + "/Scenarios/quickstart.json", encoding: .utf8)
      try text.write(toFile: folder + "/base.json", atomically: true, encoding: .utf8)
      #expect(syncsim("run", folder + "/base.json", "--out", folder + "/run", "--event-log").code == 0)
      var stoppedBy: [String: Int] = [:]  // lookup only
      for share in ["0.3", "0"] {
        let fit = syncsim(
          "fit", folder + "/run/event-log.ndjson", "--scenario", folder + "/base.json", "--out", folder + "/fit" + share,
          "--particles", "24", "--max-worlds", "300", "--jobs", "2", "--early-share", share)
        #expect(fit.code == 0, "\(fit.err)")
        let generations = try ResultTable(path: folder + "/fit\(share)/generations.csv")
        stoppedBy[share] = Int(generations.rows.compactMap { $0.number("stoppedEarly") }.reduce(0, +))
        let table = try ResultTable(path: folder + "/fit\(share)/fit.csv")
        // Commit → push, the fan-out and the delivery (no apsd lines): 2.1 s.
        let push = try #require(table.rows.first { $0["parameter"] == "push.fanoutLatency + push.deliveryLatency" })
        if push["identified"] == "1" { #expect(push.number("low")! <= 2.1 && 2.1 <= push.number("high")!, "\(push)") }
      }
      #expect(stoppedBy["0"] == 0)
      #expect((stoppedBy["0.3"] ?? 0) > 0, "\(stoppedBy)")
    }
  }
}
