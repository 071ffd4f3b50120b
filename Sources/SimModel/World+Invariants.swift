import SimKernel

/// The bookkeeping pairs the model keeps in step by hand, checked after every event in debug and
/// test builds (release builds compile none of it): a count beside the list it counts, the group's
/// running count beside the activities, a store's pending and running activities beside their
/// states. A break stops the run at the event that caused it, naming the pair.
extension World {
  /// Checks every invariant after the event that made `processed` events in all. Worlds of up to
  /// 256 devices, stores and activity slots together are checked after every event; larger ones
  /// after every 64th, so that a test fleet stays fast in a debug build.
  @inline(__always)
  func checkInvariants(afterEvent processed: Int) {
    #if DEBUG
      let size = devices.count + clients.stores.count + scheduler.activities.count
      guard size <= 256 || processed % 64 == 0 else { return }
      if let violation = invariantViolation() { preconditionFailure(violation) }
    #endif
  }

  /// The first invariant that does not hold, described, or nil when all hold.
  func invariantViolation() -> String? {
    schedulerBooksViolation() ?? storeActivitiesViolation()
  }

  /// Waiting lists against their counts, parked requests against theirs, retry waits against
  /// theirs, and free slots hold finished activities.
  func schedulerBooksViolation() -> String? {
    for device in devices.indices {
      let waiting = scheduler.waiting[device]
      guard Int(devices[device].waitingCount) == waiting.count else {
        return
          "invariant: device \(device) counts \(devices[device].waitingCount) waiting activities, its list holds \(waiting.count)"
      }
      for activity in waiting {
        let state = scheduler.activities[activity.index]
        guard state.phase == .blocked && owner(of: state.store).index == device else {
          return
            "invariant: activity slot \(activity.index) waits on device \(device) but is \(state.phase) on device \(owner(of: state.store).index)"
        }
      }
      guard Int(devices[device].parkedCount) == parked[device].count else {
        return
          "invariant: device \(device) counts \(devices[device].parkedCount) parked requests, its list holds \(parked[device].count)"
      }
    }
    guard scheduler.retryWaitCount == scheduler.retryWaits.count else {
      return "invariant: \(scheduler.retryWaitCount) retry waits counted, \(scheduler.retryWaits.count) kept"
    }
    for slot in scheduler.freeActivitySlots {
      guard scheduler.activities[slot.index].phase == .finished else {
        return "invariant: free activity slot \(slot.index) holds a \(scheduler.activities[slot.index].phase) activity"
      }
    }
    return nil
  }

  /// Each store's running-in-group count against its approved and running activities, and its
  /// pending and running export and import against the activities they name.
  func storeActivitiesViolation() -> String? {
    var running = [Int32](repeating: 0, count: clients.stores.count)
    for slot in scheduler.activities.indices {
      let state = scheduler.activities[slot]
      if state.phase == .approved || state.phase == .running { running[state.store.index] += 1 }
    }
    for store in clients.stores.indices {
      let state = scheduler.storeActivities[store]
      guard state.runningInGroup == running[store] else {
        return
          "invariant: store \(store) counts \(state.runningInGroup) running in its group, \(running[store]) are approved or running"
      }
      let pending: [ActivityPhase] = [.deciding, .blocked, .approved]
      if let violation = roleViolation(state.pendingExport, of: store, kind: .export, in: pending, "pending export")
        ?? roleViolation(state.pendingImport, of: store, kind: .import, in: pending, "pending import")
        ?? roleViolation(state.runningExport, of: store, kind: .export, in: [.running], "running export")
        ?? roleViolation(state.runningImport, of: store, kind: .import, in: [.running], "running import")
      {
        return violation
      }
    }
    return nil
  }

  /// `activity`, when it exists, is of `store`, of `kind`, and in one of `phases`.
  func roleViolation(
    _ activity: ActivityID, of store: Int, kind: ActivityKind, in phases: [ActivityPhase], _ role: String
  ) -> String? {
    guard activity.exists else { return nil }
    let state = scheduler.activities[activity.index]
    guard state.store.index == store && state.kind == kind && phases.contains(state.phase) else {
      return
        "invariant: store \(store)'s \(role) is slot \(activity.index), a \(state.kind) of store \(state.store.index), \(state.phase)"
    }
    return nil
  }
}
