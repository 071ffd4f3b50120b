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
    case .recreateZone:
      // The store's next export saves the zone first (`ExportTransition.savingZone`); the changes
      // the failed export carried are still in the history, and are sent after it.
      clients.stores[ended.store.index].zoneSavePending = true
      if ended.kind != .export { requestImport(ended.store, trigger: .importAgain, sim: &sim) }
      requestExport(ended.store, trigger: .exportAgain, sim: &sim)
    }
  }

  /// Marks `store` stalled by `failure` until `until`: the store is held (`hold`) under the
  /// failure's cause, and a request of its still on the wire is answered the same (`stallOf`).
  mutating func stall(_ store: StoreID, by failure: RequestFailure, until: SimTime) {
    let key = Int32(store.index)
    if case .stall(let current)? = clients.stalls[key]?.reaction, current >= until { return }
    clients.stalls[key] = failure
    hold(store, until: until, cause: failure.waitCause)
  }

  /// Holds `store` until `until`: what it has pending, and every activity it asks for meanwhile
  /// (`holdIfHeld`), waits for `cause` until then. A stall holds a store; so may a timeline
  /// action (a `DeclaredTimelineAction`'s behaviour). A hold that ends sooner than the store's
  /// current one changes nothing.
  mutating func hold(_ store: StoreID, until: SimTime, cause: WaitCause) {
    let key = Int32(store.index)
    if let current = clients.holds[key], current.until >= until { return }
    clients.holds[key] = (until, cause)
    let pending = scheduler.storeActivities[store.index]
    for activity in [pending.pendingExport, pending.pendingImport] where activity.exists {
      setRetryWait(activity, notBefore: until, cause: cause)
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

  /// Holds a newly asked-for `activity` of a held store until its hold ends (one that has ended
  /// is forgotten).
  @inline(__always)
  mutating func holdIfHeld(_ activity: ActivityID, _ store: StoreID, at now: SimTime) {
    guard !clients.holds.isEmpty, let hold = clients.holds[Int32(store.index)] else { return }
    guard hold.until > now else {
      clients.holds[Int32(store.index)] = nil
      return
    }
    setRetryWait(activity, notBefore: hold.until, cause: hold.cause)
  }
}
