import SimKernel
import SimMetrics
import SimModel
import Testing

@Suite struct PipelineTests {
  @Test func foregroundPrivatePairSeesWritesWithinSecondsAndUnderAMinute() {
    let (recorder, _) = TestWorlds.run(TestWorlds.privatePair(editsPerHour: 20, hours: 6))
    let rows = recorder.latencyRows()
    let latencies = rows.compactMap(\.latency)
    #expect(latencies.count >= 150)
    // spec §11.1: median of a few seconds, p95 under a minute.
    #expect(latencies.percentile(0.5) < .seconds(10))
    #expect(latencies.percentile(0.5) > .seconds(1))
    #expect(latencies.percentile(0.95) < .seconds(60))
  }
}

@Suite struct PipelineAccountingTests {
  @Test func stageDurationsAddUpToTheLatencyOfEveryRow() {
    let (recorder, _) = TestWorlds.run(TestWorlds.privatePair(count: 3, editsPerHour: 30, hours: 4))
    let rows = recorder.latencyRows().filter { $0.outcome == .visible }
    #expect(rows.count > 200)
    for row in rows {
      let sum = row.stages.reduce(SimDuration.zero, +)
      #expect(sum == row.latency!)
      #expect(row.stages.allSatisfy { $0 >= .zero })
      #expect(recorder.exportSplit(row)?.total == row.stages.exportSchedule)
      #expect(recorder.importSplit(row)?.total == row.stages.importSchedule)
      #expect(recorder.exportSplit(row)?.unexplained == .zero)
    }
  }

  @Test func everyWriteIsAccountedFor() {
    var spec = TestWorlds.privatePair(count: 2, editsPerHour: 60, hours: 2)
    spec.devices[1].app.savePolicy = .debounce
    spec.devices[1].app.saveDelaySeconds = 30
    spec.devices[0].workload!.insertShare = 0.1
    let (recorder, _) = TestWorlds.run(spec)
    let accounting = recorder.writeAccounting()
    #expect(accounting.total == recorder.writeCount)
    #expect(accounting.committed > 100)
    #expect(accounting.supersededLocally > 0, "debounced saves of the same field supersede earlier writes")
  }

  @Test func sameSeedGivesIdenticalObservationsAndFingerprint() {
    let spec = TestWorlds.privatePair(count: 3, editsPerHour: 30, hours: 3, seed: 7)
    let first = ObservationLog()
    let second = ObservationLog()
    let a = WorldRunner.run(spec, sink: first)
    let b = WorldRunner.run(spec, sink: second)
    #expect(a.fingerprint == b.fingerprint)
    #expect(a.processedEvents == b.processedEvents)
    #expect(String(describing: first.observations) == String(describing: second.observations))
    var other = spec
    other.seed = 8
    let c = WorldRunner.run(other, sink: ObservationLog())
    #expect(c.fingerprint != a.fingerprint)
  }
}

@Suite struct PipelineBehaviourTests {
  @Test func savingOnlyOnBackgroundDelaysExportUntilTheAppLeavesTheForeground() {
    var spec = TestWorlds.privatePair()
    spec.devices[0].app.savePolicy = .onBackground
    spec.timeline = [
      TimelineAction(at: .seconds(60), devices: [0], action: .edit(.insert, entity: 0, key: nil)),
      TimelineAction(at: .seconds(120), devices: [0], action: .edit(.insert, entity: 0, key: nil)),
      TimelineAction(at: .seconds(900), devices: [0], action: .background),
    ]
    let (recorder, _) = TestWorlds.run(spec)
    let rows = recorder.latencyRows()
    #expect(rows.count == 2)
    for row in rows {
      #expect(row.outcome == .visible)
      // The save stage lasts exactly until the app leaves the foreground at 900 s.
      #expect(row.editedAt + row.stages[0] == SimTime(.seconds(900)))
      #expect(row.latency! > .seconds(780))
    }
    // The same edits saved immediately arrive in seconds.
    spec.devices[0].app.savePolicy = .immediate
    let (quick, _) = TestWorlds.run(spec)
    #expect(quick.latencyRows().allSatisfy { $0.latency! < .seconds(120) })
  }

  @Test func bulkInsertGoesOutInRequestsOfAtMost400RecordsAnd1Point5MiB() {
    for attributeBytes in [[64, 64], [10_000]] {
      var spec = TestWorlds.privatePair()
      spec.entities = [EntityDescription(name: "Item", attributeBytes: attributeBytes)]
      spec.timeline = [
        TimelineAction(
          at: .seconds(10), devices: [0], action: .bulkInsert(count: 1000, entity: 0, oneSave: true, over: .zero))
      ]
      let log = ObservationLog()
      _ = WorldRunner.run(spec, sink: log)
      let uploads = log.observations.compactMap { observation -> (Int32, Int64)? in
        if case .request(_, true, let records, let bytes, _) = observation { return (records, bytes) }
        return nil
      }
      let recordBytes = Int64(300 + attributeBytes.reduce(0, +))
      let perRequest = min(400, Int(1_572_864 / recordBytes))
      let expectedRequests = (1000 + perRequest - 1) / perRequest
      #expect(uploads.count == expectedRequests, "record size \(recordBytes)")
      #expect(uploads.map(\.0).reduce(0, +) == 1000)
      #expect(uploads.allSatisfy { $0.0 <= 400 && $0.1 <= 1_572_864 })
    }
  }

  @Test func offlineReceiverGetsEveryChangeInOneImport() {
    var spec = TestWorlds.privatePair(hours: 4)
    spec.timeline = [TimelineAction(at: .seconds(60), devices: [1], action: .goOffline)]
    for minute in 0..<100 {
      spec.timeline.append(
        TimelineAction(
          at: .seconds(120 + Int64(minute) * 60), devices: [0],
          action: .edit(minute < 20 ? .insert : .update, entity: 0, key: nil)))
    }
    spec.timeline.append(TimelineAction(at: .hours(2), devices: [1], action: .goOnline))
    let log = ObservationLog()
    let recorder = MetricsRecorder(policyNames: spec.scheduler.policies.map(\.name))
    final class Tee: ObservationSink {
      let sinks: [any ObservationSink]
      init(_ sinks: [any ObservationSink]) { self.sinks = sinks }
      func observe(_ observation: Observation) { sinks.forEach { $0.observe(observation) } }
    }
    let outcome = WorldRunner.run(spec, sink: Tee([log, recorder]))
    #expect(outcome.converged)
    let receiverImports = log.observations.compactMap { observation -> (Int32, SimTime)? in
      if case .imported(let store, _, let token, let records, let at) = observation, store == StoreID(1), records > 0 {
        return (token, at)
      }
      return nil
    }
    // Before going offline nothing was imported; after reconnecting, one import brings everything.
    #expect(receiverImports.count == 1)
    let rows = recorder.latencyRows().filter { $0.observer == DeviceID(1) }
    #expect(rows.count == 100)
    #expect(rows.allSatisfy { $0.outcome == .visible })
    #expect(Set(rows.map(\.visibleAt)).count == 1)
    // APNs stored one push for the offline device and delivered it on reconnect (spec §11.7).
    let delivered = log.observations.filter {
      if case .push(DeviceID(1), .delivered, let at) = $0 { return at >= SimTime(.hours(2)) }
      return false
    }
    #expect(delivered.count == 1)
  }
}

@Suite struct SharedZoneTests {
  @Test func aSharedZoneSyncsBetweenOwnerAndParticipantOnly() {
    var spec = SchedulerTests.quietPair(hours: 1)
    spec.accountCount = 3
    let share = StoreKind.sharedDatabase(ownerAccount: 0, participants: [1])
    var owner = DeviceSpec(name: "owner", account: 0)
    owner.stores = [share, .privateDatabase]
    var friend = DeviceSpec(name: "friend", account: 1)
    friend.stores = [share]
    var stranger = DeviceSpec(name: "stranger", account: 2)
    stranger.stores = [.privateDatabase]
    spec.devices = [owner, friend, stranger]
    spec.timeline = [
      at(60, [1], .edit(.insert, entity: 0, key: nil)),
      at(120, [0], .edit(.insert, entity: 0, key: nil)),
      at(180, [2], .edit(.insert, entity: 0, key: nil)),
    ]
    let (_, recorder, outcome) = runLogged(spec)
    #expect(outcome.converged)
    let rows = recorder.latencyRows()
    // The friend's and the owner's writes go to the shared zone (each device's first store):
    // each is seen by the other; the stranger's private write has no other device to reach.
    #expect(rows.count == 2)
    #expect(rows.allSatisfy { $0.outcome == .visible })
    #expect(Set(rows.map { [$0.writer.index, $0.observer.index] }) == [[1, 0], [0, 1]])
  }
}

@Suite struct EditTargetTests {
  /// An owner with a private store first and a shared store second; a friend in the share and a
  /// second device of the owner's account.
  static func sharingSpec() -> WorldSpec {
    var spec = SchedulerTests.quietPair(hours: 1)
    spec.accountCount = 2
    let share = StoreKind.sharedDatabase(ownerAccount: 0, participants: [1])
    var owner = DeviceSpec(name: "owner", account: 0)
    owner.stores = [.privateDatabase, share]
    var ownerPad = DeviceSpec(name: "ownerPad", account: 0)
    ownerPad.stores = [.privateDatabase, share]
    var friend = DeviceSpec(name: "friend", account: 1)
    friend.stores = [share]
    spec.devices = [owner, ownerPad, friend]
    return spec
  }

  @Test func anEditNamingAStoreWritesThatStoreOnly() {
    var spec = Self.sharingSpec()
    spec.timeline = [
      TimelineAction(at: .seconds(60), devices: [0], action: .edit(.insert, entity: 0, key: nil)),
      TimelineAction(at: .seconds(120), devices: [0], action: .edit(.insert, entity: 0, key: nil), store: 1),
    ]
    let (_, recorder, outcome) = runLogged(spec)
    #expect(outcome.converged)
    let rows = recorder.latencyRows()
    // The private write (store 0 by default) reaches the owner's iPad only; the shared write
    // (store 1) reaches the iPad and the friend: three rows, all visible.
    #expect(rows.count == 3)
    #expect(rows.allSatisfy { $0.outcome == .visible && $0.writer.index == 0 })
    let observersByWrite = Dictionary(grouping: rows, by: \.write.index).mapValues { $0.map(\.observer.index).sorted() }
    #expect(observersByWrite.values.sorted { $0.count < $1.count } == [[1], [1, 2]])
  }

  @Test func aWorkloadAndABulkInsertNamingTheSharedStoreReachTheFriend() {
    var spec = Self.sharingSpec()
    var workload = Workload(editsPerHour: 30)
    workload.insertShare = 1
    workload.store = 1
    spec.devices[0].workload = workload
    spec.timeline = [
      TimelineAction(
        at: .seconds(30), devices: [1], action: .bulkInsert(count: 5, entity: 0, oneSave: true, over: .zero), store: 1)
    ]
    let (_, recorder, outcome) = runLogged(spec)
    #expect(outcome.converged)
    let rows = recorder.latencyRows()
    let friendSees = rows.filter { $0.observer.index == 2 }
    // Every write goes to the shared zone, so the friend observes every write of both devices.
    #expect(rows.count > 10)
    #expect(friendSees.count * 2 == rows.count)
    #expect(friendSees.filter { $0.writer.index == 1 }.count == 5)
  }
}

/// What a world's state costs per device, beside its records.
@Suite struct MemoryTests {
  @Test func fixedStatePerDeviceStaysUnderOneKilobyteAndRunHistoryGrowsWithActivity() {
    let quiet = WorldRunner.run(TestWorlds.privatePair(count: 2, editsPerHour: 1, hours: 24), sink: ObservationLog())
      .memory
    let busy = WorldRunner.run(TestWorlds.privatePair(count: 2, editsPerHour: 12, hours: 24), sink: ObservationLog())
      .memory
    for report in [quiet, busy] {
      #expect(report.runHistoryBytesPerDevice > 0)
      #expect(report.perDeviceBytes - report.runHistoryBytesPerDevice < 1024)
    }
    // The rate limiter remembers every run of the last 24 h: 8 bytes each, plus growth slack.
    #expect(busy.runHistoryBytesPerDevice > 4 * quiet.runHistoryBytesPerDevice)
    // The busy pair's devices expect 24 runs an hour (an export per own edit, an import per the
    // other's), 576 in the day: the history is reserved for 10 % and 16 more (5,200 bytes and a
    // header), where doubling from empty had reached 8,192.
    #expect(busy.runHistoryBytesPerDevice >= 576 * 8)
    #expect(busy.runHistoryBytesPerDevice <= 5_300)
  }
}
