import SimKernel

/// Public-database polling (spec §7): a store of the public database has no push; it polls
/// every `polling.interval` of app use (or of wall clock), paused while the app is not running.
extension ClientHost {
  mutating func schedulePoll(_ store: StoreID, sim: inout Simulation<ModelEvent>) {
    guard server.zones[clients.stores[store.index].zone.index].scope == .public else { return }
    sim.cancel(clients.stores[store.index].pollTimer)
    let interval = clients.settings.polling.interval
    clients.stores[store.index].pollUseNanoseconds = interval.nanoseconds
    clients.stores[store.index].pollTimer = sim.scheduleCancellable(.poll(store), at: sim.now + interval)
    clients.stores[store.index].pollDueAt = sim.now + interval
  }

  mutating func pausePoll(_ store: StoreID, sim: inout Simulation<ModelEvent>) {
    guard sim.cancel(clients.stores[store.index].pollTimer) else { return }
    clients.stores[store.index].pollUseNanoseconds = (clients.stores[store.index].pollDueAt - sim.now).nanoseconds
  }

  mutating func resumePoll(_ store: StoreID, sim: inout Simulation<ModelEvent>) {
    guard server.zones[clients.stores[store.index].zone.index].scope == .public,
      !sim.isPending(clients.stores[store.index].pollTimer)
    else { return }
    let remaining = SimDuration(nanoseconds: max(0, clients.stores[store.index].pollUseNanoseconds))
    clients.stores[store.index].pollDueAt = sim.now + remaining
    clients.stores[store.index].pollTimer = sim.scheduleCancellable(.poll(store), at: sim.now + remaining)
  }

  /// A wall-clock poll keeps its due time while the app is away: the timer a termination
  /// cancelled is set again for that time, or now when it passed while the app was not running.
  mutating func resumeWallClockPoll(_ store: StoreID, sim: inout Simulation<ModelEvent>) {
    guard server.zones[clients.stores[store.index].zone.index].scope == .public,
      !sim.isPending(clients.stores[store.index].pollTimer)
    else { return }
    let dueAt = max(sim.now, clients.stores[store.index].pollDueAt)
    clients.stores[store.index].pollDueAt = dueAt
    clients.stores[store.index].pollTimer = sim.scheduleCancellable(.poll(store), at: dueAt)
  }

  mutating func poll(_ store: StoreID, sim: inout Simulation<ModelEvent>) {
    requestImport(store, trigger: .poll, sim: &sim)
    schedulePoll(store, sim: &sim)
  }
}
