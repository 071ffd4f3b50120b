import SimKernel

/// The system scheduler, dasd: submission, decisions by policy, signals (spec §5).
extension SchedulerHost {
  /// The id under which the activity in `slot` appears in observations (slots are reused).
  @inline(__always)
  func logID(_ slot: ActivityID) -> ActivityID { ActivityID(Int(scheduler.activities[slot.index].logID)) }

  /// The app asked at once for what a pending activity will do: it is decided again now, as an
  /// immediate one (unless approved already).
  mutating func makeImmediate(_ activity: ActivityID, sim: inout Simulation<ModelEvent>) {
    let phase = scheduler.activities[activity.index].phase
    guard phase == .deciding || phase == .blocked, !scheduler.activities[activity.index].immediate else { return }
    scheduler.activities[activity.index].immediate = true
    sim.cancel(scheduler.activities[activity.index].recheck)
    scheduler.activities[activity.index].recheck = sim.scheduleCancellable(.decide(activity), at: sim.now)
  }

  /// The wait the server or the network imposed on `activity` (a retry's retry-after or back-off),
  /// if it is not over. Only the retry's own: a device learns a retry-after from its own answer.
  @inline(__always)
  mutating func serverWait(_ activity: ActivityID, at now: SimTime) -> (cause: WaitCause, until: SimTime)? {
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
    report { $0.observeActivityRequested(activity: logID(activity), kind: kind, store: store, trigger: trigger, at: sim.now) }
    if immediate {
      scheduler.activities[activity.index].recheck = sim.scheduleCancellable(.decide(activity), at: sim.now)
    } else {
      scheduleDecision(activity, sim: &sim)
    }
    return activity
  }

  mutating func scheduleDecision(_ activity: ActivityID, sim: inout Simulation<ModelEvent>) {
    let device = owner(of: scheduler.activities[activity.index].store).index
    // The stream is drawn from a local copy: with an inout into a column's element (class memory
    // that could hold anything) the compiler copies the distribution first, a retain and a release.
    var stream = devices[device].streams.scheduler
    let latency = scheduler.decisionLatency.sampleDuration(using: &stream)
    devices[device].streams.scheduler = stream
    let recheck = sim.scheduleCancellable(.decide(activity), at: sim.now + latency)
    scheduler.activities[activity.index].recheck = recheck
  }

  /// What the policies see of `activity`, with its run history left empty: the rate limiters read
  /// the history through `RunHistory`, and only a researcher's policy needs it as a slice.
  @inline(__always)
  func policyContext(_ activity: ActivityID, now: SimTime) -> PolicyContext {
    let state = scheduler.activities[activity.index]
    let owner = owner(of: state.store)
    let device = devices[owner.index]
    var context = PolicyContext(
      now: now, kind: state.kind, requestedAt: state.requestedAt, launchedForPush: state.launchedForPush,
      runningInGroup: Int(scheduler.storeActivities[state.store.index].runningInGroup),
      recentRuns: [],
      batteryPercent: device.batteryPercent, pluggedIn: device.pluggedIn, lowPowerMode: device.lowPowerMode,
      online: device.online,
      // The account's line is cold: read only when a policy of the set declares it reads it.
      devicesInAccount: scheduler.policies.reads.contains(.account)
        ? Int(server.accounts[Int(device.account)].deviceCount) : 0,
      appInForeground: device.app == .foreground)
    if scheduler.policies.reads.contains(.levels) { context.levels = levels[owner.index] }
    if scheduler.policies.reads.contains(.client) {
      context.client = scheduler.storeActivities[state.store.index].client
      // Read in place: reading it from the copy above copied the whole device state (its app's
      // distributions are reference-counted), on every decision.
      context.appSuspendsInBackground = deviceTraits[traitsIndex(of: owner)].app.suspendsInBackground
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
    } else if let group = scheduler.groupPolicyPosition, scheduler.storeActivities[store.index].runningInGroup > 0 {
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
    report { $0.observe(
      .activityBlocked(activity: logID(activity), policy: state.blockedPolicy, from: state.blockedSince, to: now)) }
    scheduler.activities[activity.index].blockedPolicy = -1
  }

  mutating func approve(_ activity: ActivityID, sim: inout Simulation<ModelEvent>) {
    closeBlockedInterval(activity, at: sim.now)
    let state = scheduler.activities[activity.index]
    let device = owner(of: state.store).index
    if state.phase == .blocked { stopWaiting(activity, device: device) }
    scheduler.activities[activity.index].phase = .approved
    scheduler.storeActivities[state.store.index].runningInGroup += 1
    // What the app starts itself is not one of dasd's runs, and starts at once.
    if !state.immediate { scheduler.recordRun(sim.now, device: device, runs: &devices[device].runs) }
    report { $0.observeActivityApproved(activity: logID(activity), at: sim.now) }
    sim.schedule(.start(activity), after: startDelay(state))
  }

  /// From approval to start: TN3163's for Core Data (1 s for an export); for CKSyncEngine, which
  /// has no published export delay, dasd's hop (the import's) for both; none for what the app
  /// starts itself.
  @inline(__always)
  func startDelay(_ state: ActivityState) -> SimDuration {
    if state.immediate { return .zero }
    if state.kind == .export && scheduler.storeActivities[state.store.index].client == .coreData {
      return scheduler.exportStartDelay
    }
    return scheduler.importStartDelay
  }

  /// Drops the store's activities that have not started: disabling, removing or resetting a store
  /// ends what it had asked for. A running export or import ends at its next answer
  /// (`isSyncing` is checked there).
  mutating func cancelPendingActivities(_ store: StoreID, reason: CancelReason, sim: inout Simulation<ModelEvent>) {
    for activity in [
      scheduler.storeActivities[store.index].pendingExport, scheduler.storeActivities[store.index].pendingImport,
    ] where activity.exists {
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
    if state.phase == .approved { scheduler.storeActivities[state.store.index].runningInGroup -= 1 }
    scheduler.activities[activity.index].phase = .finished
    scheduler.storeActivities[state.store.index].forgetPending(activity)
    report { $0.observe(.activityCancelled(activity: logID(activity), reason: reason, at: sim.now)) }
    forgetRetryWait(activity)
    // An approved activity's start is already scheduled: its slot stays taken, so that the start
    // finds it finished rather than another activity in its place.
    if state.phase != .approved { scheduler.freeActivitySlots.append(activity) }
    signal(DeviceID(device), sim: &sim)
  }

  /// dasd starts an approved activity (the `start` event); World hands it to its client, or asks
  /// for its retry (`World.handle`).
  mutating func startActivity(_ activity: ActivityID, sim: inout Simulation<ModelEvent>) -> ActivityStart {
    let state = scheduler.activities[activity.index]
    guard state.phase == .approved else { return .none }
    guard processRuns(owner(of: state.store)) else {
      // Approved, but the app was suspended before it could start: it starts when it wakes.
      park(
        ParkedRequest(
          completion: .start(activity), activity: activity, duration: .zero, notBefore: .zero, since: sim.now,
          isStart: true),
        device: owner(of: state.store))
      return .none
    }
    scheduler.activities[activity.index].phase = .running
    report { $0.observeActivityStarted(activity: logID(activity), at: sim.now) }
    scheduler.storeActivities[state.store.index].setPending(state.kind, .none)
    if state.kind != .setup, let wait = retryAfterInForce(owner(of: state.store), at: sim.now) {
      // The container's or the device's retry-after is in force: the first request would be
      // answered with it, so the activity ends at once rather than hold its group while it waits.
      finishActivity(activity, succeeded: false, records: 0, sim: &sim)
      return .retry(notBefore: wait.until, cause: wait.cause)
    }
    return .run
  }

  /// Ends `activity`, which moved `records` records (its client counts them).
  mutating func finishActivity(
    _ activity: ActivityID, succeeded: Bool, records: Int32, sim: inout Simulation<ModelEvent>
  ) {
    let state = scheduler.activities[activity.index]
    scheduler.activities[activity.index].phase = .finished
    scheduler.storeActivities[state.store.index].runningInGroup -= 1
    scheduler.storeActivities[state.store.index].forgetRunning(activity)
    report { $0.observeActivityFinished(activity: logID(activity), at: sim.now, records: records, succeeded: succeeded) }
    forgetRetryWait(activity)
    scheduler.freeActivitySlots.append(activity)
    signal(owner(of: state.store), sim: &sim)
    if state.kind == .export && devices[owner(of: state.store).index].app == .background {
      // The export's background task ends with it.
      suspendIfIdle(owner(of: state.store), exportRunning: exportInProgress(owner(of: state.store)), sim: &sim)
    }
  }

  /// A condition changed on the device: every waiting activity is decided again.
  mutating func signal(_ device: DeviceID, sim: inout Simulation<ModelEvent>) {
    // The count sits in the device's state, which is in cache here; the list's header is not.
    guard devices[device.index].waitingCount > 0 else { return }
    let latency = scheduler.reevaluationLatency
    for activity in scheduler.waiting[device.index] {
      sim.cancel(scheduler.activities[activity.index].recheck)
      scheduler.activities[activity.index].recheck = sim.scheduleCancellable(.decide(activity), at: sim.now + latency)
    }
  }

  /// Whether an export of the device is running (Core Data's background task covers the export's
  /// work, not its wait for dasd).
  func exportInProgress(_ device: DeviceID) -> Bool {
    storeIDs(of: device).contains { scheduler.storeActivities[$0.index].runningExport.exists }
  }
}
