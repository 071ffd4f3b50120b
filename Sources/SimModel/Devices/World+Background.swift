import SimKernel

/// Background execution (spec §3): an app that leaves the foreground keeps running for a short
/// grace period (longer for an export in progress, under its background task), then is
/// suspended. A suspended or not-running app makes no progress: requests already on the wire
/// complete, nothing new starts, and the next request waits, until a launch, an activation or a
/// push wakes the process. Those waits carry the cause `suspended`.
extension World {
  mutating func setAppState(_ device: DeviceID, _ state: AppState, at now: SimTime) {
    guard devices[device.index].app != state else { return }
    devices[device.index].app = state
    sink.observe(.appState(device: device, state: state, at: now))
  }

  /// Whether the app's process runs: in front, or in the background before its suspension.
  @inline(__always)
  func processRuns(_ device: DeviceID) -> Bool {
    let app = devices[device.index].app
    return app == .foreground || app == .background
  }

  /// The app left the foreground: it runs for `graceSeconds` (an export in progress for its
  /// background task's time), then is suspended, unless it does not suspend at all (a Mac app).
  mutating func startGracePeriod(_ device: DeviceID, graceSeconds: Double, sim: inout Simulation<ModelEvent>) {
    let app = deviceTraits[traitsIndex(of: device)].app
    guard app.suspendsInBackground else { return }
    devices[device.index].runsUntil = sim.now + SimDuration(seconds: graceSeconds)
    devices[device.index].exportTaskUntil = sim.now + app.exportBackgroundTask
    sim.schedule(.suspend(device), at: devices[device.index].runsUntil)
    if devices[device.index].exportTaskUntil > devices[device.index].runsUntil {
      sim.schedule(.suspend(device), at: devices[device.index].exportTaskUntil)
    }
  }

  /// A push launched or resumed the app in the background: it runs for the push's runtime.
  mutating func runForPush(_ device: DeviceID, sim: inout Simulation<ModelEvent>) {
    let app = deviceTraits[traitsIndex(of: device)].app
    let runtime = min(
      app.pushRuntime.sampleDuration(using: &devices[device.index].streams.background), app.pushRuntimeLimit)
    devices[device.index].runsUntil = max(devices[device.index].runsUntil, sim.now + runtime)
    sim.schedule(.suspend(device), at: devices[device.index].runsUntil)
    wake(device, sim: &sim)
  }

  /// The app must run to edit (a workload's `source` is the app): a suspended or not-running app
  /// is woken into the background for its grace period, with its export's background task, as a
  /// background task of the app's own would.
  mutating func runForEdit(_ device: DeviceID, sim: inout Simulation<ModelEvent>) {
    let launched = devices[device.index].app == .notRunning
    setAppState(device, .background, at: sim.now)
    startGracePeriod(device, graceSeconds: deviceTraits[traitsIndex(of: device)].app.backgroundGrace.seconds, sim: &sim)
    wake(device, sim: &sim)
    if launched {
      for store in storeIDs(of: device) where isSyncing(store) { exportHistoryLeftByLastProcess(store, sim: &sim) }
    }
  }

  /// Suspends the app unless something keeps it running: its grace period or a push's runtime,
  /// or an export in progress within its background task's time.
  mutating func suspendIfIdle(_ device: DeviceID, sim: inout Simulation<ModelEvent>) {
    let state = devices[device.index]
    guard state.app == .background, deviceTraits[Int(state.traitsIndex)].app.suspendsInBackground,
      sim.now >= state.runsUntil
    else { return }
    if sim.now < state.exportTaskUntil && exportInProgress(device) { return }
    setAppState(device, .suspended, at: sim.now)
    devices[device.index].launchedForPush = false
  }

  /// Whether an export of the device is running (Core Data's background task covers the export's
  /// work, not its wait for dasd).
  func exportInProgress(_ device: DeviceID) -> Bool {
    storeIDs(of: device).contains { scheduler.storeActivities[$0.index].runningExport.exists }
  }

  /// Keeps a request (or an activity's start) until the process wakes.
  mutating func park(_ request: ParkedRequest, device: DeviceID) {
    parked[device.index].append(request)
    devices[device.index].parkedCount += 1
  }

  /// Something woke the process (a launch, an activation, a push): what it had parked goes on,
  /// each wait reported as `suspended`, and waiting activities are decided again.
  mutating func wake(_ device: DeviceID, sim: inout Simulation<ModelEvent>) {
    if devices[device.index].parkedCount > 0 {
      let requests = parked[device.index]
      parked[device.index].removeAll(keepingCapacity: true)
      devices[device.index].parkedCount = 0
      for request in requests {
        if request.isStart {
          // A start parked, then cancelled, has nothing left to resume.
          guard scheduler.activities[request.activity.index].phase == .approved else { continue }
          reportSuspendedWait(request.activity, since: request.since, at: sim.now)
          sim.schedule(request.completion, at: sim.now)
        } else {
          reportSuspendedWait(request.activity, since: request.since, at: sim.now)
          sendRequest(
            request.completion, for: request.activity, from: device, taking: request.duration,
            notBefore: request.notBefore, sim: &sim)
        }
      }
    }
    if devices[device.index].exportAwaitsWake {
      devices[device.index].exportAwaitsWake = false
      for store in storeIDs(of: device)
      where clients.stores[store.index].setup == .done && clients.stores[store.index].exportAfterSetup
        && clients.stores[store.index].savedCount > 0
      {
        clients.stores[store.index].exportAfterSetup = false
        requestExport(store, trigger: .exportAgain, sim: &sim)
      }
    }
    signal(device, sim: &sim)
  }

  func reportSuspendedWait(_ activity: ActivityID, since: SimTime, at now: SimTime) {
    guard now > since else { return }
    sink.observe(.activityBlocked(activity: logID(activity), policy: position(of: .suspended), from: since, to: now))
  }

  /// A new process exports the saved history the last one left, whatever launched it (the person
  /// or a push). [A] TN3164
  mutating func exportHistoryLeftByLastProcess(_ store: StoreID, sim: inout Simulation<ModelEvent>) {
    if clients.stores[store.index].savedCount > 0 { requestExport(store, trigger: .launch, sim: &sim) }
  }
}
