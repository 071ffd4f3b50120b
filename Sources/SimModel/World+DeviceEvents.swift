import SimKernel

/// A device's events, routed: the person brings the app forward, sends it back or quits it, a
/// usage session starts or ends, the battery ticks. Each changes the device's state (`Devices/`)
/// and tells the components it concerns: the clients (imports on activation, exports on leaving),
/// the scheduler (a signal to waiting activities), the push service (held and deferred pushes).
extension World {
  /// The user opens the app (launch from not running, or activation from the background).
  mutating func bringToForeground(_ device: DeviceID, sim: inout Simulation<ModelEvent>) {
    let previous = devices[device.index].app
    guard previous != .foreground else { return }
    devices[device.index].forceQuit = false
    devices[device.index].launchedForPush = false
    devices[device.index].lastOpenedAt = sim.now
    setAppState(device, .foreground, at: sim.now)
    wake(device, sim: &sim)
    if let zone = releaseHeldPush(device, sim: &sim) { clientPushReceived(device, zone: zone, sim: &sim) }
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
    for store in storeIDs(of: device) where isSyncing(store) {
      clientCameForward(store, launched: previous == .notRunning, sim: &sim)
    }
    signal(device, sim: &sim)
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
