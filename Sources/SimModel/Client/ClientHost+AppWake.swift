import SimKernel

/// The app's process woken for its client's work: by a push (for the push's runtime), by an edit
/// the app makes itself (for its grace period), or by the person. What the client had parked
/// while the app was suspended goes on (each wait reported as `suspended`), an export a save asked
/// for before the setup ended is asked for, and waiting activities are decided again; a process
/// launched afresh exports the history the last one left. [A] TN3164
extension ClientHost {
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

  /// Something woke the process (a launch, an activation, a push): what it had parked goes on,
  /// each wait reported as `suspended`, and waiting activities are decided again.
  mutating func wake(_ device: DeviceID, sim: inout Simulation<ModelEvent>) {
    if devices[device.index].parkedCount > 0 {
      let requests = takeParked(device)
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
    report { $0.observe(.activityBlocked(activity: logID(activity), policy: position(of: .suspended), from: since, to: now)) }
  }

  /// A new process exports the saved history the last one left, whatever launched it (the person
  /// or a push). [A] TN3164
  mutating func exportHistoryLeftByLastProcess(_ store: StoreID, sim: inout Simulation<ModelEvent>) {
    if clients.stores[store.index].savedCount > 0 { requestExport(store, trigger: .launch, sim: &sim) }
  }
}
