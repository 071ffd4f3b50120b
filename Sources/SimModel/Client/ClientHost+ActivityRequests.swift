import SimKernel

/// What the sync client asks of the scheduler: an export or an import of a store (one pending of
/// each, the container's setup first), and the retry of an activity the server or the network
/// answered with a wait. The scheduler (dasd) decides when each runs.
extension ClientHost {
  /// Asks for an export; a request while one is pending is dropped (error 134417). An
  /// `immediate` one (CKSyncEngine's `sendChanges`) skips dasd's decision, and makes a pending one
  /// immediate.
  mutating func requestExport(
    _ store: StoreID, trigger: ActivityTrigger, immediate: Bool = false, sim: inout Simulation<ModelEvent>
  ) {
    guard isSyncing(store) else { return }
    guard clients.stores[store.index].setup == .done else {
      clients.stores[store.index].exportAfterSetup = true
      beginSetup(store, sim: &sim)
      return
    }
    if scheduler.storeActivities[store.index].pendingExport.exists
      && (clients.settings.exportRequestCoalescing || immediate)
    {
      if immediate { makeImmediate(scheduler.storeActivities[store.index].pendingExport, sim: &sim) }
      return
    }
    // `quotaExceeded` stalls the store's exports until the quota is freed (spec §6): a save
    // meanwhile joins the stall rather than sending an export that must fail. (Each such export
    // planned the whole growing backlog again: a 40-day zero quota took 2.1 s for 77 k events.)
    if clients.stores[store.index].quotaStalled { return }
    let activity = submit(.export, store: store, trigger: trigger, immediate: immediate, sim: &sim)
    clients.beginRun(activity)
    setPending(.export, of: store, to: activity)
    holdIfHeld(activity, store, at: sim.now)
  }

  /// Asks for an import; a request while one is pending joins it (and makes it `immediate`).
  mutating func requestImport(
    _ store: StoreID, trigger: ActivityTrigger, immediate: Bool = false, sim: inout Simulation<ModelEvent>
  ) {
    guard isSyncing(store) else { return }
    guard clients.stores[store.index].setup == .done else {
      beginSetup(store, sim: &sim)
      return
    }
    if scheduler.storeActivities[store.index].pendingImport.exists {
      if immediate { makeImmediate(scheduler.storeActivities[store.index].pendingImport, sim: &sim) }
      return
    }
    let activity = submit(.import, store: store, trigger: trigger, immediate: immediate, sim: &sim)
    clients.beginRun(activity)
    setPending(.import, of: store, to: activity)
    holdIfHeld(activity, store, at: sim.now)
  }

  /// The container's setup on the store's first use (the `setup` event: its zone and database
  /// subscription), after which the first import is asked for. [C] eczema-helper #713
  mutating func beginSetup(_ store: StoreID, sim: inout Simulation<ModelEvent>) {
    // The container sets up in the app's process: a launch or a push asks again.
    guard clients.stores[store.index].setup == .notBegun, processRuns(owner(of: store)) else { return }
    clients.stores[store.index].setup = .running
    sim.schedule(.setupDone(store), after: clients.settings.server.setupTime)
  }

  mutating func setupDone(_ store: StoreID, sim: inout Simulation<ModelEvent>) {
    // The setup may fail as the CloudKit daemon answers serviceUnavailable: tried again after the
    // answer's retry-after (drawn only when failures are on, so other runs keep their streams).
    let device = owner(of: store).index
    if clients.settings.server.setupFailureProbability > 0,
      devices[device].streams.network.bernoulli(clients.settings.server.setupFailureProbability)
    {
      let wait = clients.settings.server.setupRetryAfter.sampleDuration(using: &devices[device].streams.network)
      report { $0.observe(.cloudError(store: store, error: .serviceUnavailable, retryAfter: wait, at: sim.now)) }
      sim.schedule(.setupDone(store), after: wait + clients.settings.server.setupTime)
      return
    }
    clients.stores[store.index].setup = .done
    // Suspended or terminated meanwhile: an activation, a launch or a push asks for the import,
    // and the wake asks for the export a save asked for before the setup (a save just before
    // suspension was otherwise exported only when the app next left the foreground).
    guard processRuns(owner(of: store)) else {
      if clients.stores[store.index].exportAfterSetup && clients.stores[store.index].savedCount > 0 {
        devices[owner(of: store).index].exportAwaitsWake = true
      }
      return
    }
    requestImport(store, trigger: .initial, sim: &sim)
    if clients.stores[store.index].exportAfterSetup {
      clients.stores[store.index].exportAfterSetup = false
      requestExport(store, trigger: .exportAgain, sim: &sim)
    }
  }

  /// Asks again for the work of `ended`, which the server or the network answered with a wait:
  /// the new activity (or the pending one it joins) may not start before `notBefore`, and waits
  /// for `cause` until then; it carries the failed attempts on, for the back-off.
  mutating func requestRetry(
    of ended: ActivityID, notBefore: SimTime, cause: WaitCause, sim: inout Simulation<ModelEvent>
  ) {
    let state = scheduler.activities[ended.index]
    // Read before asking again: the new activity may take the ended one's slot.
    let attempt = clients.runs[ended.index].attempt
    let store = state.store
    if state.kind == .export {
      requestExport(store, trigger: .retry, sim: &sim)
    } else {
      requestImport(store, trigger: .retry, sim: &sim)
    }
    let retry =
      state.kind == .export
      ? scheduler.storeActivities[store.index].pendingExport : scheduler.storeActivities[store.index].pendingImport
    guard retry.exists else { return }
    setRetryWait(retry, notBefore: notBefore, cause: cause)
    clients.runs[retry.index].attempt = max(clients.runs[retry.index].attempt, attempt)
  }

  /// The quota of `account` changed: its stores whose exports the quota stalled ask to export
  /// again, the time since the stall booked to the quota's wait.
  mutating func quotaChanged(account: Int, sim: inout Simulation<ModelEvent>) {
    for index in clients.stores.indices
    where clients.stores[index].quotaStalled && clients.stores[index].zone.exists
      && server.zones[clients.stores[index].zone.index].ownerAccount == Int32(account)
    {
      clients.stores[index].quotaStalled = false
      requestExport(StoreID(index), trigger: .exportAgain, sim: &sim)
      // The time since the quota stalled the store's exports was the quota's wait.
      let pending = scheduler.storeActivities[index].pendingExport
      if pending.exists && clients.stores[index].quotaStalledSince < sim.now {
        report { $0.observe(
          .activityBlocked(
            activity: logID(pending), policy: position(of: .quota), from: clients.stores[index].quotaStalledSince,
            to: sim.now)) }
      }
    }
  }

  /// CloudKit refused the model (`code`): the store's setup fails and it never syncs.
  mutating func modelRefused(_ store: StoreID, code: Int32, at now: SimTime) {
    report { $0.observe(.setupFailed(store: store, code: code, at: now)) }
    clients.stores[store.index].disabled = true
  }
}
