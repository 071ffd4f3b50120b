import SimKernel

/// Export: history → records → batches → modify requests → server commits (MODEL §6).
extension World {
  mutating func beginExport(_ activity: ActivityID, sim: inout Simulation<ModelEvent>) {
    let mirror = activities[activity.index].mirror
    let covered = history[mirror.index].count
    activities[activity.index].historyCovered = Int32(covered)
    plans[mirror.index] = makePlan(mirror, changes: history[mirror.index][..<covered], at: sim.now)
    if plans[mirror.index].batchEnds.isEmpty {
      // Nothing to export: TN3163's 35 ms "Found 0 objects needing export".
      history[mirror.index].removeFirst(covered)
      sim.schedule(.exportRequestDone(activity), after: SimDuration(seconds: spec.scheduler.emptyExportSeconds))
      return
    }
    sendNextBatch(activity, sim: &sim)
  }

  /// Groups the still-current changes into records and the records into batches.
  ///
  /// Records keep the order in which their objects first appear in the history; a record's
  /// changes stay together. Scratch buffers are reused, so planning allocates only the plan.
  mutating func makePlan(_ mirror: MirrorID, changes: ArraySlice<Change>, at now: SimTime) -> ExportPlan {
    let zone = Int(mirrors[mirror.index].zone)
    stampCounter &+= 1
    let stamp = stampCounter
    let objectCount = zones[zone].objectEntity.count
    if objectStamp[zone].count < objectCount {
      objectStamp[zone].append(contentsOf: repeatElement(0, count: objectCount - objectStamp[zone].count))
    }
    if scratchRank.count < objectCount {
      scratchRank.append(contentsOf: repeatElement(0, count: objectCount - scratchRank.count))
    }
    // Pass 1: keep current changes, give each object a record rank, count changes per record.
    scratchKept.removeAll(keepingCapacity: true)
    scratchObjects.removeAll(keepingCapacity: true)
    scratchCounts.removeAll(keepingCapacity: true)
    for change in changes {
      let base = Int(zones[zone].objectFieldBase[change.object.index])
      let current = localWrite[mirror.index][base + Int(max(change.field, 0))]
      if change.field >= 0 && change.write != .none && current != change.write {
        sink.observe(.supersededLocally(write: change.write, by: current))
        continue
      }
      if objectStamp[zone][change.object.index] != stamp {
        objectStamp[zone][change.object.index] = stamp
        scratchRank[change.object.index] = Int32(scratchObjects.count)
        scratchObjects.append(change.object)
        scratchCounts.append(0)
      }
      scratchCounts[Int(scratchRank[change.object.index])] += 1
      scratchKept.append(change)
    }
    // Pass 2: place the changes record by record (a counting sort on the rank).
    var plan = ExportPlan()
    plan.entries = [Change](repeating: Change(object: ObjectID(0), field: 0, write: .none), count: scratchKept.count)
    var start: Int32 = 0
    for index in scratchCounts.indices {
      let count = scratchCounts[index]
      scratchCounts[index] = start
      start += count
    }
    for change in scratchKept {
      let rank = Int(scratchRank[change.object.index])
      plan.entries[Int(scratchCounts[rank])] = change
      scratchCounts[rank] += 1
    }
    // Pass 3: cut batches at the request limits (a record never splits).
    var records: Int32 = 0
    var bytes: Int64 = 0
    var assetBytes: Int64 = 0
    var entryIndex = 0
    for object in scratchObjects {
      let entity = Int(zones[zone].objectEntity[object.index])
      let recordBytes = entity >= 0 ? recordBytesByEntity[entity] : Int64(spec.server.joinRecordBytes)
      let entriesEnd = entryIndex + plan.entries[entryIndex...].prefix { $0.object == object }.count
      let inserts = plan.entries[entryIndex..<entriesEnd].contains { $0.field < 0 }
      let recordAssets = entity >= 0 && inserts ? assetBytesByEntity[entity] : 0
      if records > 0
        && (Int(records) + 1 > spec.server.recordsPerOperation
          || bytes + recordBytes > Int64(spec.server.bytesPerOperation))
      {
        plan.batchEnds.append(Int32(entryIndex))
        plan.batchRecords.append(records)
        plan.batchBytes.append(bytes + assetBytes)
        records = 0
        bytes = 0
        assetBytes = 0
      }
      entryIndex = entriesEnd
      records += 1
      bytes += recordBytes
      assetBytes += recordAssets
    }
    if records > 0 {
      plan.batchEnds.append(Int32(entryIndex))
      plan.batchRecords.append(records)
      plan.batchBytes.append(bytes + assetBytes)
    }
    return plan
  }

  mutating func sendNextBatch(_ activity: ActivityID, sim: inout Simulation<ModelEvent>) {
    let mirror = activities[activity.index].mirror
    let batch = Int(activities[activity.index].nextBatch)
    let bytes = plans[mirror.index].batchBytes[batch]
    let duration = requestLatency(owner(of: mirror))
      + Self.transfer(bytes, bytesPerSecond: devices[owner(of: mirror).index].uploadBytesPerSecond)
    sim.schedule(.exportRequestDone(activity), after: duration)
  }

  mutating func exportRequestDone(_ activity: ActivityID, sim: inout Simulation<ModelEvent>) {
    let mirror = activities[activity.index].mirror
    let plan = plans[mirror.index]
    if plan.batchEnds.isEmpty {
      finishActivity(activity, succeeded: true, sim: &sim)
      return
    }
    guard devices[owner(of: mirror).index].online else {
      // networkUnavailable: the export fails; the history stays and a new export waits for network.
      plans[mirror.index] = ExportPlan()
      finishActivity(activity, succeeded: false, sim: &sim)
      requestExport(mirror, trigger: .exportAgain, sim: &sim)
      return
    }
    let batch = Int(activities[activity.index].nextBatch)
    let start = batch == 0 ? 0 : Int(plan.batchEnds[batch - 1])
    commit(mirror, activity: activity, entries: plan.entries[start..<Int(plan.batchEnds[batch])], at: sim.now)
    sink.observe(.request(mirror: mirror, upload: true, records: plan.batchRecords[batch], bytes: plan.batchBytes[batch], at: sim.now))
    activities[activity.index].records += plan.batchRecords[batch]
    fanOutPush(from: mirror, sim: &sim)
    activities[activity.index].nextBatch += 1
    if Int(activities[activity.index].nextBatch) < plan.batchEnds.count {
      sendNextBatch(activity, sim: &sim)
      return
    }
    history[mirror.index].removeFirst(Int(activities[activity.index].historyCovered))
    plans[mirror.index] = ExportPlan()
    finishActivity(activity, succeeded: true, sim: &sim)
  }

  /// Applies one modify request at the server: a new change per record, fields by save policy.
  mutating func commit(_ mirror: MirrorID, activity: ActivityID, entries: ArraySlice<Change>, at now: SimTime) {
    let zone = Int(mirrors[mirror.index].zone)
    var lastObject = ObjectID(-1)
    var sequence: Int32 = 0
    for change in entries {
      if change.object != lastObject {
        zones[zone].changeLog.append(change.object)
        sequence = Int32(zones[zone].changeLog.count)
        lastObject = change.object
        if spec.server.savePolicy == .allKeys { commitWholeRecord(mirror, zone: zone, object: change.object) }
      }
      let base = Int(zones[zone].objectFieldBase[change.object.index])
      let fieldCount = zones[zone].objectEntity[change.object.index] >= 0
        ? spec.entities[Int(zones[zone].objectEntity[change.object.index])].fieldCount : 1
      let fields = change.field < 0 ? 0..<fieldCount : Int(change.field)..<Int(change.field) + 1
      for field in fields where localWrite[mirror.index][base + field] == change.write || change.field >= 0 {
        let value = change.field >= 0 ? writeValue[change.write.index] : (field == 0 ? 1 : 0)
        setServerField(zone: zone, base + field, write: change.write, value: value)
        if localWrite[mirror.index][base + field] == change.write { dirty[mirror.index][base + field] = false }
      }
      if change.write != .none {
        sink.observe(.committed(write: change.write, activity: logID(activity), sequence: sequence, at: now))
      }
    }
  }

  /// `allKeys`: the arriving record replaces every field with the device's values.
  mutating func commitWholeRecord(_ mirror: MirrorID, zone: Int, object: ObjectID) {
    let base = Int(zones[zone].objectFieldBase[object.index])
    let entity = Int(zones[zone].objectEntity[object.index])
    let fieldCount = entity >= 0 ? spec.entities[entity].fieldCount : 1
    for field in base..<base + fieldCount where localWrite[mirror.index][field] != .none {
      setServerField(zone: zone, field, write: localWrite[mirror.index][field], value: localValue[mirror.index][field])
    }
  }

  /// Overwrites a server field, detecting a lost update: the previous value came from another
  /// device and the new write was made without having seen it.
  mutating func setServerField(zone: Int, _ field: Int, write: WriteID, value: Int32) {
    let previous = zones[zone].serverWrite[field]
    if previous != .none && previous != write && write != .none
      && owner(of: writeMirror[previous.index]) != owner(of: writeMirror[write.index])
      && writeBasedOn[write.index] != previous
    {
      sink.observe(.lostUpdate(write: previous, by: write))
    }
    zones[zone].serverWrite[field] = write
    zones[zone].serverValue[field] = value
  }
}
