import SimKernel

/// Mirroring resets, token expiry and the second-container trap (spec §8).
extension ClientHost {
  /// Announces a reset: the mirrored rows are wiped and everything is re-imported from a nil
  /// token. Unexported local changes survive and are exported afterwards.
  mutating func resetSync(_ store: StoreID, reason: ResetReason, sim: inout Simulation<ModelEvent>) {
    report { $0.observe(.reset(store: store, reason: reason, at: sim.now)) }
    cancelPendingActivities(store, reason: .reset, sim: &sim)
    clients.stores[store.index].resetting = true
    if isReplayed(store) {
      wipeReplayedCopy(store)
    } else {
      ensureLocalCapacity(store)
      for field in clients.local[store.index].indices where !clients.local[store.index][field].dirty {
        clients.local[store.index][field] = LocalField()
      }
    }
    clients.stores[store.index].importedToken = 0
    clients.stores[store.index].holdsToken = false
    clients.stores[store.index].appliedToken = 0
    // An import already fetching was asked from the old token: what it brings is kept, but it
    // must not move the store's token past changes the reset dropped (a store removed and
    // synced again mid-import kept only that import's records, and never converged).
    let running = scheduler.storeActivities[store.index].runningImport
    if running.exists {
      clients.runs[running.index].snapshotToken = 0
      clients.runs[running.index].fromEmptyToken = false
      if running.index < clients.importPageTokens.count {
        clients.importPageTokens[running.index].removeAll(keepingCapacity: true)
      }
    }
    requestImport(store, trigger: .initial, sim: &sim)
  }

  /// Called when an import finishes: ends a reset, then performs the saves the guard deferred.
  mutating func endResetIfNeeded(_ store: StoreID, sim: inout Simulation<ModelEvent>) {
    guard clients.stores[store.index].resetting else { return }
    clients.stores[store.index].resetting = false
    report { $0.observe(.resetEnded(store: store, at: sim.now)) }
    save(store, sim: &sim)
    if clients.stores[store.index].savedCount > 0 { requestExport(store, trigger: .exportAgain, sim: &sim) }
  }

  /// True when the store's token points at history older than the server keeps.
  @inline(__always)
  func tokenExpired(_ store: StoreID, at now: SimTime) -> Bool {
    guard let retention = clients.settings.server.changeTokenRetention else { return false }
    let state = clients.stores[store.index]
    let zone = state.zone.index
    guard state.importedToken > 0, state.importedToken < server.zones[zone].changeCount else { return false }
    return now - state.tokenAt > retention
  }

  /// Re-creating the container: without removing the store, setup fails with 134410 and the
  /// store stops syncing; removing it first loses unexported changes, then syncs from scratch.
  mutating func toggleSync(_ store: StoreID, removeStoreFirst: Bool, sim: inout Simulation<ModelEvent>) {
    guard removeStoreFirst else {
      report { $0.observe(.setupFailed(store: store, code: 134_410, at: sim.now)) }
      clients.stores[store.index].disabled = true
      cancelPendingActivities(store, reason: .storeDisabled, sim: &sim)
      return
    }
    cancelPendingActivities(store, reason: .storeRemoved, sim: &sim)
    save(store, sim: &sim)
    let zone = clients.stores[store.index].zone.index
    let saved = Int(clients.stores[store.index].savedCount)
    let (covered, unsent) = endExportWithTheRequestInFlight(store)
    let held = clients.history[store.index].withRows(min(covered, saved)..<saved) { Array($0) }
    for change in unsent + held where change.write != .none {
      let base = Int(server.zones[zone].objects[change.object.index].fieldBase)
      let field = base + Int(max(change.field, 0))
      // Only the write the store still held is lost; superseded ones are reported as such (an
      // insert, whose change names no field, by the later write to its object: a delete
      // before the removal left the insert unaccounted for, pending for ever).
      if clients.local[store.index][field].write == change.write {
        report { $0.observe(.lostWrite(write: change.write, reason: .storeRemoved, at: sim.now)) }
      } else if clients.local[store.index][field].write != .none {
        report { $0.observe(.supersededLocally(write: change.write, by: clients.local[store.index][field].write)) }
      }
    }
    clients.history[store.index].removeFirst(saved)
    clients.stores[store.index].savedCount = 0
    ensureLocalCapacity(store)
    for field in clients.local[store.index].indices {
      clients.local[store.index][field] = LocalField()
    }
    resetSync(store, reason: .accountChange, sim: &sim)
  }

  /// The store is being removed: its running export ends with the request already sent (the
  /// server may still accept it) and sends none of its later batches. [assumed]
  ///
  /// Returns how much of the history the export had planned, and the planned changes it will now
  /// never send. The sent ones reach the server; the others, and the history it had not planned,
  /// are lost with the store. The export then drops none of what is saved after the removal.
  mutating func endExportWithTheRequestInFlight(_ store: StoreID) -> (covered: Int, unsent: [Change]) {
    let activity = scheduler.storeActivities[store.index].runningExport
    guard activity.exists, activity.index < clients.plans.count, !clients.plans[activity.index].batchEnds.isEmpty else {
      return (0, [])
    }
    let kept = min(Int(clients.runs[activity.index].nextBatch) + 1, clients.plans[activity.index].batchEnds.count)
    let sentEnd = Int(clients.plans[activity.index].batchEnds[kept - 1])
    let unsent = Array(clients.plans[activity.index].entries[sentEnd...])
    clients.plans[activity.index].keepBatches(kept)
    let covered = Int(clients.runs[activity.index].historyCovered)
    clients.runs[activity.index].historyCovered = 0
    return (covered, unsent)
  }

  /// Removes duplicates after an import: among live objects with the same logical key, the
  /// lowest id wins and the others are deleted ([CDModel], [Rules]).
  mutating func deduplicate(_ store: StoreID, sim: inout Simulation<ModelEvent>) {
    let zone = clients.stores[store.index].zone.index
    var winners: [Int32: ObjectID] = [:]  // lookup only; deletions follow object order
    var losers: [ObjectID] = []
    for object in 0..<server.zones[zone].objects.count where server.zones[zone].objects[object].key >= 0 {
      guard isLive(store, fieldBase: Int(server.zones[zone].objects[object].fieldBase)) else { continue }
      let key = server.zones[zone].objects[object].key
      if winners[key] == nil { winners[key] = ObjectID(object) } else { losers.append(ObjectID(object)) }
    }
    guard !losers.isEmpty else { return }
    for object in losers {
      let base = Int(server.zones[zone].objects[object.index].fieldBase)
      // A system write, not a person's: it is not announced as an edit.
      let write = newWrite(store, basedOn: clients.local[store.index][base].write, value: 0)
      setLocal(store, object, base, write: write, value: 0)
      // Saved at once: it joins the history ahead of the person's unsaved edits.
      clients.history[store.index].insert(
        Change(object: object, field: 0, write: write), at: Int(clients.stores[store.index].savedCount))
      clients.stores[store.index].savedCount += 1
    }
    requestExport(store, trigger: .save, sim: &sim)
  }

  /// The data at the end of the run: ghosts, duplicates, counters, contributions.
  /// Reports every store's view of every object of its zone (`Observation.objectState`).
  func reportObjects() {
    for (index, store) in clients.stores.enumerated() where store.zone.exists {
      let zone = store.zone.index
      for object in 0..<server.zones[zone].objects.count {
        let record = server.zones[zone].objects[object]
        let base = Int(record.fieldBase)
        let fields = fieldCount(zone: zone, object: ObjectID(object))
        var held = WriteID.none
        var serverWrite = WriteID.none
        for field in base..<base + fields {
          if field < clients.local[index].count { held = max(held, clients.local[index][field].write) }
          serverWrite = max(serverWrite, server.zones[zone].server[field].write)
        }
        report { $0.observe(
          .objectState(
            store: StoreID(index), object: ObjectID(object), entity: record.entity,
            held: isLive(StoreID(index), fieldBase: base), write: held,
            serverLive: server.zones[zone].server[base].write != .none && server.zones[zone].server[base].value == 1,
            serverWrite: serverWrite)) }
      }
    }
  }

  func finalState() -> FinalState {
    var state = FinalState()
    for (index, store) in clients.stores.enumerated()
    where store.zone.exists && server.zones[store.zone.index].scope == .public && !isReplayed(StoreID(index)) {
      let zone = store.zone.index
      for object in 0..<server.zones[zone].objects.count {
        let base = Int(server.zones[zone].objects[object].fieldBase)
        let server = server.zones[zone].server[base]
        if server.write != .none && server.value == 0 && isLive(StoreID(index), fieldBase: base) {
          state.ghosts += 1
        }
      }
    }
    for index in clients.replayedEnds.indices where clients.replayed[index] {
      state.ghosts += clients.replayedEnds[index].ghosts
    }
    for zone in server.zones.indices {
      var seen = Set<Int32>()  // membership only
      for object in 0..<server.zones[zone].objects.count {
        let record = server.zones[zone].objects[object]
        let server = server.zones[zone].server[Int(record.fieldBase)]
        guard server.write != .none, server.value == 1 else { continue }
        if record.contribution { state.contributions += 1 }
        let key = record.key
        if key >= 0 && !seen.insert(key).inserted { state.duplicates += 1 }
      }
    }
    for (index, store) in clients.stores.enumerated() where store.zone.exists {
      let zone = store.zone.index
      let version = deviceTraits[traitsIndex(of: store.device)].modelVersion
      for object in 0..<server.zones[zone].objects.count where server.zones[zone].objects[object].version > version {
        let base = Int(server.zones[zone].objects[object].fieldBase)
        let server = server.zones[zone].server[base]
        if server.write != .none && server.value == 1 && !isLive(StoreID(index), fieldBase: base) {
          state.hiddenRecords += 1
        }
      }
    }
    for counter in server.counterFields {
      state.counterValue += Int(server.zones[Int(counter.zone)].server[Int(counter.field)].value)
    }
    return state
  }
}
