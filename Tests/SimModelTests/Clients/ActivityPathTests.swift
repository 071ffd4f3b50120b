import SimKernel
import SimMetrics
import Testing

@testable import SimModel

/// Every documented transition of an export and an import (`docs/paths.md`) is taken by some
/// small world, so the table cannot name a path the code has lost. Debug builds count them.
@Suite struct ActivityPathTests {
  /// The transitions a world took, export's then import's (`World.transitionsTaken`).
  func transitions(_ spec: WorldSpec) -> [Int] {
    var world = World(spec: spec, sink: ObservationLog())
    var sim = Simulation<ModelEvent>()
    world.start(&sim)
    _ = sim.run(&world, until: SimTime(spec.duration), maxEvents: 2_000_000)
    return world.clients.transitionsTaken
  }

  func worlds() -> [WorldSpec] {
    // Batches, pages and a split: 1,000 records asked in one request the server refuses (400).
    var bulk = SchedulerTests.quietPair(hours: 1)
    bulk.server.recordsPerOperation = 1000
    // Backgrounding asks for an export with nothing saved: "Found 0 objects needing export".
    bulk.timeline = [
      at(10, [0], .bulkInsert(count: 1000, entity: 0, oneSave: true, over: .zero)), at(1800, [1], .background),
    ]
    // A conflict merged under ifServerRecordUnchanged.
    var conflict = FailureModeTests.oneFieldPair()
    conflict.server.savePolicy = .ifServerRecordUnchanged
    conflict.timeline = [
      at(10, [0], .edit(.insert, entity: 0, key: nil)), at(100, [0, 1], .goOffline),
      at(200, [0], .edit(.update, entity: 0, key: nil)), at(300, [1], .edit(.update, entity: 0, key: nil)),
      at(1000, [0], .goOnline), at(2000, [1], .goOnline),
    ]
    // Some records failed (the test target's record fault), a refused record, a full quota.
    var records = SchedulerTests.quietPair(hours: 2)
    records.extraRecordFaults = [PartialFailureFault(probability: 0.1)]
    records.timeline = [at(10, [0], .bulkInsert(count: 300, entity: 0, oneSave: true, over: .zero))]
    var refused = SchedulerTests.quietPair(hours: 1)
    refused.server.poisonRecordProbability = 0.05
    refused.timeline = [at(10, [0], .bulkInsert(count: 100, entity: 0, oneSave: true, over: .zero))]
    var quota = SchedulerTests.quietPair(hours: 1)
    quota.server.quotaBytesPerAccount = 10_000
    quota.timeline = [at(10, [0], .bulkInsert(count: 40, entity: 0, oneSave: true, over: .zero))]
    // Waits: a container throttle, and network failures with their back-off.
    var waits = SchedulerTests.quietPair(hours: 2)
    waits.server.throttleRequestsPerSecond = 0.2
    waits.server.networkFailureProbability = 0.2
    for index in waits.devices.indices { waits.devices[index].workload = Workload(editsPerHour: 120) }
    // Offline at the start (no network policy) and in the middle of requests, and sync turned
    // off with requests on the wire (the container re-created over its store, which disables it):
    // 20-second requests keep them there (the iPhone's export of a bulk insert at 2,990 s; the
    // iPad's imports of the iPhone's edits, one every 15 s).
    var offline = SchedulerTests.quietPair(hours: 2)
    offline.scheduler.policies.removeAll { $0.name == "network" }
    offline.server.requestLatency = .constant(20)
    for index in offline.devices.indices { offline.devices[index].workload = Workload(editsPerHour: 240) }
    offline.timeline = [
      at(600, [0, 1], .goOffline), at(900, [0, 1], .goOnline), at(1805, [0, 1], .goOffline),
      at(2100, [0, 1], .goOnline), at(2990, [0], .bulkInsert(count: 100, entity: 0, oneSave: true, over: .zero)),
      at(2995, [1], .toggleSync(removeStoreFirst: false)), at(3000, [0], .toggleSync(removeStoreFirst: false)),
    ]
    // An expired token, and an export with nothing left to send (the pending export of a store
    // whose history a reset dropped).
    var expired = SchedulerTests.quietPair(hours: 4)
    expired.server.changeTokenRetention = .hours(1)
    expired.timeline = [
      at(10, [0], .bulkInsert(count: 20, entity: 0, oneSave: true, over: .zero)), at(600, [1], .goOffline),
      at(3 * 3600, [1], .goOnline), at(3 * 3600 + 30, [1], .resetSync(.zoneDeleted)),
    ]
    for minute in 0..<5 {
      expired.timeline.append(at(3600 + Int64(minute) * 60, [0], .edit(.update, entity: 0, key: nil)))
    }
    // CKSyncEngine: an app batch of 1,000 records ends the round on limitExceeded.
    var engine = SchedulerTests.quietPair(hours: 1)
    for index in engine.devices.indices {
      engine.devices[index].client = .syncEngine
      engine.devices[index].syncEngine.batchRecords = 1000
    }
    engine.timeline = [at(10, [0], .bulkInsert(count: 1000, entity: 0, oneSave: true, over: .zero))]
    // Faults that declare a reset and a stall, answering both exports and imports.
    var reactions = SchedulerTests.quietPair(hours: 6)
    reactions.server.faultKnobs.set(ZoneNotFoundFault.probability, probability: 0.08)
    reactions.server.faultKnobs.set(AccountUnavailableFault.probability, probability: 0.08)
    reactions.timeline = (0..<60).map { at(60 + Int64($0) * 60, [$0 % 2], .edit(.insert, entity: 0, key: nil)) }
    // CKSyncEngine's sends answered zoneNotFound save the zone and send again; a test fault
    // answers Core Data's imports with the same reaction (no registered fault declares it there).
    var recreation = Self.editingPair(hours: 4, client: .syncEngine)
    recreation.server.faultKnobs.set(ZoneNotFoundFault.probability, probability: 0.08)
    return [bulk, conflict, records, refused, quota, waits, offline, expired, engine, reactions, recreation]
  }

  /// Core Data's imports answered with a zone recreation by a test fault (no registered fault
  /// declares it for a fetch), which both machines handle as any reaction.
  func importRecreation() -> [Int] {
    var spec = Self.editingPair(hours: 4, client: .coreData)
    spec.server.faultKnobs.set(ZoneNotFoundFault.probability, probability: 0.001)
    spec.extraRequestFaults = [ImportZoneRecreationFault(probability: 0.1)]
    return transitions(spec)
  }

  /// Two devices of `client` inserting in turn, one a minute, for an hour.
  static func editingPair(hours: Int64, client: SyncClient) -> WorldSpec {
    var spec = SchedulerTests.quietPair(hours: hours)
    for index in spec.devices.indices { spec.devices[index].client = client }
    spec.timeline = (0..<60).map { at(60 + Int64($0) * 60, [$0 % 2], .edit(.insert, entity: 0, key: nil)) }
    return spec
  }

  @Test func everyDocumentedTransitionIsTaken() {
    var taken = [Int](repeating: 0, count: ExportTransition.allCases.count + ImportTransition.allCases.count)
    for counts in worlds().map({ transitions($0) }) + [importRecreation()] {
      for (index, count) in counts.enumerated() { taken[index] += count }
    }
    for transition in ExportTransition.allCases {
      #expect(taken[transition.rawValue] > 0, "export \(transition) never taken")
    }
    for transition in ImportTransition.allCases {
      #expect(taken[ExportTransition.allCases.count + transition.rawValue] > 0, "import \(transition) never taken")
    }
  }

  @Test func theDocumentIsTheTables() throws {
    #expect(ActivityPaths.document.contains("| sending batch n | some records failed | sending the failed records |"))
    #expect(
      ActivityPaths.document.split(separator: "\n").filter { $0.hasPrefix("| ") }.count
        == 2 + ExportTransition.allCases.count + ImportTransition.allCases.count)
  }
}
