import SimKernel

/// Silent pushes through APNs to the other devices of a zone (spec §7).
extension PushHost {
  /// After a commit to `zone` from `store`: one push to every other device with access to the zone.
  mutating func fanOutPush(from store: StoreID, zone: Int, sim: inout Simulation<ModelEvent>) {
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
    // Local copies: with inouts into a column's element the compiler copied the push service.
    var mailbox = devices[device.index].mailbox
    var stream = devices[device.index].streams.push
    let sending = push.send(&mailbox, now: sim.now, random: &stream)
    devices[device.index].mailbox = mailbox
    devices[device.index].streams.push = stream
    switch sending {
    case .coalesced:
      report { $0.observePush(device: device, event: .coalesced, at: sim.now) }
    case .dropped:
      report { $0.observePush(device: device, event: .sent, at: sim.now) }
      report { $0.observePush(device: device, event: .dropped, at: sim.now) }
    case .arrives(let latency):
      report { $0.observePush(device: device, event: .sent, at: sim.now) }
      sim.schedule(.pushArrives(device, zone), after: latency)
    }
  }

  /// A push reaches the device (the `pushArrives` event): stored while it is offline, else
  /// delivered or held (`deliverPush`). The push the app received, for World to hand to its
  /// client; nil otherwise.
  mutating func pushArrives(_ device: DeviceID, zone: ZoneID, sim: inout Simulation<ModelEvent>) -> ReceivedPush? {
    guard devices[device.index].online else {
      // APNs stores one notification per app for an offline device: the newest.
      if push.store(zone, in: &devices[device.index].mailbox, at: sim.now) {
        report { $0.observePush(device: device, event: .discarded, at: sim.now) }
      }
      report { $0.observePush(device: device, event: .stored, at: sim.now) }
      return nil
    }
    return deliverPush(device, zone: zone, sim: &sim)
  }

  /// The device received a push: wake the app within its budget, or hold it. The push, when the
  /// app received it (the caller runs the app for it and hands it to the client:
  /// `World.pushReceived`); nil when it was dropped, held or deferred.
  mutating func deliverPush(_ device: DeviceID, zone: ZoneID, sim: inout Simulation<ModelEvent>) -> ReceivedPush? {
    guard deviceTraits[traitsIndex(of: device)].app.backgroundPush else {
      report { $0.observePush(device: device, event: .dropped, at: sim.now) }
      return nil
    }
    if devices[device.index].app == .foreground {
      report { $0.observePush(device: device, event: .delivered, at: sim.now) }
      return ReceivedPush(zone: zone, wokeApp: false, launched: false)
    }
    if devices[device.index].forceQuit {
      report { $0.observePush(device: device, event: .discarded, at: sim.now) }
      return nil
    }
    if sim.now - devices[device.index].lastOpenedAt > push.parameters.deliveryRequiresLaunchWithin {
      // An app not launched for a while gets no background push: withheld, not lost. [C]
      report { $0.observePush(device: device, event: .withheld, at: sim.now) }
      return nil
    }
    if isPowerRestricted(device) {
      // APNs defers priority-5 pushes while the device saves power; the newest is kept. [A]
      devices[device.index].mailbox.deferredAt = sim.now
      if PushService.keepNewest(zone, in: &devices[device.index].mailbox.deferredZone) {
        report { $0.observePush(device: device, event: .discarded, at: sim.now) }
      }
      report { $0.observePush(device: device, event: .deferred, at: sim.now) }
      return nil
    }
    let conditions = deviceConditions(device)
    guard push.withinBudget(device.index, conditions: conditions, at: sim.now) else {
      if PushService.keepNewest(zone, in: &devices[device.index].mailbox.heldZone) {
        report { $0.observePush(device: device, event: .discarded, at: sim.now) }
      }
      report { $0.observePush(device: device, event: .held, at: sim.now) }
      push.admitOtherAppsAfterOwn(device.index, at: sim.now)
      return nil
    }
    push.recordWake(device.index, at: sim.now)
    push.admitOtherAppsAfterOwn(device.index, at: sim.now)
    report { $0.observePush(device: device, event: .delivered, at: sim.now) }
    // Launched (or resumed) in the background for the push, for its runtime. [A]
    let launched = devices[device.index].app == .notRunning
    if devices[device.index].app != .background {
      devices[device.index].launchedForPush = true
      setAppState(device, .background, at: sim.now)
    }
    return ReceivedPush(zone: zone, wokeApp: true, launched: launched)
  }

  /// The user brought the app forward: a held push is delivered at once. [A] Its zone, for the
  /// caller to hand to the client; nil when none was held.
  mutating func releaseHeldPush(_ device: DeviceID, sim: inout Simulation<ModelEvent>) -> ZoneID? {
    let zone = devices[device.index].mailbox.heldZone
    guard zone.exists else { return nil }
    devices[device.index].mailbox.heldZone = .none
    report { $0.observePush(device: device, event: .delivered, at: sim.now) }
    return zone
  }

  /// Back online: APNs delivers the one stored push if it has not expired, and the other apps'
  /// (in the order APNs received them).
  mutating func releaseStoredPush(_ device: DeviceID, sim: inout Simulation<ModelEvent>) {
    let mailbox = devices[device.index].mailbox
    push.releaseOtherApps(
      device.index, stored: true, arrival: sim.now + push.parameters.deliveryLatency,
      ownReceivedAt: mailbox.storedZone.exists ? mailbox.storedAt : nil, now: sim.now)
    guard let stored = push.takeStored(from: &devices[device.index].mailbox, at: sim.now) else { return }
    if stored.expired {
      report { $0.observePush(device: device, event: .discarded, at: sim.now) }
      return
    }
    sim.schedule(.pushArrives(device, stored.zone), after: push.parameters.deliveryLatency)
  }
}

extension PushHost {
  /// Low Power Mode on an unplugged device: APNs defers low-priority pushes. [A] APNs docs. And,
  /// with `push.deferBelowBatteryPercent`, a battery below it. [W] WWDC20 10063
  @inline(__always)
  func isPowerRestricted(_ device: DeviceID) -> Bool {
    if devices[device.index].lowPowerMode && !devices[device.index].pluggedIn { return true }
    guard let level = push.parameters.deferBelowBatteryPercent else { return false }
    return devices[device.index].batteryPercent < level
  }

  /// The other apps' pushes played up to now under the device's state, before the state changes
  /// (going on- or offline, power, battery): `OtherAppsPushes` plays them lazily.
  mutating func pushStateWillChange(_ device: DeviceID, at now: SimTime) {
    push.playOtherApps(
      device.index, conditions: deviceConditions(device), offline: !devices[device.index].online,
      restricted: isPowerRestricted(device), to: now)
  }

  /// The restriction lifted: APNs delivers the deferred push (and the other apps'). The push the
  /// app received, for the caller to hand on (`World.pushReceived`); nil otherwise.
  mutating func releaseDeferredPush(_ device: DeviceID, sim: inout Simulation<ModelEvent>) -> ReceivedPush? {
    guard !isPowerRestricted(device) else { return nil }
    let zone = devices[device.index].mailbox.deferredZone
    push.releaseOtherApps(
      device.index, stored: false, arrival: sim.now,
      ownReceivedAt: zone.exists ? devices[device.index].mailbox.deferredAt : nil, now: sim.now)
    guard zone.exists else { return nil }
    devices[device.index].mailbox.deferredZone = .none
    return deliverPush(device, zone: zone, sim: &sim)
  }
}
