import SimKernel

/// App lifecycle, device conditions, the timeline, usage sessions, nudges and polling (spec §3).
extension World {
  mutating func setAppState(_ device: DeviceID, _ state: AppState, at now: SimTime) {
    guard devices[device.index].app != state else { return }
    devices[device.index].app = state
    sink.observe(.appState(device: device, state: state, at: now))
  }

  /// The user opens the app (launch from not running, or activation from the background).
  mutating func bringToForeground(_ device: DeviceID, sim: inout Simulation<ModelEvent>) {
    let previous = devices[device.index].app
    guard previous != .foreground else { return }
    devices[device.index].forceQuit = false
    devices[device.index].launchedForPush = false
    devices[device.index].lastOpenedAt = sim.now
    setAppState(device, .foreground, at: sim.now)
    wake(device, sim: &sim)
    releaseHeldPush(device, sim: &sim)
    let deferred = devices[device.index].mailbox.deferredZone
    if deferred.exists {
      // In front, a Core Data app imports on activation anyway; the deferred push is moot. A
      // CKSyncEngine app, which does not, gets it now that it is in front.
      devices[device.index].mailbox.deferredZone = .none
      if spec.devices[device.index].client == .syncEngine {
        sink.observePush(device: device, event: .delivered, at: sim.now)
        clientPushReceived(device, zone: deferred, sim: &sim)
      }
    }
    let trigger: ActivityTrigger = previous == .notRunning ? .launch : .activation
    for store in storeIDs(of: device) where isSyncing(store) {
      if fetchesOnForeground(store, launched: previous == .notRunning) {
        requestImport(store, trigger: trigger, sim: &sim)
      }
      if previous == .notRunning {
        exportHistoryLeftByLastProcess(store, sim: &sim)
        engineRelaunched(store, at: sim.now)
      }
      if deviceTraits[traitsIndex(of: device)].app.uiRefresh == .onLaunch {
        clients.stores[store.index].uiToken = clients.stores[store.index].appliedToken
      }
      updateVisibility(store, at: sim.now)
      if previous == .notRunning || !spec.polling.appUseClock {
        schedulePoll(store, sim: &sim)
      } else {
        resumePoll(store, sim: &sim)
      }
    }
    signal(device, sim: &sim)
  }

  /// Whether coming to the front fetches: always for a private or shared store (a foreground app
  /// imports on activation, spec §7); for a public-database store, as `polling.fetchOn` says,
  /// except that an empty store (no change token yet) fetches at its launch under every rule:
  /// Apple's "immediately for empty store files" (spec §7; issue 56, item 5).
  /// A CKSyncEngine app fetches when its process launches (and its engine first starts, whose
  /// state holds no token), and on activation only if `fetchOnActivation`.
  func fetchesOnForeground(_ store: StoreID, launched: Bool) -> Bool {
    if clients.stores[store.index].client == .syncEngine {
      return launched || engine(store).fetchOnActivation || clients.stores[store.index].setup != .done
    }
    guard server.zones[clients.stores[store.index].zone.index].scope == .public else { return true }
    switch spec.polling.fetchOn {
    case .activation: return true
    case .launch: return launched
    case .interval: return launched && !clients.stores[store.index].holdsToken
    }
  }

  /// A new process exports the saved history the last one left, whatever launched it (the person
  /// or a push). [A] TN3164
  mutating func exportHistoryLeftByLastProcess(_ store: StoreID, sim: inout Simulation<ModelEvent>) {
    if clients.stores[store.index].savedCount > 0 { requestExport(store, trigger: .launch, sim: &sim) }
  }

  /// The app leaves the foreground: onBackground saves happen and an export is asked for; the
  /// app runs on for its grace period (`graceSeconds`, or the app's own), then is suspended.
  mutating func sendToBackground(_ device: DeviceID, graceSeconds: Double? = nil, sim: inout Simulation<ModelEvent>) {
    guard devices[device.index].app == .foreground else { return }
    setAppState(device, .background, at: sim.now)
    for store in storeIDs(of: device) where isSyncing(store) {
      if deviceTraits[traitsIndex(of: device)].app.savePolicy == .onBackground { save(store, sim: &sim) }
      clientResigned(store, sim: &sim)
      if spec.polling.appUseClock { pausePoll(store, sim: &sim) }
    }
    startGracePeriod(
      device, graceSeconds: graceSeconds ?? deviceTraits[traitsIndex(of: device)].app.backgroundGrace.seconds, sim: &sim
    )
    signal(device, sim: &sim)
  }

  mutating func terminate(_ device: DeviceID, forceQuit: Bool, sim: inout Simulation<ModelEvent>) {
    sendToBackground(device, sim: &sim)
    setAppState(device, .notRunning, at: sim.now)
    devices[device.index].launchedForPush = false
    for store in storeIDs(of: device) {
      sim.cancel(clients.stores[store.index].pollTimer)
      cancelPendingActivities(store, reason: .appTerminated, sim: &sim)
    }
    if forceQuit {
      devices[device.index].forceQuit = true
      if devices[device.index].mailbox.heldZone.exists {
        devices[device.index].mailbox.heldZone = .none
        sink.observePush(device: device, event: .discarded, at: sim.now)
      }
    }
    signal(device, sim: &sim)
  }

  // MARK: - Timeline

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
      releaseDeferredPush(device, sim: &sim)
      signal(device, sim: &sim)
    case .lowPower(let on):
      devices[device.index].lowPowerMode = on
      releaseDeferredPush(device, sim: &sim)
      signal(device, sim: &sim)
    case .battery(let percent):
      devices[device.index].batteryPercent = percent
      releaseDeferredPush(device, sim: &sim)
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
      for index in clients.stores.indices
      where clients.stores[index].quotaStalled && clients.stores[index].zone.exists
        && server.zones[clients.stores[index].zone.index].ownerAccount == Int32(account)
      {
        clients.stores[index].quotaStalled = false
        requestExport(StoreID(index), trigger: .exportAgain, sim: &sim)
        // The time since the quota stalled the store's exports was the quota's wait.
        let pending = clients.stores[index].pendingExport
        if pending.exists && clients.stores[index].quotaStalledSince < sim.now {
          sink.observe(
            .activityBlocked(
              activity: logID(pending), policy: position(of: .quota), from: clients.stores[index].quotaStalledSince, to: sim.now
            ))
        }
      }
    case .throttle(let on):
      server.rates.throttleForced = on
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

  // MARK: - Usage sessions

  mutating func scheduleNextSession(_ device: DeviceID, _ usage: UsageModel, sim: inout Simulation<ModelEvent>) {
    if let period = usage.period {
      agenda.periodicSessions[device.index] += 1
      let k = agenda.periodicSessions[device.index]
      guard let at = period.arrival(k, end: spec.duration, stream: &devices[device.index].streams.usage) else {
        return
      }
      sim.schedule(.sessionStart(device), at: max(at, sim.now))
      return
    }
    guard let weights = usage.byHour, let start = spec.clockStart, let peak = weights.max(), peak > 0 else {
      let gap = devices[device.index].streams.usage.exponential(mean: 86_400 / usage.sessionsPerDay)
      sim.schedule(.sessionStart(device), after: SimDuration(seconds: gap))
      return
    }
    // Hourly rates by thinning: candidates at the peak hour's rate, each kept with its hour's
    // share of the peak; the mean of the weights keeps `sessionsPerDay` a day.
    let mean = weights.reduce(0, +) / 24
    let peakRate = usage.sessionsPerDay * peak / mean
    var at = sim.now
    for _ in 0..<100_000 {
      at = at + SimDuration(seconds: devices[device.index].streams.usage.exponential(mean: 86_400 / peakRate))
      let hour = Int(((at.nanoseconds + start.nanoseconds) / 3_600_000_000_000) % 24)
      if devices[device.index].streams.usage.nextUnit() < weights[hour] / peak { break }
    }
    sim.schedule(.sessionStart(device), at: at)
  }

  mutating func sessionStart(_ device: DeviceID, sim: inout Simulation<ModelEvent>) {
    guard let usage = spec.devices[device.index].usage else { return }
    bringToForeground(device, sim: &sim)
    let length = usage.sessionLength.sampleDuration(using: &devices[device.index].streams.usage)
    sim.schedule(.sessionEnd(device), after: length)
  }

  mutating func sessionEnd(_ device: DeviceID, sim: inout Simulation<ModelEvent>) {
    guard let usage = spec.devices[device.index].usage else { return }
    sendToBackground(device, graceSeconds: usage.suspendAfterSeconds, sim: &sim)
    scheduleNextSession(device, usage, sim: &sim)
  }
}
