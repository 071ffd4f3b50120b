import SimKernel
import SimMetrics
import Testing

@testable import SimModel

/// Issue 37: a public-database store keeps no copy; its imports' pages are logged and the copy is
/// replayed when needed, with the fields an author set itself laid over it. The run must be the
/// same to the observation, with and without it, on every path a copy is read by.
@Suite struct ReplayedStoreTests {
  /// `authors` writing devices and `readers` reading ones on the public database.
  static func publicWorld(
    authors: Int = 3, readers: Int = 12, deleteShare: Double = 0.2, hours: Int64 = 6, seed: UInt64 = 7
  ) -> WorldSpec {
    var spec = WorldSpec()
    spec.seed = seed
    spec.duration = .hours(hours)
    spec.polling.interval = .seconds(600)
    spec.devices = (0..<authors + readers).map { index in
      var device = DeviceSpec(name: "device\(index)")
      device.stores = [.publicDatabase]
      if index < authors {
        var workload = Workload(editsPerHour: 30)
        workload.insertShare = 0.5
        workload.deleteShare = deleteShare
        device.workload = workload
      } else {
        device.initialAppState = index % 3 == 0 ? .foreground : .suspended
        device.usage = UsageModel(sessionsPerDay: 24)
      }
      return device
    }
    return spec
  }

  /// Runs `spec` with and without replayed stores; expects the same observations, outcome and
  /// final state, and returns both outcomes and the replayed run's world facts.
  @discardableResult
  static func expectSameRun(_ spec: WorldSpec) -> (kept: RunOutcome, replayed: RunOutcome, final: FinalState?) {
    var kept = spec
    kept.replaysStores = false
    let keptLog = ObservationLog()
    let replayedLog = ObservationLog()
    let a = WorldRunner.run(kept, sink: keptLog)
    let b = WorldRunner.run(spec, sink: replayedLog)
    #expect(a.fingerprint == b.fingerprint)
    #expect(a.converged == b.converged)
    // Compared one by one, and only the first difference shown (a run has thousands).
    let keptText = keptLog.observations.map { String(describing: $0) }
    let replayedText = replayedLog.observations.map { String(describing: $0) }
    let first = keptText.indices.first { $0 >= replayedText.count || keptText[$0] != replayedText[$0] }
    #expect(keptText.count == replayedText.count)
    #expect(first == nil, "observation \(first ?? 0): \(first.map { keptText[$0] + " vs " + replayedText[$0] } ?? "")")
    let final = replayedLog.observations.lazy.compactMap { if case .finalState(let s) = $0 { s } else { nil } }.first
    return (a, b, final)
  }

  @Test func deletesLeaveTheSameGhostsInAFractionOfTheMemory() {
    let (kept, replayed, final) = Self.expectSameRun(Self.publicWorld(readers: 60))
    #expect((final?.ghosts ?? 0) > 100, "\(final?.ghosts ?? 0) ghosts")
    #expect(!replayed.converged)
    // 60 readers' copies of about 270 records, against their logged pages and the zone's history.
    #expect(replayed.memory.recordBytes * 4 < kept.memory.recordBytes, "\(replayed.memory) vs \(kept.memory)")
  }

  /// A reader's import logs one entry for its pages, unless the server set a field of a record
  /// an earlier page carried before a later one was applied (the entry's values would differ).
  @Test func anImportsPagesTakeOneEntry() {
    var spec = Self.publicWorld(readers: 20, deleteShare: 0.1)
    spec.server.importPageSize = 3
    let log = ObservationLog()
    var world = World(spec: spec, sink: log)
    var sim = Simulation<ModelEvent>()
    world.start(&sim)
    _ = sim.run(&world, until: SimTime(spec.duration), maxEvents: .max)
    let readers = 3..<23
    var pages = 0
    for observation in log.observations {
      if case .request(let store, false, let records, _, _) = observation, readers.contains(store.index), records > 0 {
        pages += 1
      }
    }
    let logged = readers.map { world.clients.appliedPages.count($0) }.reduce(0, +)
    #expect(logged * 3 < pages, "\(logged) entries for \(pages) pages")
    Self.expectSameRun(spec)
  }

  /// A copy taken before a record's last update does not hold the server's values, though it
  /// was taken after the record's insert: the shortcut reads every field's last set.
  @Test func aCopyBeforeTheLastUpdateDiffers() {
    let spec = Self.publicWorld(deleteShare: 0, hours: 3)
    var world = World(spec: spec, sink: ObservationLog())
    var sim = Simulation<ModelEvent>()
    world.start(&sim)
    _ = sim.run(&world, until: SimTime(spec.duration), maxEvents: .max)
    let zone = world.clients.stores[0].zone.index
    // Each field's last set, read from the zone's log of sets.
    var lastSet = [Int32](repeating: -1, count: Int(world.server.zones[zone].fieldCount))
    for (position, set) in world.server.zones[zone].fieldSets.enumerated() { lastSet[Int(set.field)] = Int32(position) }
    var checked = 0
    for object in 0..<world.server.zones[zone].objects.count {
      let base = Int(world.server.zones[zone].objects[object].fieldBase)
      let fields = base..<base + world.fieldCount(zone: zone, object: ObjectID(object))
      let inserted = lastSet[base]
      let updated = fields.map { lastSet[$0] }.max()!
      guard inserted >= 0, updated > inserted else { continue }
      #expect(!world.holdsServerValues(ObjectID(object), zone: zone, applied: updated))
      #expect(world.holdsServerValues(ObjectID(object), zone: zone, applied: updated + 1))
      checked += 1
    }
    #expect(checked > 10, "\(checked) updated records")
  }

  @Test func readersThatCaughtUpConverge() {
    var spec = Self.publicWorld(deleteShare: 0, hours: 3)
    // Every reader in front for the last hour, after the authors stop at 2 h.
    for index in spec.devices.indices where spec.devices[index].workload != nil {
      spec.devices[index].workload!.until = .hours(2)
    }
    spec.timeline = [TimelineAction(at: .hours(2), devices: Array(3..<15), action: .launch)]
    let (_, replayed, _) = Self.expectSameRun(spec)
    #expect(replayed.converged)
  }

  /// A child record (an entity that references another) makes the store keep its copy, from the
  /// page that brings it (orphans are tracked on the copy).
  @Test func aChildRecordMakesTheStoreKeepItsCopy() {
    var spec = Self.publicWorld(deleteShare: 0.1)
    spec.entities = [
      EntityDescription(name: "Post"), EntityDescription(name: "Comment", referencedEntity: 0),
    ]
    spec.devices[1].workload!.entity = 1
    var world = World(spec: spec, sink: ObservationLog())
    var sim = Simulation<ModelEvent>()
    world.start(&sim)
    _ = sim.run(&world, until: SimTime(.hours(1)), maxEvents: .max)
    let readers = 3..<15
    let replayedEarly = readers.filter { world.clients.replayed[$0] }.count
    _ = sim.run(&world, until: SimTime(spec.duration), maxEvents: .max)
    let replayedLate = readers.filter { world.clients.replayed[$0] }.count
    #expect(replayedEarly > replayedLate, "\(replayedEarly) → \(replayedLate) replayed")
    #expect(readers.filter { !world.clients.replayed[$0] }.allSatisfy { world.clients.local[$0].count > 0 })
    Self.expectSameRun(spec)
  }

  /// Resets (an expired token, and the delegate's reset) wipe a replayed copy as they wipe a kept one.
  @Test func resetsWipeTheReplayedCopy() {
    var spec = Self.publicWorld(hours: 8)
    spec.server.changeTokenRetention = .hours(1)
    spec.timeline = [
      TimelineAction(at: .hours(2), devices: [4, 5], action: .goOffline),
      TimelineAction(at: .hours(4), devices: [4, 5], action: .goOnline),
      TimelineAction(at: .hours(3), devices: [6, 7], action: .resetSync(.accountChange)),
    ]
    let log = ObservationLog()
    _ = WorldRunner.run(spec, sink: log)
    let resets = log.observations.filter { if case .reset = $0 { true } else { false } }.count
    #expect(resets >= 2)
    Self.expectSameRun(spec)
  }

  /// Many seeds and sizes, slow devices (pages applied long after their query) and pages of a
  /// few records: the replay must hold on whatever the draws make.
  @Test func manyWorldsRunTheSame() {
    for seed in 1...12 as ClosedRange<UInt64> {
      var spec = Self.publicWorld(authors: 1 + Int(seed % 4), readers: 6, deleteShare: 0.3, hours: 4, seed: seed)
      spec.server.importPageSize = 3 + Int(seed % 5)
      for index in spec.devices.indices where seed % 2 == 0 {
        spec.devices[index].conditions.downloadBytesPerSecond = 2_000
      }
      Self.expectSameRun(spec)
    }
  }

  /// Faults on readers and authors (offline, force-quit, throttled container, Low Power Mode, a
  /// reset, a short token retention), drawn per seed: the replay must hold through each.
  @Test func faultsRunTheSame() {
    for seed in 20...35 as ClosedRange<UInt64> {
      var spec = Self.publicWorld(authors: 2, readers: 8, deleteShare: 0.25, hours: 5, seed: seed)
      spec.server.importPageSize = 4 + Int(seed % 3)
      if seed % 3 == 0 { spec.server.changeTokenRetention = .seconds(5_400) }
      var random = SplitMix64(seed: seed)
      func draw(_ below: UInt64) -> Int { Int(random.next() % below) }
      for _ in 0..<6 {
        let device = draw(UInt64(spec.devices.count))
        let start = SimDuration.seconds(Int64(600 + draw(12_000)))
        let end = start + .seconds(Int64(300 + draw(3_000)))
        let actions: [(TimelineAction.Action, TimelineAction.Action)] = [
          (.goOffline, .goOnline), (.forceQuit, .launch), (.throttle(true), .throttle(false)),
          (.lowPower(true), .lowPower(false)), (.resetSync(.zoneDeleted), .activate), (.background, .activate),
        ]
        let (on, off) = actions[draw(UInt64(actions.count))]
        spec.timeline.append(TimelineAction(at: start, devices: [device], action: on))
        spec.timeline.append(TimelineAction(at: end, devices: [device], action: off))
      }
      Self.expectSameRun(spec)
    }
  }

  /// Authors keep no copy either: their edits (updates of any post, deletes) are laid over the
  /// replay. Edits saved only on backgrounding stay unexported while pages carrying their records
  /// arrive; slow uploads keep exports in flight; `allKeys` reads every field of a record.
  @Test func authorsLayTheirEditsOverAReplayedCopy() {
    for seed in 40...47 as ClosedRange<UInt64> {
      var spec = Self.publicWorld(authors: 4, readers: 4, deleteShare: 0.15, hours: 5, seed: seed)
      spec.server.importPageSize = 3 + Int(seed % 4)
      if seed % 2 == 0 { spec.server.savePolicy = .allKeys }
      for index in 0..<4 {
        spec.devices[index].workload!.insertShare = 0.25
        spec.devices[index].usage = UsageModel(sessionsPerDay: 24)
        if (index + Int(seed)) % 2 == 0 { spec.devices[index].app.savePolicy = .onBackground }
        if seed % 3 == 0 { spec.devices[index].conditions.uploadBytesPerSecond = 1_500 }
      }
      // Resets wipe what the authors exported; with no guard, a save during one loses the
      // unsaved edits, and the author keeps its copy from then on.
      if seed % 4 == 1 {
        spec.server.changeTokenRetention = .seconds(3_600)
        spec.timeline = [
          TimelineAction(at: .hours(2), devices: [0, 1], action: .resetSync(.zoneDeleted)),
          TimelineAction(at: .hours(3), devices: [0, 2], action: .goOffline),
          TimelineAction(at: .hours(4), devices: [0, 2], action: .goOnline),
        ]
      }
      let log = ObservationLog()
      var world = World(spec: spec, sink: log)
      var sim = Simulation<ModelEvent>()
      world.start(&sim)
      _ = sim.run(&world, until: SimTime(spec.duration), maxEvents: .max)
      // Every author stayed replayed, holding no copy, and set fields of its own.
      #expect((0..<4).allSatisfy { world.clients.replayed[$0] && world.clients.local[$0].count == 0 }, "seed \(seed)")
      #expect((0..<4).allSatisfy { !world.clients.overlays[$0].isEmpty }, "seed \(seed)")
      if seed % 4 == 1 {
        let lost = log.observations.filter { if case .lostWrite = $0 { true } else { false } }.count
        #expect(lost > 0, "seed \(seed): no author lost an edit to a reset")
      }
      // Every store's every field, dirty flag included, as a run that keeps the copies holds it.
      var keptSpec = spec
      keptSpec.replaysStores = false
      var keptWorld = World(spec: keptSpec, sink: ObservationLog())
      var keptSim = Simulation<ModelEvent>()
      keptWorld.start(&keptSim)
      _ = keptSim.run(&keptWorld, until: SimTime(spec.duration), maxEvents: .max)
      let zone = world.clients.stores[0].zone.index
      let objects = world.server.zones[zone].objects.count
      func fields(_ world: World, _ store: Int) -> [LocalField] {
        (0..<objects).flatMap { object in
          let base = Int(world.server.zones[zone].objects[object].fieldBase)
          return (base..<base + world.fieldCount(zone: zone, object: ObjectID(object))).map {
            world.localField(StoreID(store), ObjectID(object), field: $0)
          }
        }
      }
      func same(_ a: [LocalField], _ b: [LocalField]) -> Bool {
        a.count == b.count
          && zip(a, b).allSatisfy { $0.write == $1.write && $0.value == $1.value && $0.dirty == $1.dirty }
      }
      for store in world.clients.stores.indices {
        #expect(same(fields(world, store), fields(keptWorld, store)), "seed \(seed), store \(store)")
      }
      // Keeping the copy (what a child record would make an author do) holds what was read.
      let read = fields(world, 0)
      world.keepCopy(StoreID(0))
      #expect(!world.clients.replayed[0])
      let kept = (0..<read.count).map {
        world.localField(StoreID(0), world.server.zones[zone].object(atField: $0), field: $0)
      }
      #expect(zip(read, kept).allSatisfy { $0.write == $1.write && $0.value == $1.value && $0.dirty == $1.dirty })
      Self.expectSameRun(spec)
      // The paths the overlay answers were taken: updates of records a page had brought, edits
      // replaced before their export, and other devices' writes overwritten unseen.
      var superseded = 0
      var lostUpdates = 0
      for observation in log.observations {
        if case .supersededLocally = observation { superseded += 1 }
        if case .lostUpdate = observation { lostUpdates += 1 }
      }
      #expect(superseded + lostUpdates > 0, "seed \(seed): \(superseded) superseded, \(lostUpdates) lost updates")
    }
  }
}
