import SimKernel

/// One scheduler activity: what dasd knows of it. What its client does while it runs (pages,
/// batches, attempts) is the client's (`ActivityRun`).
struct ActivityState {
  var kind: ActivityKind
  var store: StoreID
  var trigger: ActivityTrigger
  var requestedAt: SimTime
  var launchedForPush: Bool
  var phase = ActivityPhase.deciding
  /// The monotonic id observers see (the slot is reused after the activity finishes).
  var logID: Int32 = 0
  var blockedPolicy: Int32 = -1
  var blockedSince = SimTime.zero
  var recheck = EventHandle.none
  /// Started by the app itself (CKSyncEngine's manual calls, a push's fetch in a running app):
  /// decided at once, without dasd's policies (`decideImmediate`).
  var immediate = false
}

enum ActivityPhase: UInt8 {
  case deciding, blocked, approved, running, finished
}
