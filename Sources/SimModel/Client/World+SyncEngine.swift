import SimKernel

/// The CKSyncEngine client's own decisions (`docs/sync-engine.md`): when it sends and fetches, the
/// app's manual calls, and its state's serialization. The send and fetch themselves run through
/// the export and import machines (`exportStep`, `importStep`), which differ for it only where a
/// failed batch ends the round.
extension World {
  /// The engine's settings on the store's device.
  @inline(__always)
  func engine(_ store: StoreID) -> SyncEngineBehaviour { spec.devices[owner(of: store).index].syncEngine }

  /// A push for the store's zone reached the app: in a running app the engine fetches at once
  /// (`immediatePushFetch`), otherwise through dasd. [RE] `immediatePushSyncEnabled`
  mutating func engineReceivedPush(_ store: StoreID, sim: inout Simulation<ModelEvent>) {
    let immediate = engine(store).immediatePushFetch && processRuns(owner(of: store))
    requestImport(store, trigger: .push, immediate: immediate, sim: &sim)
  }

  /// The app leaves the foreground: the engine sends nothing by itself; an app that sends on
  /// resign calls `sendChanges` inside its background task. [C] sqlite-data PR #167
  mutating func engineResigned(_ store: StoreID, sim: inout Simulation<ModelEvent>) {
    guard engine(store).sendOnResign, stores[store.index].savedCount > 0 else { return }
    requestExport(store, trigger: .appDeactivation, immediate: true, sim: &sim)
  }

  /// `sendChanges` or `fetchChanges` from the app: starts at once, after a running send or fetch
  /// of the store (the engine does one at a time). The app runs to call it. [A] CKSyncEngine
  mutating func manualSync(_ device: DeviceID, send: Bool, sim: inout Simulation<ModelEvent>) {
    if !processRuns(device) { runForEdit(device, sim: &sim) }
    for store in storeIDs(of: device) where isSyncing(store) && stores[store.index].client == .syncEngine {
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
    guard !engineStates.isEmpty else { return }
    let next = writes.nextID
    engineStates[store.index].savedThrough = next
    let lag = engine(store).statePersistLag
    guard lag > .zero else {
      engineStates[store.index].writtenThrough = next
      return
    }
    guard !engineStates[store.index].writePending else { return }
    engineStates[store.index].writing = next
    engineStates[store.index].writePending = true
    sim.schedule(.statePersisted(store), after: lag)
  }

  /// The app wrote the engine's state; saves since it was asked for ask for another write.
  mutating func statePersisted(_ store: StoreID, sim: inout Simulation<ModelEvent>) {
    guard engineStates[store.index].writePending else { return }
    engineStates[store.index].writtenThrough = engineStates[store.index].writing
    engineStates[store.index].writePending = false
    if engineStates[store.index].savedThrough > engineStates[store.index].writing {
      engineStates[store.index].writing = engineStates[store.index].savedThrough
      engineStates[store.index].writePending = true
      sim.schedule(.statePersisted(store), after: engine(store).statePersistLag)
    }
  }

  /// The app crashed: the pending changes its written state does not hold are no longer pending,
  /// so they are never sent (each write lost). A running send keeps what it planned.
  mutating func engineLosesUnwrittenState(_ store: StoreID, at now: SimTime) {
    guard !engineStates.isEmpty, engineStates[store.index].writePending else { return }
    let boundary = engineStates[store.index].writtenThrough
    let running = stores[store.index].runningExport
    let from = running.exists ? Int(scheduler.activities[running.index].historyCovered) : 0
    let saved = Int(stores[store.index].savedCount)
    var removed = 0
    history[store.index].withMutableRows { rows in
      var kept = from
      for index in from..<rows.count {
        let change = rows[index]
        if index < saved && change.write != .none && change.write.raw >= boundary {
          sink.observe(.lostWrite(write: change.write, reason: .stateNotPersisted, at: now))
          removed += 1
          continue
        }
        rows[kept] = change
        kept += 1
      }
    }
    history[store.index].removeLast(removed)
    stores[store.index].savedCount -= Int32(removed)
    engineStates[store.index].writePending = false
    engineStates[store.index].writtenThrough = engineStates[store.index].savedThrough
  }

  /// The app's process ends abruptly: unsaved edits are lost, a CKSyncEngine app loses the
  /// pending changes its written state does not hold, and nothing of the deactivation happens
  /// (no save, no export). What it had asked dasd for is dropped.
  mutating func crash(_ device: DeviceID, sim: inout Simulation<ModelEvent>) {
    guard devices[device.index].app != .notRunning else { return }
    for store in storeIDs(of: device) where isSyncing(store) {
      sim.cancel(stores[store.index].saveTimer)
      loseUnsaved(store, reason: .crashed, at: sim.now)
      if stores[store.index].client == .syncEngine { engineLosesUnwrittenState(store, at: sim.now) }
      sim.cancel(stores[store.index].pollTimer)
      cancelPendingActivities(store, reason: .appTerminated, sim: &sim)
    }
    setAppState(device, .notRunning, at: sim.now)
    devices[device.index].launchedForPush = false
    signal(device, sim: &sim)
  }
}
