import SimKernel

/// Background execution (spec §3): an app that leaves the foreground keeps running for a short
/// grace period (longer for an export in progress, under its background task), then is
/// suspended. A suspended or not-running app makes no progress: requests already on the wire
/// complete, nothing new starts, and the next request waits, until a launch, an activation or a
/// push wakes the process. Those waits carry the cause `suspended`. World's own: the devices are
/// shared by every component, which reach the app's process through their host's ports.
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

  /// Suspends the app unless something keeps it running: its grace period or a push's runtime,
  /// or an export in progress (`exportRunning`, the scheduler's to say) within its background
  /// task's time.
  mutating func suspendIfIdle(_ device: DeviceID, exportRunning: Bool, sim: inout Simulation<ModelEvent>) {
    let state = devices[device.index]
    guard state.app == .background, deviceTraits[Int(state.traitsIndex)].app.suspendsInBackground,
      sim.now >= state.runsUntil
    else { return }
    if sim.now < state.exportTaskUntil && exportRunning { return }
    setAppState(device, .suspended, at: sim.now)
    devices[device.index].launchedForPush = false
  }

  /// Keeps a request (or an activity's start) until the process wakes.
  mutating func park(_ request: ParkedRequest, device: DeviceID) {
    parked[device.index].append(request)
    devices[device.index].parkedCount += 1
  }
}
