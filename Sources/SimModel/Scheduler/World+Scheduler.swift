import SimKernel

/// The system scheduler, dasd: submission, decisions by policy, signals (spec §5).
extension World {
  /// The id under which the activity in `slot` appears in observations (slots are reused).
  @inline(__always)
  func logID(_ slot: ActivityID) -> ActivityID { ActivityID(Int(scheduler.activities[slot.index].logID)) }

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
    if clients.stores[store.index].pendingExport.exists && (spec.exportRequestCoalescing || immediate) {
      if immediate { makeImmediate(clients.stores[store.index].pendingExport, sim: &sim) }
      return
    }
    // `quotaExceeded` stalls the store's exports until the quota is freed (spec §6): a save
    // meanwhile joins the stall rather than sending an export that must fail. (Each such export
    // planned the whole growing backlog again: a 40-day zero quota took 2.1 s for 77 k events.)
    if clients.stores[store.index].quotaStalled { return }
    let activity = submit(.export, store: store, trigger: trigger, immediate: immediate, sim: &sim)
    clients.stores[store.index].pendingExport = activity
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
    if clients.stores[store.index].pendingImport.exists {
      if immediate { makeImmediate(clients.stores[store.index].pendingImport, sim: &sim) }
      return
    }
    let activity = submit(.import, store: store, trigger: trigger, immediate: immediate, sim: &sim)
    clients.stores[store.index].pendingImport = activity
  }

  /// The app asked at once for what a pending activity will do: it is decided again now, as an
  /// immediate one (unless approved already).
  mutating func makeImmediate(_ activity: ActivityID, sim: inout Simulation<ModelEvent>) {
    let phase = scheduler.activities[activity.index].phase
    guard phase == .deciding || phase == .blocked, !scheduler.activities[activity.index].immediate else { return }
    scheduler.activities[activity.index].immediate = true
    sim.cancel(scheduler.activities[activity.index].recheck)
    scheduler.activities[activity.index].recheck = sim.scheduleCancellable(.decide(activity), at: sim.now)
  }

  /// The container's setup on the store's first use (the `setup` event: its zone and database
  /// subscription), after which the first import is asked for. [C] eczema-helper #713
  mutating func beginSetup(_ store: StoreID, sim: inout Simulation<ModelEvent>) {
    // The container sets up in the app's process: a launch or a push asks again.
    guard clients.stores[store.index].setup == .notBegun, processRuns(owner(of: store)) else { return }
    clients.stores[store.index].setup = .running
    sim.schedule(.setupDone(store), after: spec.server.setupTime)
  }

  mutating func setupDone(_ store: StoreID, sim: inout Simulation<ModelEvent>) {
    // The setup may fail as the CloudKit daemon answers serviceUnavailable: tried again after the
    // answer's retry-after (drawn only when failures are on, so other runs keep their streams).
    let device = owner(of: store).index
    if spec.server.setupFailureProbability > 0,
      devices[device].streams.network.bernoulli(spec.server.setupFailureProbability)
    {
      let wait = spec.server.setupRetryAfter.sampleDuration(using: &devices[device].streams.network)
      sink.observe(.cloudError(store: store, error: .serviceUnavailable, retryAfter: wait, at: sim.now))
      sim.schedule(.setupDone(store), after: wait + spec.server.setupTime)
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
    let store = state.store
    if state.kind == .export {
      requestExport(store, trigger: .retry, sim: &sim)
    } else {
      requestImport(store, trigger: .retry, sim: &sim)
    }
    let retry = state.kind == .export ? clients.stores[store.index].pendingExport : clients.stores[store.index].pendingImport
    guard retry.exists else { return }
    scheduler.setRetryWait(retry, notBefore: notBefore, cause: cause)
    scheduler.activities[retry.index].attempt = max(scheduler.activities[retry.index].attempt, state.attempt)
  }

  /// The wait the server or the network imposed on `activity` (a retry's retry-after or back-off),
  /// if it is not over. Only the retry's own: a device learns a retry-after from its own answer.
  @inline(__always)
  func serverWait(_ activity: ActivityID, at now: SimTime) -> (cause: WaitCause, until: SimTime)? {
    scheduler.retryWait(activity, at: now)
  }

  /// The container's or the device's retry-after, if one is in force for `device` now.
  @inline(__always)
  func retryAfterInForce(_ device: DeviceID, at now: SimTime) -> (cause: WaitCause, until: SimTime)? {
    // Read only when a throttle can answer at all: most worlds have none.
    guard server.retryAftersPossible else { return nil }
    let container = max(server.rates.containerBlockedUntil[device.index], server.rates.containerWideBlockedUntil)
    if container > now { return (.serverThrottle, container) }
    if !server.rates.deviceBlockedUntil.isEmpty && server.rates.deviceBlockedUntil[device.index] > now {
      return (.deviceThrottle, server.rates.deviceBlockedUntil[device.index])
    }
    return nil
  }

  /// The position a wait cause takes in results: after the scheduler's policies.
  @inline(__always)
  func position(of cause: WaitCause) -> Int32 { Int32(scheduler.policies.order.count + Int(cause.rawValue)) }

  mutating func submit(
    _ kind: ActivityKind, store: StoreID, trigger: ActivityTrigger, immediate: Bool = false,
    sim: inout Simulation<ModelEvent>
  ) -> ActivityID {
    let device = owner(of: store).index
    let launched = devices[device].launchedForPush && devices[device].app != .foreground
    var state = ActivityState(
      kind: kind, store: store, trigger: trigger, requestedAt: sim.now, launchedForPush: launched)
    state.immediate = immediate
    let activity = scheduler.admit(state)
    sink.observeActivityRequested(activity: logID(activity), kind: kind, store: store, trigger: trigger, at: sim.now)
    if immediate {
      scheduler.activities[activity.index].recheck = sim.scheduleCancellable(.decide(activity), at: sim.now)
    } else {
      scheduleDecision(activity, sim: &sim)
    }
    return activity
  }

  mutating func scheduleDecision(_ activity: ActivityID, sim: inout Simulation<ModelEvent>) {
    let device = owner(of: scheduler.activities[activity.index].store).index
    let latency = spec.scheduler.decisionLatency.sampleDuration(using: &devices[device].streams.scheduler)
    scheduler.activities[activity.index].recheck = sim.scheduleCancellable(.decide(activity), at: sim.now + latency)
  }

  /// What the policies see of `activity`, with its run history left empty: the rate limiters read
  /// the history through `RunHistory`, and only a researcher's policy needs it as a slice.
  @inline(__always)
  func policyContext(_ activity: ActivityID, now: SimTime) -> PolicyContext {
    let state = scheduler.activities[activity.index]
    let storeState = clients.stores[state.store.index]
    let device = devices[storeState.device.index]
    var context = PolicyContext(
      now: now, kind: state.kind, requestedAt: state.requestedAt, launchedForPush: state.launchedForPush,
      runningInGroup: Int(storeState.runningInGroup),
      recentRuns: [],
      batteryPercent: device.batteryPercent, pluggedIn: device.pluggedIn, lowPowerMode: device.lowPowerMode,
      online: device.online,
      // The account's line is cold: read only when a policy of the set declares it reads it.
      devicesInAccount: scheduler.policies.reads.contains(.account)
        ? Int(server.accounts[Int(device.account)].deviceCount) : 0,
      appInForeground: device.app == .foreground)
    if scheduler.policies.reads.contains(.levels) { context.levels = levels[storeState.device.index] }
    if scheduler.policies.reads.contains(.client) {
      context.client = storeState.client
      // Read in place: reading it from the copy above copied the whole device state (its app's
      // distributions are reference-counted), on every decision.
      context.appSuspendsInBackground = deviceTraits[traitsIndex(of: storeState.device)].app.suspendsInBackground
    }
    return context
  }

  /// Evaluates the policies in order; the first refusal blocks the activity.
  mutating func decide(_ activity: ActivityID, sim: inout Simulation<ModelEvent>) {
    guard
      scheduler.activities[activity.index].phase == .deciding || scheduler.activities[activity.index].phase == .blocked
    else {
      return
    }
    if scheduler.activities[activity.index].immediate {
      decideImmediate(activity, sim: &sim)
    } else if let wait = serverWait(activity, at: sim.now) {
      block(activity, policy: position(of: wait.cause), until: wait.until, sim: &sim)
    } else if let refusal = firstRefusal(activity, now: sim.now) {
      block(activity, policy: refusal.policy, until: refusal.until, sim: &sim)
    } else if !processRuns(owner(of: scheduler.activities[activity.index].store)) {
      // Every policy would let it run, but the app is suspended: it waits for a wake, which
      // decides it again (no timed re-evaluation).
      block(activity, policy: position(of: .suspended), until: nil, recheck: false, sim: &sim)
    } else {
      approve(activity, sim: &sim)
    }
  }

  /// An activity the app started itself (CKSyncEngine's `sendChanges`, `fetchChanges`, a push's
  /// fetch in a running app): no policy is asked, but the engine runs one send or fetch of the
  /// store at a time, so it waits for a running one under the activity group's name (when the set
  /// has that policy). [A] CKSyncEngine; [RE] `allowFetchAndModifyConcurrently` off
  mutating func decideImmediate(_ activity: ActivityID, sim: inout Simulation<ModelEvent>) {
    let store = scheduler.activities[activity.index].store
    if let wait = serverWait(activity, at: sim.now) {
      // A retry-after or back-off the server stated holds what the app starts, too.
      block(activity, policy: position(of: wait.cause), until: wait.until, sim: &sim)
    } else if let group = scheduler.groupPolicyPosition, clients.stores[store.index].runningInGroup > 0 {
      block(activity, policy: group, until: nil, recheck: false, sim: &sim)
    } else if !processRuns(owner(of: store)) {
      block(activity, policy: position(of: .suspended), until: nil, recheck: false, sim: &sim)
    } else {
      approve(activity, sim: &sim)
    }
  }

  /// The first policy that refuses, in order. The rate limiters read the run history through a
  /// view; a researcher's policy gets a copy of it in the context.
  ///
  /// While the run history shows that no rate-limit window can be full, the rate limiters would
  /// proceed whatever it holds, so they are not asked and it is not read; the verdicts are the
  /// same (a test checks them against asking every time).
  @inline(__always)
  mutating func firstRefusal(_ activity: ActivityID, now: SimTime) -> (policy: Int32, until: SimTime?)? {
    let device = owner(of: scheduler.activities[activity.index].store).index
    let context = policyContext(activity, now: now)
    return scheduler.firstRefusal(context, device: device, runs: &devices[device].runs)
  }

  mutating func block(
    _ activity: ActivityID, policy: Int32, until: SimTime?, recheck: Bool = true, sim: inout Simulation<ModelEvent>
  ) {
    let state = scheduler.activities[activity.index]
    if state.phase == .blocked && state.blockedPolicy != policy {
      closeBlockedInterval(activity, at: sim.now)
    }
    if state.phase != .blocked || state.blockedPolicy != policy {
      scheduler.activities[activity.index].blockedPolicy = policy
      scheduler.activities[activity.index].blockedSince = sim.now
    }
    if state.phase != .blocked {
      scheduler.waiting[owner(of: state.store).index].append(activity)
      devices[owner(of: state.store).index].waitingCount += 1
    }
    scheduler.activities[activity.index].phase = .blocked
    guard recheck else {
      scheduler.activities[activity.index].recheck = .none
      return
    }
    let validity = sim.now + scheduler.policyValidity
    let recheckAt = min(until ?? validity, validity)
    scheduler.activities[activity.index].recheck = sim.scheduleCancellable(
      .decide(activity), at: max(recheckAt, sim.now))
  }

  mutating func closeBlockedInterval(_ activity: ActivityID, at now: SimTime) {
    let state = scheduler.activities[activity.index]
    guard state.phase == .blocked, state.blockedPolicy >= 0 else { return }
    sink.observe(
      .activityBlocked(activity: logID(activity), policy: state.blockedPolicy, from: state.blockedSince, to: now))
    scheduler.activities[activity.index].blockedPolicy = -1
  }

  mutating func approve(_ activity: ActivityID, sim: inout Simulation<ModelEvent>) {
    closeBlockedInterval(activity, at: sim.now)
    let state = scheduler.activities[activity.index]
    let device = owner(of: state.store).index
    if state.phase == .blocked { stopWaiting(activity, device: device) }
    scheduler.activities[activity.index].phase = .approved
    clients.stores[state.store.index].runningInGroup += 1
    // What the app starts itself is not one of dasd's runs, and starts at once.
    if !state.immediate { scheduler.recordRun(sim.now, device: device, runs: &devices[device].runs) }
    sink.observeActivityApproved(activity: logID(activity), at: sim.now)
    sim.schedule(.start(activity), after: startDelay(state))
  }

  /// From approval to start: TN3163's for Core Data (1 s for an export); for CKSyncEngine, which
  /// has no published export delay, dasd's hop (the import's) for both; none for what the app
  /// starts itself.
  @inline(__always)
  func startDelay(_ state: ActivityState) -> SimDuration {
    if state.immediate { return .zero }
    if state.kind == .export && clients.stores[state.store.index].client == .coreData { return scheduler.exportStartDelay }
    return scheduler.importStartDelay
  }

  /// Drops the store's activities that have not started: disabling, removing or resetting a store
  /// ends what it had asked for. A running export or import ends at its next answer
  /// (`isSyncing` is checked there).
  mutating func cancelPendingActivities(_ store: StoreID, reason: CancelReason, sim: inout Simulation<ModelEvent>) {
    for activity in [clients.stores[store.index].pendingExport, clients.stores[store.index].pendingImport] where activity.exists {
      cancel(activity, reason: reason, sim: &sim)
    }
  }

  /// Takes a blocked activity off its device's waiting list. Only a blocked activity waits (it
  /// leaves `.blocked` only through here), so callers check the phase and others skip the search.
  mutating func stopWaiting(_ activity: ActivityID, device: Int) {
    guard let index = scheduler.waiting[device].firstIndex(of: activity) else { return }
    scheduler.waiting[device].remove(at: index)
    devices[device].waitingCount -= 1
  }

  /// Drops the retry wait of an activity whose slot is freed, so that the slot's next activity
  /// does not inherit it.
  @inline(__always)
  mutating func forgetRetryWait(_ activity: ActivityID) { scheduler.forgetRetryWait(activity) }

  mutating func cancel(_ activity: ActivityID, reason: CancelReason, sim: inout Simulation<ModelEvent>) {
    let state = scheduler.activities[activity.index]
    guard [.deciding, .blocked, .approved].contains(state.phase) else { return }
    let device = owner(of: state.store).index
    closeBlockedInterval(activity, at: sim.now)
    if state.phase == .blocked { stopWaiting(activity, device: device) }
    sim.cancel(state.recheck)
    if state.phase == .approved { clients.stores[state.store.index].runningInGroup -= 1 }
    scheduler.activities[activity.index].phase = .finished
    if clients.stores[state.store.index].pendingExport == activity { clients.stores[state.store.index].pendingExport = .none }
    if clients.stores[state.store.index].pendingImport == activity { clients.stores[state.store.index].pendingImport = .none }
    sink.observe(.activityCancelled(activity: logID(activity), reason: reason, at: sim.now))
    forgetRetryWait(activity)
    // An approved activity's start is already scheduled: its slot stays taken, so that the start
    // finds it finished rather than another activity in its place.
    if state.phase != .approved { scheduler.freeActivitySlots.append(activity) }
    signal(DeviceID(device), sim: &sim)
  }

  mutating func startActivity(_ activity: ActivityID, sim: inout Simulation<ModelEvent>) {
    let state = scheduler.activities[activity.index]
    guard state.phase == .approved else { return }
    guard processRuns(owner(of: state.store)) else {
      // Approved, but the app was suspended before it could start: it starts when it wakes.
      park(
        ParkedRequest(
          completion: .start(activity), activity: activity, duration: .zero, notBefore: .zero, since: sim.now,
          isStart: true),
        device: owner(of: state.store))
      return
    }
    scheduler.activities[activity.index].phase = .running
    sink.observeActivityStarted(activity: logID(activity), at: sim.now)
    switch state.kind {
    case .export: clients.stores[state.store.index].pendingExport = ActivityID.none
    case .import: clients.stores[state.store.index].pendingImport = ActivityID.none
    case .setup: break
    }
    if state.kind != .setup, let wait = retryAfterInForce(owner(of: state.store), at: sim.now) {
      // The container's or the device's retry-after is in force: the first request would be
      // answered with it, so the activity ends at once rather than hold its group while it waits.
      finishActivity(activity, succeeded: false, sim: &sim)
      requestRetry(of: activity, notBefore: wait.until, cause: wait.cause, sim: &sim)
      return
    }
    clientActivityStarted(activity, sim: &sim)
  }

  mutating func finishActivity(_ activity: ActivityID, succeeded: Bool, sim: inout Simulation<ModelEvent>) {
    let state = scheduler.activities[activity.index]
    scheduler.activities[activity.index].phase = .finished
    clients.stores[state.store.index].runningInGroup -= 1
    if clients.stores[state.store.index].runningExport == activity { clients.stores[state.store.index].runningExport = ActivityID.none }
    if clients.stores[state.store.index].runningImport == activity { clients.stores[state.store.index].runningImport = ActivityID.none }
    sink.observeActivityFinished(activity: logID(activity), at: sim.now, records: state.records, succeeded: succeeded)
    forgetRetryWait(activity)
    scheduler.freeActivitySlots.append(activity)
    signal(owner(of: state.store), sim: &sim)
    if state.kind == .export && devices[owner(of: state.store).index].app == .background {
      // The export's background task ends with it.
      suspendIfIdle(owner(of: state.store), sim: &sim)
    }
  }

  /// A condition changed on the device: every waiting activity is decided again.
  mutating func signal(_ device: DeviceID, sim: inout Simulation<ModelEvent>) {
    // The count sits in the device's state, which is in cache here; the list's header is not.
    guard devices[device.index].waitingCount > 0 else { return }
    let latency = spec.scheduler.reevaluationLatency
    for activity in scheduler.waiting[device.index] {
      sim.cancel(scheduler.activities[activity.index].recheck)
      scheduler.activities[activity.index].recheck = sim.scheduleCancellable(.decide(activity), at: sim.now + latency)
    }
  }
}
