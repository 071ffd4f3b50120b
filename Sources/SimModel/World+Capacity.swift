import SimKernel

/// Room for the records the workloads are expected to make, reserved before the run.
extension World {
  /// Reserves each zone's and store's record arrays, and the write table, for what the Poisson
  /// workloads are expected to make over the run, with a margin.
  ///
  /// Growing an array copies all of it: in the fleet bench those copies were about 6 % of the
  /// read misses and a quarter of the write misses. This is an estimate only: a run that makes
  /// more grows the arrays as before, and results do not depend on it. Workloads that edit only
  /// in the foreground are left out (how long the app is in front is not known in advance).
  mutating func reserveRecordCapacity() {
    let hours = Double(spec.duration.nanoseconds) / 3.6e12
    var edits = [Double](repeating: 0, count: server.zones.count)
    var objects = [Double](repeating: 0, count: server.zones.count)
    var fields = [Double](repeating: 0, count: server.zones.count)
    var writes = 0.0
    var ownEdits = [Double](repeating: 0, count: devices.count)
    var ownZone = [Int](repeating: -1, count: devices.count)
    for device in devices.indices {
      guard let workload = deviceTraits[traitsIndex(of: DeviceID(device))].workload, !workload.foregroundOnly,
        workload.entity >= 0, workload.entity < spec.entities.count, spec.entities[workload.entity].syncs,
        let store = editTarget(DeviceID(device), storeIndex: workload.store), clients.stores[store.index].zone.exists
      else { continue }
      let zone = clients.stores[store.index].zone.index
      let expected = max(0, workload.editsPerHour * hours)
      let inserts = expected * min(max(workload.insertShare, 0), 1)
      let links = Double(spec.entities[workload.entity].manyToManyLinksPerObject)
      edits[zone] += expected
      ownEdits[device] = expected
      ownZone[device] = zone
      objects[zone] += inserts * (1 + links)
      fields[zone] += inserts * (Double(server.entityFieldCount[workload.entity]) + links)
      writes += expected
    }
    for zone in server.zones.indices where edits[zone] > 0 {
      server.zones[zone].objects.reserveCapacity(server.zones[zone].objects.count + Self.withMargin(objects[zone]))
      server.zones[zone].server.reserveCapacity(server.zones[zone].server.count + Self.withMargin(fields[zone]))
      // A commit logs each record it changes (an edit's, and each of an insert's join records);
      // the log is compacted to the records' latest changes at twice the records and a margin.
      server.zones[zone].changeLog.reserveCapacity(
        server.zones[zone].changeLog.count
          + Self.withMargin(
            min(edits[zone] + objects[zone], 2 * (Double(server.zones[zone].objects.count) + objects[zone]) + 1024)))
    }
    for store in clients.stores.indices where clients.stores[store].zone.exists && !isReplayed(StoreID(store)) {
      let zone = clients.stores[store].zone.index
      if edits[zone] > 0 {
        clients.local[store].reserveCapacity(clients.local[store].count + Self.withMargin(fields[zone]))
      }
    }
    self.clients.writes.reserveCapacity(Self.withMargin(min(writes, 4096 + 2 * fields.reduce(0, +))))
    reserveRunHistory(hours: hours, zoneEdits: edits, ownEdits: ownEdits, ownZone: ownZone)
  }

  /// Reserves each device's run history for the runs expected within the rate limiter's longest
  /// window: an export per own edit and an import per edit of another device in a zone it shares
  /// by push (a public zone's polls are not estimated). Capped at 2,048 runs a device; the
  /// history's growth slack was about half of the fleet's per-device state.
  mutating func reserveRunHistory(hours: Double, zoneEdits: [Double], ownEdits: [Double], ownZone: [Int]) {
    guard scheduler.runHistory.horizon > .zero, hours > 0 else { return }
    let share = min(1, Double(scheduler.runHistory.horizon.nanoseconds) / 3.6e12 / hours)
    for device in devices.indices {
      var runs = ownEdits[device]
      for store in storeIDs(of: DeviceID(device)) where clients.stores[store.index].zone.exists {
        let zone = clients.stores[store.index].zone.index
        guard server.zones[zone].scope != .public else { continue }
        runs += zoneEdits[zone] - (ownZone[device] == zone ? ownEdits[device] : 0)
      }
      // A tighter margin than the records' (10 % and 16): a device that makes more runs than
      // this grows its history once, and the slack is per device.
      let expected = runs * share
      if expected >= 1 { scheduler.runHistory.reserve(device: device, runs: min(Int(expected * 1.1 + 16), 2_048)) }
    }
  }

  /// An expected count with room for Poisson variation (10 % and 64 more), capped at 16 M
  /// elements so that an absurd estimate reserves nothing absurd.
  static func withMargin(_ expected: Double) -> Int {
    guard expected >= 1 else { return 0 }
    return Int(min(expected * 1.1 + 64, 16_000_000))
  }
}
