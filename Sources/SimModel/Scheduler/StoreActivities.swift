import SimKernel

/// One store's activities at the scheduler: its pending and running export and import, and how
/// many of its group are approved or running (what the activity-group policy reads).
struct StoreActivities {
  var pendingExport = ActivityID.none
  var runningExport = ActivityID.none
  var pendingImport = ActivityID.none
  var runningImport = ActivityID.none
  /// Approved, unfinished activities of this store's group.
  var runningInGroup: Int32 = 0
  /// The client that asks for them (Core Data's exports start after its own delay).
  var client = SyncClient.coreData

  /// Makes `activity` the store's pending activity of `kind` (`.none`: none is); a setup has no
  /// slot of its own here.
  mutating func setPending(_ kind: ActivityKind, _ activity: ActivityID) {
    switch kind {
    case .export: pendingExport = activity
    case .import: pendingImport = activity
    case .setup: break
    }
  }

  /// Makes `activity` the store's running activity of `kind`.
  mutating func setRunning(_ kind: ActivityKind, _ activity: ActivityID) {
    switch kind {
    case .export: runningExport = activity
    case .import: runningImport = activity
    case .setup: break
    }
  }

  /// `activity` is no longer pending (it was cancelled).
  mutating func forgetPending(_ activity: ActivityID) {
    if pendingExport == activity { pendingExport = .none }
    if pendingImport == activity { pendingImport = .none }
  }

  /// `activity` is no longer running (it finished).
  mutating func forgetRunning(_ activity: ActivityID) {
    if runningExport == activity { runningExport = .none }
    if runningImport == activity { runningImport = .none }
  }
}
