import SimKernel

/// One way the server answers a modify request about its records (spec §6, CKError docs): the
/// request is too large, a record is refused, the quota is full, records changed on the server,
/// or some records failed.
///
/// Asked in `RecordFaultSet`'s order after every request fault has let the request through;
/// the first that answers decides. A fault sees the request, the server's own state and the
/// request's random stream (the device's network stream), never the world. A new record
/// failure of SyncSim's own is one file and a property and a line in `RecordFaultSet`; one
/// from outside (a test's, a researcher's) is one file and one entry in
/// `WorldSpec.extraRecordFaults`.
protocol RecordFault: Sendable {
  /// The error it reports.
  var error: CloudError { get }
  /// Its answer to `request`, or nil when it lets the request through. A `.recordsFailed`
  /// answer lists each failed record in `failed`: its position in the batch, its error and the
  /// retry-after the server states for it.
  func answer(
    _ request: ModifyRequest, server: CloudServer, random: inout RandomStream, failed: inout [RecordFailure]
  ) -> RecordOutcome?
}

/// A modify request's batch as the server receives it.
struct ModifyRequest {
  var device: Int
  var zone: Int
  /// The store that sends it.
  var store: StoreID
  var now: SimTime
  /// The batch's changes, record by record (a record's changes are consecutive).
  var changes: UnsafeBufferPointer<Change>
  /// How many records the batch holds.
  var records: Int
  /// Whether the client has merged the server's records into this batch after a
  /// serverRecordChanged answer (it is then saved as sent).
  var merged: Bool
  /// The change token through which the sending store has imported the zone.
  var importedToken: Int32
}

/// A record fault's answer.
enum RecordOutcome: Equatable, Sendable {
  /// The request is over the server's per-request limits: the client splits the batch in half and
  /// sends both, or fails when it holds one record (limitExceeded).
  case tooLarge
  /// The request fails as a whole with this error, and the export with it.
  case refused(CloudError)
  /// Records changed on the server since the store imported them: the client merges the
  /// server's fields in and sends the batch again at once (serverRecordChanged).
  case changedOnServer
  /// The records listed in `failed` were not saved; the rest were (CKError.partialFailure with
  /// per-record errors). The client sends the failed ones again in the same export, after the
  /// longest of their retry-afters (at once when none states one).
  case recordsFailed
}

/// One record a modify request did not save: its position in the batch, its own error and the
/// retry-after the server states for it.
struct RecordFailure: Equatable {
  var position: Int32
  var error: CloudError
  var retryAfter: SimDuration?
}
