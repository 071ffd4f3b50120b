import SimKernel

/// The client's reaction to a request fault (`ClientReaction`), the same for an export and an
/// import, for the Core Data client and CKSyncEngine: the machine that got the answer has ended
/// its activity, and what follows is declared by the fault, not written in the machine.
extension ClientHost {
  /// Follows `failure`'s declared reaction after `activity` ended on it.
  mutating func react(to failure: RequestFailure, of activity: ActivityID, sim: inout Simulation<ModelEvent>) {
    let ended = scheduler.activities[activity.index]
    switch failure.reaction {
    case .retry(let at):
      requestRetry(of: activity, notBefore: at, cause: failure.waitCause, sim: &sim)
    case .fail:
      if ended.kind == .export {
        requestExport(ended.store, trigger: .exportAgain, sim: &sim)
      } else {
        requestImport(ended.store, trigger: .importAgain, sim: &sim)
      }
    case .reset(let reason):
      // The export's unsent changes stay in the history: the reset exports them after it.
      resetSync(ended.store, reason: reason, sim: &sim)
    case .stall(let until):
      stall(ended.store, by: failure, until: until)
      requestRetry(of: activity, notBefore: until, cause: failure.waitCause, sim: &sim)
    }
  }

  /// Marks `store` stalled by `failure` until `until`: what it has pending, and every activity
  /// it asks for meanwhile (`holdIfStalled`), waits for the failure's cause until then.
  mutating func stall(_ store: StoreID, by failure: RequestFailure, until: SimTime) {
    let key = Int32(store.index)
    if case .stall(let current)? = clients.stalls[key]?.reaction, current >= until { return }
    clients.stalls[key] = failure
    let pending = scheduler.storeActivities[store.index]
    for activity in [pending.pendingExport, pending.pendingImport] where activity.exists {
      setRetryWait(activity, notBefore: until, cause: failure.waitCause)
    }
  }

  /// The stall `store` is in at `now`, if any, with its end (one that has ended is forgotten).
  @inline(__always)
  mutating func stallOf(_ store: StoreID, at now: SimTime) -> (failure: RequestFailure, until: SimTime)? {
    guard !clients.stalls.isEmpty, let failure = clients.stalls[Int32(store.index)],
      case .stall(let until) = failure.reaction
    else { return nil }
    guard until > now else {
      clients.stalls[Int32(store.index)] = nil
      return nil
    }
    return (failure, until)
  }

  /// Holds a newly asked-for `activity` of a stalled store until its stall ends.
  @inline(__always)
  mutating func holdIfStalled(_ activity: ActivityID, _ store: StoreID, at now: SimTime) {
    guard let stall = stallOf(store, at: now) else { return }
    setRetryWait(activity, notBefore: stall.until, cause: stall.failure.waitCause)
  }
}
