import SimKernel

/// The CKSyncEngine client's own decisions (`docs/sync-engine.md`): when it sends and fetches, the
/// app's manual calls, and its state's serialization. The send and fetch themselves run through
/// the export and import machines (`exportStep`, `importStep`), which differ for it only where a
/// failed batch ends the round.
extension ClientHost {
  /// The engine's settings on the store's device.
  @inline(__always)
  func engine(_ store: StoreID) -> SyncEngineBehaviour { clients.settings.devices[owner(of: store).index].syncEngine }

  /// A push for the store's zone reached the app: in a running app the engine fetches at once
  /// (`immediatePushFetch`), otherwise through dasd. [RE] `immediatePushSyncEnabled`
  mutating func engineReceivedPush(_ store: StoreID, sim: inout Simulation<ModelEvent>) {
    let immediate = engine(store).immediatePushFetch && processRuns(owner(of: store))
    requestImport(store, trigger: .push, immediate: immediate, sim: &sim)
  }

  /// The app leaves the foreground: the engine sends nothing by itself; an app that sends on
  /// resign calls `sendChanges` inside its background task. [C] sqlite-data PR #167
  mutating func engineResigned(_ store: StoreID, sim: inout Simulation<ModelEvent>) {
    guard engine(store).sendOnResign, clients.stores[store.index].savedCount > 0 else { return }
    requestExport(store, trigger: .appDeactivation, immediate: true, sim: &sim)
  }

  /// `sendChanges` or `fetchChanges` from the app: starts at once, after a running send or fetch
  /// of the store (the engine does one at a time). The app runs to call it. [A] CKSyncEngine
  mutating func manualSync(_ device: DeviceID, send: Bool, sim: inout Simulation<ModelEvent>) {
    if !processRuns(device) { runForEdit(device, sim: &sim) }
    for store in storeIDs(of: device) where isSyncing(store) && clients.stores[store.index].client == .syncEngine {
      if send {
        requestExport(store, trigger: .manual, immediate: true, sim: &sim)
      } else {
        requestImport(store, trigger: .manual, immediate: true, sim: &sim)
      }
    }
  }

  /// A save added pending changes to the engine's state: the app writes the state
  /// `statePersistLag` later (at once without a lag).
  mutating func enginePendingAdded(_ store: StoreID, sim: inout Simulation<ModelEvent>) {
    guard !clients.engineStates.isEmpty else { return }
    let next = clients.writes.nextID
    clients.engineStates[store.index].savedThrough = next
    let lag = engine(store).statePersistLag
    guard lag > .zero else {
      clients.engineStates[store.index].writtenThrough = next
      return
    }
    guard !clients.engineStates[store.index].writePending else { return }
    clients.engineStates[store.index].writing = next
    clients.engineStates[store.index].writePending = true
    sim.schedule(.statePersisted(store), after: lag)
  }

  /// The app wrote the engine's state; saves since it was asked for ask for another write.
  mutating func statePersisted(_ store: StoreID, sim: inout Simulation<ModelEvent>) {
    guard clients.engineStates[store.index].writePending else { return }
    clients.engineStates[store.index].writtenThrough = clients.engineStates[store.index].writing
    clients.engineStates[store.index].writePending = false
    if clients.engineStates[store.index].savedThrough > clients.engineStates[store.index].writing {
      clients.engineStates[store.index].writing = clients.engineStates[store.index].savedThrough
      clients.engineStates[store.index].writePending = true
      sim.schedule(.statePersisted(store), after: engine(store).statePersistLag)
    }
  }

  /// The app crashed: the pending changes its written state does not hold are no longer pending,
  /// so they are never sent (each write lost). A running send keeps what it planned.
  mutating func engineLosesUnwrittenState(_ store: StoreID, at now: SimTime) {
    guard !clients.engineStates.isEmpty, clients.engineStates[store.index].writePending else { return }
    let boundary = clients.engineStates[store.index].writtenThrough
    let running = scheduler.storeActivities[store.index].runningExport
    let from = running.exists ? Int(clients.runs[running.index].historyCovered) : 0
    let sink = sink
    removeSavedChanges(store, in: from..<Int(clients.stores[store.index].savedCount)) { change in
      guard change.write != .none && change.write.raw >= boundary else { return false }
      sink.observe(.lostWrite(write: change.write, reason: .stateNotPersisted, at: now))
      return true
    }
    clients.engineStates[store.index].writePending = false
    clients.engineStates[store.index].writtenThrough = clients.engineStates[store.index].savedThrough
  }

  /// The app's process ends abruptly: unsaved edits are lost, a CKSyncEngine app loses the
  /// pending changes its written state does not hold, and nothing of the deactivation happens
  /// (no save, no export). What it had asked dasd for is dropped.
  mutating func crash(_ device: DeviceID, sim: inout Simulation<ModelEvent>) {
    guard devices[device.index].app != .notRunning else { return }
    for store in storeIDs(of: device) where isSyncing(store) {
      sim.cancel(clients.stores[store.index].saveTimer)
      loseUnsaved(store, reason: .crashed, at: sim.now)
      if clients.stores[store.index].client == .syncEngine { engineLosesUnwrittenState(store, at: sim.now) }
      sim.cancel(clients.stores[store.index].pollTimer)
      cancelPendingActivities(store, reason: .appTerminated, sim: &sim)
    }
    setAppState(device, .notRunning, at: sim.now)
    devices[device.index].launchedForPush = false
    signal(device, sim: &sim)
  }
}

extension ClientHost {
  /// The app saves one record of `store` with its own CloudKit call, not through the engine (as
  /// UICloudSharingController saves or deletes a CKShare): the change commits at the server at
  /// once, as the app's own modify operation, and reaches the other devices as any change does;
  /// the store keeps its own value of the field, and its engine does not fetch the app's write,
  /// not even on `fetchChanges`, until the app is launched again (or another write replaces it).
  /// [C] sample-cloudkit-sync-engine #17
  mutating func saveOutsideEngine(_ store: StoreID, sim: inout Simulation<ModelEvent>) {
    guard isSyncing(store), clients.stores[store.index].setup == .done, processRuns(owner(of: store)),
      let object = findObject(store, entity: 0, random: true)
    else { return }
    let zone = clients.stores[store.index].zone.index
    let base = Int(server.zones[zone].objects[object.index].fieldBase)
    let fields = server.entityFieldCount[Int(server.zones[zone].objects[object.index].entity)]
    guard fields > 1 else { return }
    let field = base + 1 + Int(devices[owner(of: store).index].streams.edit.nextInt(below: UInt64(fields - 1)))
    let value = Int32(truncatingIfNeeded: devices[owner(of: store).index].streams.edit.next() & 0x7FFF_FFFF)
    let write = newWrite(store, basedOn: server.zones[zone].server[field].write, value: value)
    report { $0.observeEdited(
      write: write, store: store, object: object, field: Int32(field - base), kind: .update, at: sim.now) }
    report { $0.observeSaved(write: write, at: sim.now) }
    // The app's own modify operation: an export of its own, outside dasd and the engine.
    let activity = ownActivity(.export, store: store, at: sim.now)
    let sequence = recordChange(zone: zone, of: object, by: store, at: sim.now)
    setServerField(zone: zone, field, write: write, value: value)
    report { $0.observeCommitted(write: write, activity: activity, sequence: sequence, at: sim.now) }
    report { $0.observeRequest(
      store: store, upload: true, records: 1, bytes: recordCost(zone: zone, object: object).record, at: sim.now) }
    report { $0.observeActivityFinished(activity: activity, at: sim.now, records: 1, succeeded: true) }
    compactChangeLogIfLong(zone: zone)
    fanOutPush(from: store, zone: zone, sim: &sim)
    ensureLocalCapacity(store)
    clients.engineBlind[store.raw, default: []].append((Int32(field), write, clients.local[store.index][field]))
  }

  /// An activity the app runs itself, outside dasd (its id only: it takes no slot), reported as
  /// requested and started now; the caller reports its end.
  mutating func ownActivity(_ kind: ActivityKind, store: StoreID, at now: SimTime) -> ActivityID {
    let activity = newActivityLogID()
    report { $0.observeActivityRequested(activity: activity, kind: kind, store: store, trigger: .manual, at: now) }
    report { $0.observeActivityStarted(activity: activity, at: now) }
    return activity
  }

  /// The app was launched again: its engine fetches the writes it did not, those the app saved
  /// outside it that the server still holds (applied at the launch, reported as an import).
  mutating func engineRelaunched(_ store: StoreID, at now: SimTime) {
    guard !clients.engineBlind.isEmpty, let blind = clients.engineBlind.removeValue(forKey: store.raw) else { return }
    let zone = clients.stores[store.index].zone.index
    var records: Int32 = 0
    for entry in blind where server.zones[zone].server[Int(entry.field)].write == entry.write {
      let field = Int(entry.field)
      guard !clients.local[store.index][field].dirty else { continue }
      clients.local[store.index][field] = LocalField(write: entry.write, value: server.zones[zone].server[field].value)
      records += 1
    }
    guard records > 0 else { return }
    let activity = ownActivity(.import, store: store, at: now)
    report { $0.observeImported(
      store: store, activity: activity, token: clients.stores[store.index].appliedToken, records: records, at: now) }
    report { $0.observeActivityFinished(activity: activity, at: now, records: records, succeeded: true) }
    updateVisibility(store, at: now)
  }
}
