import SimKernel

extension ClientHost {
  /// Reports the intervals of activities still blocked when the run ends, ending them there.
  mutating func closeOpenBlockedIntervals(at end: SimTime) {
    for index in scheduler.activities.indices where scheduler.activities[index].phase == .blocked {
      closeBlockedInterval(ActivityID(index), at: end)
    }
  }

  /// Whether every store equals the server for everything it can access, with nothing pending
  /// (spec §10 convergence).
  func isConverged() -> Bool {
    for (index, store) in clients.stores.enumerated() where store.zone.exists {
      if !clients.history[index].isEmpty { return false }
      let activities = scheduler.storeActivities[index]
      if activities.pendingExport.exists || activities.runningExport.exists || store.disabled { return false }
      if isReplayed(StoreID(index)) {
        if !clients.replayedEnds[index].converged { return false }
        continue
      }
      let zone = store.zone.index
      let stored = clients.local[index].count
      for field in 0..<Int(server.zones[zone].fieldCount)
      where server.zones[zone].server[field].write != .none || field < stored {
        let write = field < stored ? clients.local[index][field].write : .none
        if write != server.zones[zone].server[field].write { return false }
      }
    }
    return true
  }
}
