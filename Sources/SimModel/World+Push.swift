import SimKernel

/// Silent pushes through APNs to the other devices of a zone (spec §7).
extension World {
  /// After a commit: one push to every other device with access to the zone.
  mutating func fanOutPush(from store: StoreID, sim: inout Simulation<ModelEvent>) {
    let zone = stores[store.index].zone.index
    guard server.zones[zone].scope != .public else { return }
    var lastDevice: DeviceID?
    let start = Int(server.zones[zone].storeStart)
    // By index: a slice of the list would retain and release it.
    for index in start..<start + Int(server.zones[zone].storeCount) {
      let other = server.zoneStores[index]
      guard owner(of: other) != owner(of: store) && owner(of: other) != lastDevice else { continue }
      lastDevice = owner(of: other)
      sendPush(to: owner(of: other), zone: ZoneID(zone), sim: &sim)
    }
  }

  mutating func sendPush(to device: DeviceID, zone: ZoneID, sim: inout Simulation<ModelEvent>) {
    let window = spec.push.coalescingWindow
    if window > .zero && sim.now - devices[device.index].lastPushSentAt < window {
      sink.observe(.push(device: device, event: .coalesced, at: sim.now))
      return
    }
    devices[device.index].lastPushSentAt = sim.now
    sink.observe(.push(device: device, event: .sent, at: sim.now))
    if spec.push.dropProbability > 0 && devices[device.index].streams.push.bernoulli(spec.push.dropProbability) {
      sink.observe(.push(device: device, event: .dropped, at: sim.now))
      return
    }
    let latency =
      spec.push.fanoutLatency.sampleDuration(using: &devices[device.index].streams.push)
      + spec.push.deliveryLatency
    sim.schedule(.pushArrives(device, zone), after: latency)
  }

  mutating func pushArrives(_ device: DeviceID, zone: ZoneID, sim: inout Simulation<ModelEvent>) {
    guard devices[device.index].online else {
      // APNs stores one notification per app for an offline device: the newest.
      if devices[device.index].storedPushZone.exists {
        sink.observe(.push(device: device, event: .discarded, at: sim.now))
      }
      devices[device.index].storedPushZone = zone
      devices[device.index].storedPushAt = sim.now
      sink.observe(.push(device: device, event: .stored, at: sim.now))
      return
    }
    deliverPush(device, zone: zone, sim: &sim)
  }

  /// Whether one more background push may wake the app: the device-wide budgets, per sliding
  /// hour and per day of the run, shared with the other apps' pushes (which arrive evenly at
  /// `otherAppsBackgroundPushesPerHour` and are admitted, or not, by the same budgets at their own
  /// times); none with a debugger attached.
  mutating func withinPushBudget(_ device: DeviceID, at now: SimTime) -> Bool {
    let conditions = spec.devices[device.index].conditions
    if conditions.debuggerAttached { return true }
    if conditions.otherAppsBackgroundPushesPerHour > 0 {
      let period = SimDuration(seconds: 3600 / conditions.otherAppsBackgroundPushesPerHour)
      var next = devices[device.index].otherAppsNextPushAt ?? SimTime.zero + period
      while next <= now {
        if fitsPushBudget(device, at: next) { push.wakes[device.index].append(next) }
        next = next + period
      }
      devices[device.index].otherAppsNextPushAt = next
    }
    return fitsPushBudget(device, at: now)
  }

  /// Whether a wake at `time` fits the hourly and daily budgets, given the wakes before it.
  mutating func fitsPushBudget(_ device: DeviceID, at time: SimTime) -> Bool {
    let day = Int64(86_400_000_000_000)
    let dayStart = SimTime(nanoseconds: time.nanoseconds / day * day)
    let hourAgo = time.advanced(by: .seconds(-3600))
    // Wakes older than both windows no longer count.
    let daily = spec.push.backgroundBudgetPerDay
    let horizon = daily == nil ? hourAgo : min(hourAgo, SimTime(nanoseconds: dayStart.nanoseconds - 1))
    push.wakes[device.index].removeAll { $0 <= horizon }
    if push.wakes[device.index].lazy.filter({ $0 > hourAgo }).count >= spec.push.backgroundBudgetPerHour {
      return false
    }
    if let daily, push.wakes[device.index].lazy.filter({ $0 >= dayStart }).count >= daily { return false }
    return true
  }

  /// The device received a push: wake the app within its budget, or hold it.
  mutating func deliverPush(_ device: DeviceID, zone: ZoneID, sim: inout Simulation<ModelEvent>) {
    guard devices[device.index].traits.app.backgroundPush else {
      sink.observe(.push(device: device, event: .dropped, at: sim.now))
      return
    }
    if devices[device.index].app == .foreground {
      sink.observe(.push(device: device, event: .delivered, at: sim.now))
      importForPush(device, zone: zone, sim: &sim)
      return
    }
    if devices[device.index].forceQuit
      || sim.now - devices[device.index].lastOpenedAt > spec.push.deliveryRequiresLaunchWithin
    {
      sink.observe(.push(device: device, event: .discarded, at: sim.now))
      return
    }
    if isPowerRestricted(device) {
      // APNs defers priority-5 pushes while the device saves power; the newest is kept. [A]
      if devices[device.index].deferredPushZone.exists {
        sink.observe(.push(device: device, event: .discarded, at: sim.now))
      }
      devices[device.index].deferredPushZone = zone
      sink.observe(.push(device: device, event: .deferred, at: sim.now))
      return
    }
    guard withinPushBudget(device, at: sim.now) else {
      if devices[device.index].heldPushZone.exists {
        sink.observe(.push(device: device, event: .discarded, at: sim.now))
      }
      devices[device.index].heldPushZone = zone
      sink.observe(.push(device: device, event: .held, at: sim.now))
      return
    }
    push.wakes[device.index].append(sim.now)
    sink.observe(.push(device: device, event: .delivered, at: sim.now))
    if devices[device.index].app != .foreground {
      // Launched (or resumed) in the background for the push, for its runtime. [A]
      let launched = devices[device.index].app == .notRunning
      if devices[device.index].app != .background {
        devices[device.index].launchedForPush = true
        setAppState(device, .background, at: sim.now)
      }
      runForPush(device, sim: &sim)
      if launched {
        // As a launch by the person does (the swarm found an edit made before the app was
        // terminated waiting for the next activation).
        for store in storeIDs(of: device) where isSyncing(store) { exportHistoryLeftByLastProcess(store, sim: &sim) }
      }
    }
    importForPush(device, zone: zone, sim: &sim)
  }

  mutating func importForPush(_ device: DeviceID, zone: ZoneID, sim: inout Simulation<ModelEvent>) {
    for store in storeIDs(of: device) where stores[store.index].zone == zone {
      requestImport(store, trigger: .push, sim: &sim)
    }
  }

  /// The user brought the app forward: a held push is delivered at once. [A]
  mutating func releaseHeldPush(_ device: DeviceID, sim: inout Simulation<ModelEvent>) {
    let zone = devices[device.index].heldPushZone
    guard zone.exists else { return }
    devices[device.index].heldPushZone = .none
    sink.observe(.push(device: device, event: .delivered, at: sim.now))
    importForPush(device, zone: zone, sim: &sim)
  }

  /// Back online: APNs delivers the one stored push if it has not expired.
  mutating func releaseStoredPush(_ device: DeviceID, sim: inout Simulation<ModelEvent>) {
    let zone = devices[device.index].storedPushZone
    guard zone.exists else { return }
    devices[device.index].storedPushZone = .none
    let age = sim.now - devices[device.index].storedPushAt
    if age > spec.push.offlineStorage {
      sink.observe(.push(device: device, event: .discarded, at: sim.now))
      return
    }
    let latency = spec.push.deliveryLatency
    sim.schedule(.pushArrives(device, zone), after: latency)
  }
}

extension World {
  /// Low Power Mode on an unplugged device: APNs defers low-priority pushes. [A] APNs docs
  @inline(__always)
  func isPowerRestricted(_ device: DeviceID) -> Bool {
    devices[device.index].lowPowerMode && !devices[device.index].pluggedIn
  }

  /// The restriction lifted: APNs delivers the deferred push.
  mutating func releaseDeferredPush(_ device: DeviceID, sim: inout Simulation<ModelEvent>) {
    let zone = devices[device.index].deferredPushZone
    guard zone.exists, !isPowerRestricted(device) else { return }
    devices[device.index].deferredPushZone = .none
    deliverPush(device, zone: zone, sim: &sim)
  }
}
