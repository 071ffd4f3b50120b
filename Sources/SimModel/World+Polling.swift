import SimKernel

/// Public-database polling (MODEL §7): a store of the public database has no push; it polls
/// every `polling.interval` of app use (or of wall clock), paused while the app is not running.
extension World {
  mutating func schedulePoll(_ mirror: MirrorID, sim: inout Simulation<ModelEvent>) {
    guard zones[Int(mirrors[mirror.index].zone)].scope == .public else { return }
    sim.cancel(mirrors[mirror.index].pollTimer)
    let interval = SimDuration(seconds: spec.polling.intervalSeconds)
    mirrors[mirror.index].pollUseNanoseconds = interval.nanoseconds
    mirrors[mirror.index].pollTimer = sim.scheduleCancellable(.poll(mirror), at: sim.now + interval)
    mirrors[mirror.index].pollDueAt = sim.now + interval
  }

  mutating func pausePoll(_ mirror: MirrorID, sim: inout Simulation<ModelEvent>) {
    guard sim.cancel(mirrors[mirror.index].pollTimer) else { return }
    mirrors[mirror.index].pollUseNanoseconds = (mirrors[mirror.index].pollDueAt - sim.now).nanoseconds
  }

  mutating func resumePoll(_ mirror: MirrorID, sim: inout Simulation<ModelEvent>) {
    guard zones[Int(mirrors[mirror.index].zone)].scope == .public,
      !sim.isPending(mirrors[mirror.index].pollTimer)
    else { return }
    let remaining = SimDuration(nanoseconds: max(0, mirrors[mirror.index].pollUseNanoseconds))
    mirrors[mirror.index].pollDueAt = sim.now + remaining
    mirrors[mirror.index].pollTimer = sim.scheduleCancellable(.poll(mirror), at: sim.now + remaining)
  }

  mutating func poll(_ mirror: MirrorID, sim: inout Simulation<ModelEvent>) {
    requestImport(mirror, trigger: .poll, sim: &sim)
    schedulePoll(mirror, sim: &sim)
  }
}
