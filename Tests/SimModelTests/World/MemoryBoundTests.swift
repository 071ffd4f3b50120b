import SimKernel
import SimMetrics
import Testing

@testable import SimModel

/// Issue 19: what the server and the stores keep grows with the records, not with the writes.
@Suite struct MemoryBoundTests {
  /// One account of three foreground devices: 300 records made at the start, then only updates
  /// (three devices × 120 an hour) for `hours`.
  static func updatesOnly(hours: Int64, releaseEvery: Int? = nil) -> WorldSpec {
    var spec = TestWorlds.privatePair(count: 3, editsPerHour: 120, hours: hours, seed: 3)
    for index in spec.devices.indices { spec.devices[index].workload!.insertShare = 0 }
    spec.timeline = [
      TimelineAction(at: .zero, devices: [0], action: .bulkInsert(count: 300, entity: 0, oneSave: true, over: .zero))
    ]
    if let releaseEvery { spec.writeReleaseMinimum = releaseEvery }
    return spec
  }

  @Test func stateStaysUnderABoundPerRecordWhileWritesGrowTenfold() {
    // About 7,200 and 72,000 writes (both past the first release of writes).
    let short = WorldRunner.run(Self.updatesOnly(hours: 20), sink: ObservationLog())
    let long = WorldRunner.run(Self.updatesOnly(hours: 200), sink: ObservationLog())
    #expect(short.memory.objects == 300 && long.memory.objects == 300)
    #expect(short.processedEvents > 20_000 && long.processedEvents > 8 * short.processedEvents)
    // The bound: 1.5 KB per record the server holds (the record, three stores' copies, the change
    // log and the writes still referenced), whatever the number of writes. A third of it is the
    // write table's margin of 4,096 new writes between releases.
    #expect(long.memory.recordBytesPerObject < 1536, "\(long.memory.recordBytesPerObject) B per record")
    #expect(Double(long.memory.recordBytes) < 1.25 * Double(short.memory.recordBytes))
    // The change log holds at most twice the records and a margin; the write table what is
    // referenced and the writes since the last release.
    #expect(long.memory.loggedChanges <= 2 * 300 + 1024)
    #expect(long.memory.heldWrites < 12_000, "\(long.memory.heldWrites) writes held")
  }

  /// Releasing writes changes nothing the world does: at every write or at the default.
  @Test func releasingWritesAtEveryWriteChangesNothing() {
    for spec in [Self.updatesOnly(hours: 3), Self.mixed()] {
      var eager = spec
      eager.writeReleaseMinimum = 1
      let log = ObservationLog()
      let eagerLog = ObservationLog()
      let a = WorldRunner.run(spec, sink: log)
      let b = WorldRunner.run(eager, sink: eagerLog)
      #expect(a.fingerprint == b.fingerprint)
      #expect(a.processedEvents == b.processedEvents)
      #expect(String(describing: log.observations) == String(describing: eagerLog.observations))
      #expect(b.memory.heldWrites < a.memory.heldWrites)
    }
  }

  /// Inserts, deletes, debounced saves (writes superseded before export) and a device offline for
  /// an hour: writes referenced from histories, plans, stores and the server at once.
  static func mixed() -> WorldSpec {
    var spec = TestWorlds.privatePair(count: 3, editsPerHour: 90, hours: 4, seed: 11)
    spec.devices[1].app.savePolicy = .debounce
    spec.devices[1].app.saveDelaySeconds = 30
    spec.devices[2].workload!.deleteShare = 0.1
    spec.timeline = [
      TimelineAction(at: .seconds(3600), devices: [2], action: .goOffline),
      TimelineAction(at: .seconds(7200), devices: [2], action: .goOnline),
    ]
    return spec
  }
}
