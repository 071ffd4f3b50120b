import SimKernel

/// Battery drain and charge (spec §3 "optional drain/charge rates").
extension World {
  /// How often a draining or charging battery is updated: the level moves in small steps, and
  /// crossing a policy threshold is noticed within this time.
  static let batteryTickInterval = SimDuration.minutes(5)

  mutating func batteryTick(_ device: DeviceID, sim: inout Simulation<ModelEvent>) {
    let conditions = spec.devices[device.index].conditions
    let hours = World.batteryTickInterval.seconds / 3600
    let before = devices[device.index].batteryPercent
    let rate = devices[device.index].pluggedIn ? conditions.chargePercentPerHour : -conditions.drainPercentPerHour
    let after = min(100, max(0, before + rate * hours))
    if after != before { pushStateWillChange(device, at: sim.now) }
    devices[device.index].batteryPercent = after
    var changed = after != before
    if let threshold = conditions.autoLowPowerBelowPercent, after < threshold, !devices[device.index].lowPowerMode {
      devices[device.index].lowPowerMode = true
      changed = true
    }
    if changed {
      reportConditions(device, at: sim.now)
      // Crossing a policy's threshold (Low Power Mode's 30 %, critical battery's 20 %, or its
      // 10 % for utility work by priority) is a signal for waiting activities.
      let crossed = scheduler.policies.batteryThresholds.contains { (before < $0) != (after < $0) }
      if crossed || devices[device.index].lowPowerMode { signal(device, sim: &sim) }
      // A push deferred for a low battery is delivered once the level is back above its line.
      if let level = spec.push.deferBelowBatteryPercent, before < level, after >= level {
        if let received = releaseDeferredPush(device, sim: &sim) { pushReceived(device, received, sim: &sim) }
      }
    }
    sim.schedule(.batteryTick(device), after: World.batteryTickInterval)
  }
}
