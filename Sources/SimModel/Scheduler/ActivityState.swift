import SimKernel

/// One scheduler activity.
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
  /// Import: the server token captured at start; pages left.
  var snapshotToken: Int32 = 0
  /// When the snapshot token's change was made.
  var snapshotAt = SimTime.zero
  var pagesLeft: Int32 = 0
  var pagesTotal: Int32 = 0
  var records: Int32 = 0
  var bytes: Int64 = 0
  /// Import: it fetches from an empty token (a first import, or one after a reset), and its
  /// first page carries the setup of such an import.
  var fromEmptyToken = false
  /// Export: the plan's next batch and the history prefix it covers.
  var nextBatch: Int32 = 0
  var historyCovered: Int32 = 0
  /// Consecutive failed attempts (network failures, zoneBusy) of the request it carries on, for
  /// the back-off; carried into the activity that retries it.
  var attempt: Int = 0
  /// Whether the current batch was already merged after serverRecordChanged.
  var merged = false
  /// Started by the app itself (CKSyncEngine's manual calls, a push's fetch in a running app):
  /// decided at once, without dasd's policies (`decideImmediate`).
  var immediate = false
}

enum ActivityPhase: UInt8 {
  case deciding, blocked, approved, running, finished
}

/// An export's plan: the changes it carries, grouped into records and batches.
struct ExportPlan {
  var entries: [Change] = []
  /// Per batch: end index into `entries`, record count, bytes.
  var batchEnds: [Int32] = []
  var batchRecords: [Int32] = []
  var batchBytes: [Int64] = []

  /// Ends a batch after entry `end - 1`, with its record count and bytes.
  mutating func appendBatch(end: Int, records: Int32, bytes: Int64) {
    batchEnds.append(Int32(end))
    batchRecords.append(records)
    batchBytes.append(bytes)
  }

  /// Keeps the first `count` batches and forgets the rest.
  mutating func keepBatches(_ count: Int) {
    guard count < batchEnds.count else { return }
    batchEnds.removeLast(batchEnds.count - count)
    batchRecords.removeLast(batchRecords.count - count)
    batchBytes.removeLast(batchBytes.count - count)
  }

  /// Empties the plan, keeping its buffers for the next export.
  mutating func clear() {
    entries.removeAllKeepingCapacity()
    batchEnds.removeAllKeepingCapacity()
    batchRecords.removeAllKeepingCapacity()
    batchBytes.removeAllKeepingCapacity()
  }
}
