import SimKernel

/// What a client does with an activity while it runs, per activity slot: an import's snapshot
/// and pages, an export's next batch and the history it covers, the records and bytes moved,
/// and the failed attempts carried into the activity that retries it.
///
/// The client's own, beside its plans and import queues (`SyncClients.runs`); the scheduler
/// keeps only what dasd knows of the activity (`ActivityState`). A slot's run starts afresh when
/// the client is given the slot (`SyncClients.beginRun`).
struct ActivityRun {
  /// Import: the server token captured at start.
  var snapshotToken: Int32 = 0
  /// When the snapshot token's change was made.
  var snapshotAt = SimTime.zero
  /// Import: pages left, of how many.
  var pagesLeft: Int32 = 0
  var pagesTotal: Int32 = 0
  /// The records (and an import's bytes) the activity moves, reported when it finishes.
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
  /// Export: its request on the wire saves the store's zone, not a batch.
  var savingZone = false
}
