import Foundation
import SimKernel
import SimMetrics
import SimModel
import SimScenario
import SimTestSupport
import Testing

@testable import SimExperiments

/// The fault swarm: reproducible worlds, invariants that catch what they claim to, and a
/// liveness check that fails when a world cannot converge.
@Suite struct SwarmTests {
  /// The help names every key the swarm draws, from the parameter table (a new range shows).
  @Test func theHelpListsTheKeysTheSwarmDraws() {
    let help = syncsim(["swarm", "--help"]).out
    let keys = ParameterTable.world.filter { $0.swarm != nil }.map(\.path)
    #expect(keys.count >= 6)
    for key in keys { #expect(help.contains("      " + key + "\n"), "\(key)") }
  }

  /// The faults the swarm injects are the ones the timeline's actions declare: each is drawn,
  /// each is healed by its own action, and a world holding them all validates.
  @Test func theSwarmsFaultsComeFromTheActionTable() throws {
    let faults = SwarmFault.all
    #expect(faults.count == 8)
    for fault in faults { #expect(SwarmFault.heal.contains(fault.off), "\(fault.off)") }
    #expect(SwarmFault.heal.suffix(2) == [#""launch""#, #""activate""#])
    let help = syncsim(["swarm", "--help"]).out
    for fault in faults { #expect(help.contains("      \(fault.on) until \(fault.off)\n"), "\(fault.on)") }
    let swarm = Swarm(seed: 11)
    let texts = (0..<300).map { swarm.scenario(run: $0) }
    for fault in faults {
      #expect(texts.contains { $0.contains("\"action\": \(fault.on)}") }, "never drawn: \(fault.on)")
    }
    let entries = faults.flatMap { [$0.on, $0.off] }.enumerated().map { index, action in
      "{\"at\": \"\(index + 1)m\", \"devices\": \"all\", \"action\": \(action)}"
    }
    let scenario = """
      {"version": 1, "name": "swarm-faults", "duration": "1h", "devices": [{"name": "a"}],
       "timeline": [\(entries.joined(separator: ", "))]}
      """
    // It decodes and runs (WorldRun throws with every problem otherwise), and the heal holds.
    let run = try WorldRun(scenario)
    #expect(try run.summary("converged") != nil)
  }

  @Test func runsAreReproducibleAndASmallSwarmPasses() {
    let swarm = Swarm(seed: 5)
    #expect(swarm.scenario(run: 3) == Swarm(seed: 5).scenario(run: 3))
    #expect(swarm.scenario(run: 3) != swarm.scenario(run: 4))
    let runs = swarm.runAll(count: 40, jobs: 2)
    #expect(runs.allSatisfy { $0.failures.isEmpty }, "\(runs.filter { !$0.failures.isEmpty }.map(\.failures))")
    #expect(runs.map(\.checks) == Swarm(seed: 5).runAll(count: 40, jobs: 1).map(\.checks))
    #expect(runs.reduce(0) { $0 + $1.checks } > 1000)
    let result = syncsim(["swarm", "--runs", "20", "--seed", "5", "--out", NSTemporaryDirectory() + "swarm-test"])
    #expect(result.code == 0 && result.out.contains("20 runs") && result.out.contains("0 failed"), "\(result.out)")
  }

  @Test func theSwarmDrawsBothClientsAndTheirWorldsPass() {
    // Of 200 worlds, about a quarter run CKSyncEngine alone and a quarter mix the clients; the
    // debug build checks the world's own invariants after every event as well as the swarm's.
    let swarm = Swarm(seed: 9)
    let worlds = (0..<200).map { swarm.scenario(run: $0) }
    let engine = worlds.filter { $0.contains("syncEngine") }
    let mixed = engine.filter { world in
      let deviceLines = world.split(separator: "\n").filter { $0.contains(#""appState""#) }
      return deviceLines.contains { !$0.contains("syncEngine") }
    }
    #expect(engine.count > 60 && engine.count < 140, "\(engine.count) of 200")
    #expect(!mixed.isEmpty)
    #expect(engine.allSatisfy { $0.contains("fetchChanges") })
    let outside = engine.filter { $0.contains("saveOutsideEngine") }
    #expect(outside.count > 5 && outside.count < engine.count, "\(outside.count) of \(engine.count)")
    for world in engine.prefix(20) + outside.prefix(10) {
      let result = Swarm.check(world)
      #expect(result.failures.isEmpty, "\(result.failures)")
      #expect(result.checks > 0)
    }
  }

  @Test func theInvariantsCatchAnExportFromADisabledStoreAndADoubleCommit() {
    let checker = SwarmInvariants(forwardingTo: MetricsRecorder(policyNames: []))
    let t = SimTime(nanoseconds: 1)
    checker.observe(.storeCreated(store: StoreID(0), device: DeviceID(0), zone: ZoneID(0), scope: .private))
    checker.observe(.storeCreated(store: StoreID(1), device: DeviceID(1), zone: .none, scope: nil))
    checker.observe(.setupFailed(store: StoreID(0), code: 134410, at: t))
    checker.observe(
      .activityRequested(activity: ActivityID(0), kind: .export, store: StoreID(0), trigger: .save, at: t))
    checker.observe(.activityStarted(activity: ActivityID(0), at: t))
    checker.observe(.committed(write: WriteID(1), activity: ActivityID(0), sequence: 1, at: t))
    checker.observe(.committed(write: WriteID(1), activity: ActivityID(0), sequence: 2, at: t))
    checker.observe(.imported(store: StoreID(1), activity: ActivityID(0), token: 1, records: 3, at: t))
    #expect(checker.failures.count == 3, "\(checker.failures)")
    #expect(checker.failures.contains { $0.contains("disabled (134410)") })
    #expect(checker.failures.contains { $0.contains("committed twice") })
    #expect(checker.failures.contains { $0.contains("no access to any zone") })
  }

  @Test func livenessFailsWhenNothingBringsADroppedPushsWriteInAndTheShrinkKeepsTheHeal() throws {
    // Every push dropped, and no activation after the heal's exports: the other device, in the
    // foreground, never imports (spec §7). The swarm's worlds open every app again for this.
    let text = """
      {"version": 1, "name": "stuck", "duration": "3h", "devices": [{"name": "a"}, {"name": "b"}],
       "push": {"dropProbability": 1},
       "timeline": [
         {"at": "10m", "devices": "a", "action": "goOffline"},
         {"at": "20m", "devices": "a", "action": {"edit": "insert"}},
         {"at": "30m", "devices": "b", "action": "goOffline"},
         {"at": "7200s", "devices": "all", "action": "goOnline"}],
       "outputs": ["summary"]}
      """
    let (failures, _, liveness) = Swarm.check(text)
    #expect(liveness)
    #expect(failures.contains { $0.hasPrefix("liveness: not converged") }, "\(failures)")
    let shrunk = Swarm.shrink(text)
    #expect(shrunk.contains("\"at\": \"7200s\""))
    #expect(!shrunk.contains("\"30m\""), "an entry the failure does not need is dropped:\n\(shrunk)")
    #expect(Swarm.check(shrunk).failures.contains { $0.hasPrefix("liveness") })
  }
}
