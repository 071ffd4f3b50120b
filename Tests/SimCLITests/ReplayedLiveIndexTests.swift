import Foundation
import SimKernel
import SimTestSupport
import Testing

@testable import SimModel
@testable import SimScenario

/// Issue 53, item 12: a replayed (public-database) store finds an edit's random live object in
/// its index of live objects, and the index answers as the scan it replaced: checked on every
/// look of a debug build (`World.replayedLiveMismatches`), through inserts, updates, deletes and
/// the pages of the store's imports.
@Suite struct ReplayedLiveIndexTests {
  @Test func theIndexAnswersAsTheScanThroughDeletesAndPages() throws {
    var document = try #require(
      try JSONSerialization.jsonObject(
        with: Data(contentsOf: URL(fileURLWithPath: packageRoot + "/Scenarios/public-development.json")))
        as? [String: Any])
    document["expect"] = nil
    document["duration"] = "12h"
    document["workloads"] = [["devices": "all", "editsPerHour": 120, "insertShare": 0.4, "deleteShare": 0.4]]
    let bytes = try JSONSerialization.data(withJSONObject: document)
    let scenario = try ScenarioDecoder.decode(Array(bytes), file: "p.json").0
    var world = World(spec: scenario.spec, sink: ObservationLog())
    var sim = Simulation<ModelEvent>()
    world.start(&sim)
    _ = sim.run(&world, until: SimTime(scenario.spec.duration), maxEvents: 2_000_000)
    #if DEBUG
      #expect(world.replayedLiveLooks > 1000, "updates and deletes looked for live objects")
      #expect(world.replayedLiveMismatches == 0)
    #endif
  }

  @Test func aSuccessorSearchWrapsRound() {
    var index = ReplayedLiveIndex(stores: 1)
    index.set(0, [[2, 5, 9]])
    #expect(index.first(0, entity: 0, atOrAfter: 5) == 5)
    #expect(index.first(0, entity: 0, atOrAfter: 6) == 9)
    #expect(index.first(0, entity: 0, atOrAfter: 10) == 2)
    index.update(0, object: 5, entity: 0, isLive: false)
    #expect(index.first(0, entity: 0, atOrAfter: 3) == 9)
    index.update(0, object: 7, entity: 1, isLive: true)
    #expect(index.first(0, entity: 1, atOrAfter: 0) == 7)
    #expect(index.first(0, entity: 2, atOrAfter: 0) == nil)
  }
}
