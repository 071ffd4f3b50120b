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
      #expect(world.clients.replayedLiveLooks > 1000, "updates and deletes looked for live objects")
      #expect(world.clients.replayedLiveMismatches == 0)
    #endif
  }

  /// Two public authors deleting 40 % of their edits: each one's own deletes, once exported, are
  /// put apart in its overlay (no page carries them again), so the entries searched at each edit
  /// and export stay about as many as its unexported edits while the deletes pile up apart.
  @Test func anAuthorsOwnDeletesArePutApartInItsOverlay() throws {
    let text = authorsScenarioText(name: "deletes", duration: "18h", editsPerHour: 150)
    let scenario = try ScenarioDecoder.decode(Array(text.utf8), file: "deletes.json").0
    var world = World(spec: scenario.spec, sink: ObservationLog())
    var sim = Simulation<ModelEvent>()
    world.start(&sim)
    _ = sim.run(&world, until: SimTime(scenario.spec.duration), maxEvents: 5_000_000)
    #expect(world.clients.overlays.count == 2)
    for overlay in world.clients.overlays {
      let (current, retired) = overlay.counts
      let dirty = overlay.filter { $0.local.dirty }.count
      #expect(retired > 500, "the store's exported deletes: \(retired)")
      #expect(current < dirty + retired / 4, "searched: \(current), unexported \(dirty), apart \(retired)")
    }
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

  /// The bit set against a plain set: 20,000 random updates over ids up to 300,000 (sparse, so
  /// that searches cross empty words and summary words), each followed by a search from a random
  /// start, wrapping round as the scan does.
  @Test func theBitSetAnswersAsASortedSet() {
    var index = ReplayedLiveIndex(stores: 1)
    index.set(0, [[]])
    var plain: [Int32] = []  // ascending
    var random = SplitMix64(seed: 53)
    var checked = 0
    for step in 0..<20_000 {
      let object = Int32(random.next() % (step < 10_000 ? 300_000 : 5_000))
      let isLive = random.next() % 3 != 0
      index.update(0, object: object, entity: 0, isLive: isLive)
      let position = plain.partitionPoint { $0 < object }
      let present = position < plain.count && plain[position] == object
      if isLive && !present { plain.insert(object, at: position) }
      if !isLive && present { plain.remove(at: position) }
      let start = Int32(random.next() % 320_000)
      let after = plain.partitionPoint { $0 < start }
      let expected = after < plain.count ? plain[after] : plain.first
      #expect(index.first(0, entity: 0, atOrAfter: start) == expected, "step \(step), start \(start)")
      checked += 1
    }
    #expect(checked == 20_000 && plain.count > 1_000)
  }
}
