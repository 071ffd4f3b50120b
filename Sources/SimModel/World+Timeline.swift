import SimKernel

/// The scenario's timeline, routed: each entry (`Agenda`) becomes the calls it makes on the
/// components it concerns, the devices' conditions, the clients, the scheduler, the push service
/// and the server. Its repeating entries (nudges, bulk steps) schedule their next step here.
extension World {
  mutating func perform(_ index: Int, sim: inout Simulation<ModelEvent>) {
    let (_, device, action, storeIndex) = agenda.actions[index]
    defer {
      if action.changesBuiltInCondition { reportConditions(device, at: sim.now) }
    }
    if action.changesBuiltInCondition { pushStateWillChange(device, at: sim.now) }
    switch action {
    case .goOffline:
      devices[device.index].online = false
      signal(device, sim: &sim)
    case .goOnline:
      devices[device.index].online = true
      releaseStoredPush(device, sim: &sim)
      signal(device, sim: &sim)
    case .plug, .unplug:
      devices[device.index].pluggedIn = action == .plug
      if let received = releaseDeferredPush(device, sim: &sim) { pushReceived(device, received, sim: &sim) }
      signal(device, sim: &sim)
    case .lowPower(let on):
      devices[device.index].lowPowerMode = on
      if let received = releaseDeferredPush(device, sim: &sim) { pushReceived(device, received, sim: &sim) }
      signal(device, sim: &sim)
    case .battery(let percent):
      devices[device.index].batteryPercent = percent
      if let received = releaseDeferredPush(device, sim: &sim) { pushReceived(device, received, sim: &sim) }
      signal(device, sim: &sim)
    case .launch, .activate: bringToForeground(device, sim: &sim)
    case .background: sendToBackground(device, sim: &sim)
    case .terminate: terminate(device, forceQuit: false, sim: &sim)
    case .forceQuit: terminate(device, forceQuit: true, sim: &sim)
    case .crash: crash(device, sim: &sim)
    case .sendChanges: manualSync(device, send: true, sim: &sim)
    case .fetchChanges: manualSync(device, send: false, sim: &sim)
    case .saveOutsideEngine:
      if let store = editTarget(device, storeIndex: storeIndex) { saveOutsideEngine(store, sim: &sim) }
    case .nudge: nudge(index, sim: &sim)
    case .edit(let kind, let entity, let key):
      if let store = editTarget(device, storeIndex: storeIndex) {
        edit(store, kind: kind, entity: entity, key: key, sim: &sim)
      }
    case .resetSync(let reason):
      for store in storeIDs(of: device) where isSyncing(store) { resetSync(store, reason: reason, sim: &sim) }
    case .toggleSync(let removeStoreFirst):
      for store in storeIDs(of: device) where isSyncing(store) {
        toggleSync(store, removeStoreFirst: removeStoreFirst, sim: &sim)
      }
    case .quota(let bytes):
      let account = Int(devices[device.index].account)
      server.accounts[account].quotaBytes = bytes
      quotaChanged(account: account, sim: &sim)
    case .throttle(let on):
      server.rates.throttleForced = on
    case .declared(let declared):
      declared.behaviour.perform(on: device, storeIndex: storeIndex, world: &self, sim: &sim)
    case .setLevel(let slot, let value):
      levels[device.index][slot] = value
      sink.observe(
        .level(device: device, condition: Int32(ConditionTable.builtInCount + slot), value: value, at: sim.now))
      signal(device, sim: &sim)
    case .bulkInsert(let count, let entity, let oneSave, _):
      guard let store = editTarget(device, storeIndex: storeIndex), isSyncing(store) else { return }
      if oneSave {
        for _ in 0..<count { insertObject(store, entity: entity, kind: .insert, at: sim.now) }
        save(store, sim: &sim)
      } else {
        bulkStep(index, sim: &sim)
      }
    case .bulkDelete(let count, let entity, let oneSave, _):
      guard let store = editTarget(device, storeIndex: storeIndex), isSyncing(store) else { return }
      let targets = liveObjects(store, entity: entity, limit: count ?? Int.max)
      if oneSave {
        for object in targets { deleteObject(store, object, at: sim.now) }
        if !targets.isEmpty { save(store, sim: &sim) }
      } else if let first = targets.first {
        agenda.bulkCursor[index] = Int32(first.index)
        agenda.bulkSteps[index] = Int32(targets.count)
        bulkDeleteStep(index, sim: &sim)
      }
    }
  }

  /// Posts `didBecomeActive` ([HowTo]): the container schedules an import; repeats on a timer.
  mutating func nudge(_ index: Int, sim: inout Simulation<ModelEvent>) {
    let (at, device, action, _) = agenda.actions[index]
    guard case .nudge(let every, let until, let jitter) = action else { return }
    if devices[device.index].app == .foreground {
      // didBecomeActive is the Core Data container's cue; CKSyncEngine does not listen for it.
      for store in storeIDs(of: device) where isSyncing(store) && clients.stores[store.index].client == .coreData {
        requestImport(store, trigger: .nudge, sim: &sim)
      }
    }
    guard let every, every > .zero else { return }
    // Repeats on the clock from the action's time: the k-th at `at + k·every`, plus its jitter.
    agenda.bulkProgress[index] += 1
    let nominal = SimTime(at + every * Int64(agenda.bulkProgress[index]))
    guard nominal <= SimTime(until ?? spec.duration) else { return }
    var next = nominal
    if jitter > .zero {
      next = next + SimDuration(seconds: devices[device.index].streams.usage.nextUnit() * jitter.seconds)
    }
    sim.schedule(.nudge(Int32(index)), at: max(next, sim.now))
  }

  /// One object and one save of a bulk insert saved object by object.
  mutating func bulkStep(_ index: Int, sim: inout Simulation<ModelEvent>) {
    let (_, device, action, storeIndex) = agenda.actions[index]
    if case .bulkDelete = action {
      bulkDeleteStep(index, sim: &sim)
      return
    }
    guard case .bulkInsert(let count, let entity, _, let over) = action,
      let store = editTarget(device, storeIndex: storeIndex), isSyncing(store)
    else { return }
    insertObject(store, entity: entity, kind: .insert, at: sim.now)
    save(store, sim: &sim)
    agenda.bulkProgress[index] += 1
    if Int(agenda.bulkProgress[index]) < count {
      sim.schedule(.bulkStep(Int32(index)), after: over / Int64(max(count, 1)))
    }
  }

  /// One delete and one save of a bulk delete saved object by object: the next live object of
  /// the entity from the action's cursor (one deleted elsewhere meanwhile is passed over).
  mutating func bulkDeleteStep(_ index: Int, sim: inout Simulation<ModelEvent>) {
    let (_, device, action, storeIndex) = agenda.actions[index]
    guard case .bulkDelete(_, let entity, _, let over) = action,
      let store = editTarget(device, storeIndex: storeIndex), isSyncing(store),
      let object = nextLiveObject(store, entity: entity, from: Int(agenda.bulkCursor[index]))
    else { return }
    deleteObject(store, object, at: sim.now)
    save(store, sim: &sim)
    agenda.bulkCursor[index] = Int32(object.index + 1)
    agenda.bulkProgress[index] += 1
    let steps = agenda.bulkSteps[index]
    if agenda.bulkProgress[index] < steps {
      sim.schedule(.bulkStep(Int32(index)), after: over / Int64(max(steps, 1)))
    }
  }
}
