import SimKernel

/// Export: history → records → batches → modify requests → server commits (spec §6).
extension ClientHost {
  /// Groups the still-current changes into records and the records into batches.
  ///
  /// Records keep the order in which their objects first appear in the history; a record's
  /// changes stay together. Scratch buffers are reused, so planning allocates only the plan.
  mutating func makePlan(_ store: StoreID, changes: RowsView<Change>, into plan: inout ExportPlan) {
    let zone = clients.stores[store.index].zone.index
    if let object = changes.first?.object, changes.allSatisfy({ $0.object == object }) {
      planOneRecord(store, zone: zone, object: object, changes: changes, into: &plan)
      return
    }
    let stamp = clients.nextStamp()
    let objectCount = server.zones[zone].objects.count
    if clients.scratch.rank.count < objectCount {
      clients.scratch.rank.append(repeating: 0, count: objectCount - clients.scratch.rank.count)
    }
    // Pass 1: keep current changes, give each object a record rank, count changes per record.
    clients.scratch.kept.removeAllKeepingCapacity()
    clients.scratch.objects.removeAllKeepingCapacity()
    clients.scratch.counts.removeAllKeepingCapacity()
    for change in changes {
      guard isCurrent(change, in: store, fieldBase: Int(server.zones[zone].objects[change.object.index].fieldBase))
      else {
        continue
      }
      if markSeen(zone: zone, change.object, pass: stamp) {
        clients.scratch.rank[change.object.index] = Int32(clients.scratch.objects.count)
        clients.scratch.objects.append(change.object)
        clients.scratch.counts.append(0)
      }
      clients.scratch.counts[Int(clients.scratch.rank[change.object.index])] += 1
      clients.scratch.kept.append(change)
    }
    // Pass 2: place the changes record by record (a counting sort on the rank).
    plan.clear()
    plan.entries.append(
      repeating: Change(object: ObjectID(0), field: 0, write: .none), count: clients.scratch.kept.count)
    var start: Int32 = 0
    for index in clients.scratch.counts.indices {
      let count = clients.scratch.counts[index]
      clients.scratch.counts[index] = start
      start += count
    }
    for change in clients.scratch.kept {
      let rank = Int(clients.scratch.rank[change.object.index])
      plan.entries[Int(clients.scratch.counts[rank])] = change
      clients.scratch.counts[rank] += 1
    }
    // Pass 3: cut batches at the request limits (a record never splits).
    var records: Int32 = 0
    var bytes: Int64 = 0
    var assetBytes: Int64 = 0
    var entryIndex = 0
    let batchLimit = recordsPerBatch(store)
    // Core Data's exporter counts `CKRecord.size`, which leaves asset files out: assets never cut a
    // batch unless a limit is set. [RE] OpenCloudData's export context and serializer.
    let assetLimit = clients.settings.server.assetBytesPerOperation.map(Int64.init) ?? Int64.max
    for object in clients.scratch.objects {
      let entriesEnd = entryIndex + plan.entries[entryIndex...].prefix { $0.object == object }.count
      let cost = exportCost(zone: zone, object: object, changes: plan.entries[entryIndex..<entriesEnd])
      let recordBytes = cost.record
      let recordAssets = cost.assets
      if records > 0
        && (Int(records) + 1 > batchLimit
          || bytes + recordBytes > Int64(clients.settings.server.bytesPerOperation)
          || assetBytes + recordAssets > assetLimit)
      {
        plan.appendBatch(end: entryIndex, records: records, bytes: bytes + assetBytes)
        records = 0
        bytes = 0
        assetBytes = 0
      }
      entryIndex = entriesEnd
      records += 1
      bytes += recordBytes
      assetBytes += recordAssets
    }
    if records > 0 { plan.appendBatch(end: entryIndex, records: records, bytes: bytes + assetBytes) }
  }

  /// The most records a batch of the store's client carries: the exporter's limit for Core Data,
  /// the app's batch size for CKSyncEngine (which may exceed the server's limit).
  @inline(__always)
  func recordsPerBatch(_ store: StoreID) -> Int {
    clients.stores[store.index].client == .coreData
      ? clients.settings.server.recordsPerOperation : Int(engine(store).batchRecords)
  }

  /// Whether the store still holds `change`'s write; a field write it has since replaced is
  /// reported as superseded and left out of the export.
  @inline(__always)
  func isCurrent(_ change: Change, in store: StoreID, fieldBase base: Int) -> Bool {
    let current = localField(store, change.object, field: base + Int(max(change.field, 0))).write
    guard change.field >= 0 && change.write != .none && current != change.write else { return true }
    report { $0.observe(.supersededLocally(write: change.write, by: current)) }
    return false
  }

  /// `makePlan` for changes that all touch one object, the commonest export (one edit): the same
  /// plan, without ranking records or the scratch buffers that needs. One record always fits in
  /// one batch.
  mutating func planOneRecord(
    _ store: StoreID, zone: Int, object: ObjectID, changes: RowsView<Change>, into plan: inout ExportPlan
  ) {
    plan.clear()
    let base = Int(server.zones[zone].objects[object.index].fieldBase)
    for change in changes where isCurrent(change, in: store, fieldBase: base) {
      plan.entries.append(change)
    }
    guard !plan.entries.isEmpty else { return }
    let cost = exportCost(zone: zone, object: object, changes: plan.entries[...])
    plan.appendBatch(end: plan.entries.count, records: 1, bytes: cost.record + cost.assets)
  }

  /// What a record's changes cost in a modify request: a deleted record only its ID (in the
  /// request's `recordIDsToDelete`, `ServerParameters.deletedRecordIDBytes`); a new one its fields and assets; a
  /// changed one its fields. Deletes and saves share a batch and its record limit ([RE]
  /// OpenCloudData's export context: saves plus deletes against `perOperationObjectThreshold`,
  /// one `CKModifyRecordsOperation(recordsToSave:recordIDsToDelete:)`).
  @inline(__always)
  func exportCost(zone: Int, object: ObjectID, changes: ArraySlice<Change>) -> (record: Int64, assets: Int64) {
    if changes.contains(where: { $0.field == 0 }) { return (Int64(ServerParameters.deletedRecordIDBytes), 0) }
    let cost = recordCost(zone: zone, object: object)
    return (cost.record, changes.contains { $0.field < 0 } ? cost.assets : 0)
  }

  /// Sends the export's current batch (again, for a retry, not before `notBefore`).
  mutating func sendNextBatch(_ activity: ActivityID, notBefore: SimTime = .zero, sim: inout Simulation<ModelEvent>) {
    let device = owner(of: scheduler.activities[activity.index].store)
    let bytes = clients.plans[activity.index].batchBytes[Int(clients.runs[activity.index].nextBatch)]
    let duration =
      requestLatency(device) + Self.transfer(bytes, bytesPerSecond: devices[device.index].uploadBytesPerSecond)
    sendRequest(
      .exportRequestDone(activity), for: activity, from: device, taking: duration, notBefore: notBefore, sim: &sim)
  }

  /// Commits the export's current batch at the server, tells the other devices, and moves on to
  /// the next batch. The request is reported unless it was already (a partly saved batch's).
  @inline(__always)
  mutating func commitCurrentBatch(
    _ activity: ActivityID, reportingRequest: Bool = true, sim: inout Simulation<ModelEvent>
  ) {
    let store = scheduler.activities[activity.index].store
    let batch = Int(clients.runs[activity.index].nextBatch)
    let records = clients.plans[activity.index].batchRecords[batch]
    commit(store, activity: activity, entries: batchRange(activity, batch), at: sim.now)
    if reportingRequest {
      report { $0.observeRequest(
        store: store, upload: true, records: records, bytes: clients.plans[activity.index].batchBytes[batch],
        at: sim.now) }
    }
    clients.runs[activity.index].records += records
    clients.runs[activity.index].merged = false
    fanOutPush(from: store, zone: clients.stores[store.index].zone.index, sim: &sim)
    clients.runs[activity.index].nextBatch += 1
  }

  /// The server's answer to the current batch: the request faults, then the record faults
  /// (`RecordFaults`), the first that answers reported with its error; or accepted.
  mutating func exportVerdict(_ activity: ActivityID, at now: SimTime) -> RequestVerdict {
    let general = generalVerdict(activity, at: now)
    guard case .accepted = general else { return general }
    let store = scheduler.activities[activity.index].store
    let device = owner(of: store).index
    let batch = Int(clients.runs[activity.index].nextBatch)
    let range = batchRange(activity, batch)
    clients.scratch.failedRecords.removeAll(keepingCapacity: true)
    // The batch is read in place: copying the plan out would retain its buffers on every request.
    let answer: (error: CloudError, outcome: RecordOutcome)? = clients.plans[activity.index].entries
      .withUnsafeBufferPointer {
        let request = ModifyRequest(
          device: device, zone: clients.stores[store.index].zone.index, store: store, now: now,
          changes: UnsafeBufferPointer(rebasing: $0[range]),
          records: Int(clients.plans[activity.index].batchRecords[batch]),
          merged: clients.runs[activity.index].merged, importedToken: clients.stores[store.index].importedToken)
        // Through the port, on the server in place (a call on `server` would copy it first).
        var failed: [RecordFailure] = []
        swap(&failed, &clients.scratch.failedRecords)
        defer { swap(&failed, &clients.scratch.failedRecords) }
        // A local stream: see `SchedulerHost.scheduleDecision`.
        var stream = devices[device].streams.network
        defer { devices[device].streams.network = stream }
        return answerModify(request, random: &stream, failed: &failed)
      }
    guard let answer else { return .accepted }
    switch answer.outcome {
    case .tooLarge:
      report { $0.observe(.cloudError(store: store, error: answer.error, retryAfter: nil, at: now)) }
      // Core Data splits the batch in half and retries both. [A] limitExceeded. CKSyncEngine
      // hands the error to the app, and the round ends with the changes pending. [A] CKSyncEngine
      // (not among the errors it retries); [RE] continueSendingChangesAfterFailure = 0
      guard clients.stores[store.index].client == .coreData, splitBatch(activity, batch) else {
        return .failed(answer.error)
      }
      return .resend(at: now)
    case .refused(let error):
      report { $0.observe(.cloudError(store: store, error: error, retryAfter: nil, at: now)) }
      return .failed(error)
    case .changedOnServer:
      // Merge the changed fields into the server record from the error and send it again.
      report { $0.observe(.cloudError(store: store, error: answer.error, retryAfter: nil, at: now)) }
      clients.runs[activity.index].merged = true
      return .resend(at: now)
    case .recordsFailed:
      // One partialFailure for the request, stating the longest of its records' retry-afters.
      let retryAfter = clients.scratch.failedRecords.compactMap(\.retryAfter).max()
      report { $0.observe(.cloudError(store: store, error: answer.error, retryAfter: retryAfter, at: now)) }
      return .partlySaved(retryAt: now + (retryAfter ?? .zero))
    }
  }

  /// Splits batch `batch` so that the records the server saved come first and the failed ones
  /// (`scratch.failedRecords`, by position in the batch) form the next batch, each part keeping its
  /// records' order; false when every record failed (the batch is left as it is).
  mutating func separateFailedRecords(_ activity: ActivityID, _ batch: Int) -> Bool {
    let store = scheduler.activities[activity.index].store
    let zone = clients.stores[store.index].zone.index
    let range = batchRange(activity, batch)
    let records = Int(clients.plans[activity.index].batchRecords[batch])
    var failed = [Bool](repeating: false, count: records)
    for failure in clients.scratch.failedRecords where Int(failure.position) < records {
      failed[Int(failure.position)] = true
    }
    let failedCount = failed.count { $0 }
    guard failedCount < records else { return false }
    var saved: [Change] = []
    var retried: [Change] = []
    var savedBytes: Int64 = 0
    var record = 0
    var index = range.lowerBound
    // Record by record, each costed as the plan costed it (a deleted record its ID): the two
    // parts' bytes then add up to the batch's.
    while index < range.upperBound {
      let end = recordEnd(activity, from: index, before: range.upperBound)
      let entries = clients.plans[activity.index].entries[index..<end]
      if failed[record] {
        retried.append(contentsOf: entries)
      } else {
        saved.append(contentsOf: entries)
        let cost = exportCost(zone: zone, object: entries[index].object, changes: entries)
        savedBytes += cost.record + cost.assets
      }
      record += 1
      index = end
    }
    clients.plans[activity.index].entries.replaceSubrange(range, with: saved + retried)
    let totalBytes = clients.plans[activity.index].batchBytes[batch]
    clients.plans[activity.index].batchEnds.insert(Int32(range.lowerBound + saved.count), at: batch)
    clients.plans[activity.index].batchRecords[batch] = Int32(records - failedCount)
    clients.plans[activity.index].batchRecords.insert(Int32(failedCount), at: batch + 1)
    clients.plans[activity.index].batchBytes[batch] = savedBytes
    clients.plans[activity.index].batchBytes.insert(max(totalBytes - savedBytes, 0), at: batch + 1)
    return true
  }

  /// Forgets the changes an export that ends early has already committed (its batches before the
  /// current one), so that the export after it does not send them again.
  mutating func dropCommittedHistory(_ activity: ActivityID) {
    let batch = Int(clients.runs[activity.index].nextBatch)
    guard batch > 0 else { return }
    let store = scheduler.activities[activity.index].store
    let committedEnd = Int(clients.plans[activity.index].batchEnds[batch - 1])
    var committed = Set<Change>()
    for index in 0..<committedEnd { committed.insert(clients.plans[activity.index].entries[index]) }
    let covered = min(Int(clients.runs[activity.index].historyCovered), Int(clients.stores[store.index].savedCount))
    removeSavedChanges(store, in: 0..<covered) { committed.contains($0) }
  }

  /// Removes from the store's history the saved changes within `range` (positions among the
  /// saved ones) for which `removes` is true, keeping the order of the rest.
  mutating func removeSavedChanges(_ store: StoreID, in range: Range<Int>, where removes: (Change) -> Bool) {
    let range = range.clamped(to: 0..<Int(clients.stores[store.index].savedCount))
    var removed = 0
    clients.history[store.index].withMutableRows { rows in
      var kept = range.lowerBound
      for index in range.lowerBound..<rows.count {
        if range.contains(index) && removes(rows[index]) {
          removed += 1
          continue
        }
        rows[kept] = rows[index]
        kept += 1
      }
    }
    clients.history[store.index].removeLast(removed)
    clients.stores[store.index].savedCount -= Int32(removed)
  }

  /// Forgets the first `covered` saved changes once an export has carried them.
  ///
  /// At most the saved ones (a safeguard: a store removed during its export has already dropped
  /// the history, and `endExportWithTheRequestInFlight` sets the export to cover none).
  mutating func dropExportedHistory(_ store: StoreID, _ covered: Int) {
    let dropped = min(covered, Int(clients.stores[store.index].savedCount))
    clients.history[store.index].removeFirst(dropped)
    clients.stores[store.index].savedCount -= Int32(dropped)
  }

  /// The plan's entries that batch `batch` carries.
  @inline(__always)
  func batchRange(_ activity: ActivityID, _ batch: Int) -> Range<Int> {
    (batch == 0 ? 0 : Int(clients.plans[activity.index].batchEnds[batch - 1]))..<Int(
      clients.plans[activity.index].batchEnds[batch])
  }

  /// Where the record whose first change in the plan is at `index` ends (its changes are adjacent).
  @inline(__always)
  func recordEnd(_ activity: ActivityID, from index: Int, before limit: Int) -> Int {
    let object = clients.plans[activity.index].entries[index].object
    var end = index + 1
    while end < limit && clients.plans[activity.index].entries[end].object == object { end += 1 }
    return end
  }

  /// Splits batch `batch` into two at its middle record; false if it holds a single record.
  mutating func splitBatch(_ activity: ActivityID, _ batch: Int) -> Bool {
    let store = scheduler.activities[activity.index].store
    let records = Int(clients.plans[activity.index].batchRecords[batch])
    guard records >= 2 else { return false }
    let zone = clients.stores[store.index].zone.index
    let range = batchRange(activity, batch)
    var seen = 0
    var cut = range.lowerBound
    var firstBytes: Int64 = 0
    // Record by record, each costed as the plan costed it (a deleted record its ID, issue 71:
    // costed as a whole record, a half of deletes outweighed its batch and the other half's
    // bytes went negative, a send time near Int64.min).
    while cut < range.upperBound && seen < records / 2 {
      let end = recordEnd(activity, from: cut, before: range.upperBound)
      let object = clients.plans[activity.index].entries[cut].object
      let cost = exportCost(zone: zone, object: object, changes: clients.plans[activity.index].entries[cut..<end])
      firstBytes += cost.record + cost.assets
      seen += 1
      cut = end
    }
    let totalBytes = clients.plans[activity.index].batchBytes[batch]
    clients.plans[activity.index].batchEnds.insert(Int32(cut), at: batch)
    clients.plans[activity.index].batchRecords[batch] = Int32(records / 2)
    clients.plans[activity.index].batchRecords.insert(Int32(records - records / 2), at: batch + 1)
    clients.plans[activity.index].batchBytes[batch] = firstBytes
    clients.plans[activity.index].batchBytes.insert(totalBytes - firstBytes, at: batch + 1)
    return true
  }

  /// Applies one modify request at the server: a new change per record, fields by save policy.
  ///
  /// `entries` indexes the store's plan, read in place (a slice would retain its buffer).
  mutating func commit(_ store: StoreID, activity: ActivityID, entries: Range<Int>, at now: SimTime) {
    let zone = clients.stores[store.index].zone.index
    var lastObject: ObjectID?
    var sequence: Int32 = 0
    for index in entries {
      let change = clients.plans[activity.index].entries[index]
      let publicDelete =
        server.zones[zone].scope == .public && change.field == 0 && clients.writes[change.write].value == 0
      if change.object != lastObject && !publicDelete {
        sequence = recordChange(zone: zone, of: change.object, by: store, at: now)
        lastObject = change.object
        let base = Int(server.zones[zone].objects[change.object.index].fieldBase)
        if server.zones[zone].server[base].write == .none && change.field < 0 {
          let cost = recordCost(zone: zone, object: change.object)
          chargeUsage(zone: zone, bytes: cost.record + cost.assets)
        }
        if clients.settings.server.savePolicy == .allKeys {
          commitWholeRecord(store, zone: zone, object: change.object)
        }
      }
      let base = Int(server.zones[zone].objects[change.object.index].fieldBase)
      let fieldCount = fieldCount(zone: zone, object: change.object)
      let fields = change.field < 0 ? 0..<fieldCount : Int(change.field)..<Int(change.field) + 1
      if isReplayed(store) {
        commitReplayed(change, store, fields: fields, base: base, zone: zone)
      } else {
        for field in fields where clients.local[store.index][base + field].write == change.write || change.field >= 0 {
          let value = change.field >= 0 ? clients.writes[change.write].value : (field == 0 ? 1 : 0)
          setServerField(zone: zone, base + field, write: change.write, value: value)
          if clients.local[store.index][base + field].write == change.write {
            clients.local[store.index][base + field].dirty = false
          }
        }
      }
      noteCommitted(zone: zone, change.object, publicDelete: publicDelete)
      if change.write != .none {
        // A public-database delete leaves no tombstone: no token will ever cover it.
        let committedAt = publicDelete ? Int32.max : sequence
        report { $0.observeCommitted(write: change.write, activity: logID(activity), sequence: committedAt, at: now) }
      }
    }
    compactChangeLogIfLong(zone: zone)
  }

  /// Commits `change`'s fields from a replayed store (`ClientHost+ReplayedWrites`): the fields that
  /// still hold its write are clean from now on.
  mutating func commitReplayed(_ change: Change, _ store: StoreID, fields: Range<Int>, base: Int, zone: Int) {
    for field in fields
    where localField(store, change.object, field: base + field).write == change.write || change.field >= 0 {
      let value = change.field >= 0 ? clients.writes[change.write].value : (field == 0 ? 1 : 0)
      setServerField(zone: zone, base + field, write: change.write, value: value)
      markExported(store, change.object, base + field, write: change.write)
    }
  }

  /// `allKeys`: the arriving record replaces every field with the device's values.
  mutating func commitWholeRecord(_ store: StoreID, zone: Int, object: ObjectID) {
    let base = Int(server.zones[zone].objects[object.index].fieldBase)
    for field in base..<base + fieldCount(zone: zone, object: object) {
      let held = localField(store, object, field: field)
      if held.write != .none { setServerField(zone: zone, field, write: held.write, value: held.value) }
    }
  }

  /// Overwrites a server field, detecting a lost update: the previous value came from another
  /// device and the new write was made without having seen it.
  mutating func setServerField(zone: Int, _ field: Int, write: WriteID, value: Int32) {
    let previous = server.zones[zone].server[field].write
    // The new write's own columns (recent, so cached) first: the old write's store is a cold
    // read, needed only when the device had not seen the value it replaces.
    if previous != .none && previous != write && write != .none && clients.writes[write].basedOn != previous
      && owner(of: clients.writes[previous].store) != owner(of: clients.writes[write].store)
    {
      report { $0.observe(.lostUpdate(write: previous, by: write)) }
    }
    setField(zone: zone, field, write: write, value: value)
  }
}
