import SimKernel

/// What a sync client does when a request fault answers its request: declared by the fault
/// (`RequestFault.recovery`), and handled the same way by the export and the import machines of
/// both clients (`Client/ClientHost+Reactions`), so a fault with a new reaction touches no machine.
///
/// In every case the activity the request belonged to ends and releases its group; the cases say
/// what follows.
enum ClientReaction: Equatable, Sendable {
  /// A new activity of the same kind may not start before this time, and waits meanwhile under
  /// the fault's cause (a retry-after, a back-off). [A] TN3162
  case retry(at: SimTime)
  /// The activity fails: a new one waits for what the scheduler's policies need (the network
  /// for `networkUnavailable`). [A] CKError networkUnavailable
  case fail
  /// The store resets for this reason: it wipes its mirrored rows, fetches the whole zone from an
  /// empty token and exports its local changes after (spec §8: a zone the server no longer has is
  /// `ZoneDeleted`). [RE] NSCloudKitMirroringDelegateResetSyncReasonKey
  case reset(ResetReason)
  /// The store sends nothing, export or import, until this time, and then asks again; both waits
  /// are booked to the fault's cause. [A] CKError accountTemporarilyUnavailable: "Don't delete
  /// any cached data and don't enqueue any additional CloudKit operations"
  case stall(until: SimTime)
  /// The store saves its zone again, then sends its changes again: a new export is asked for at
  /// once, and its first request saves the zone (one modify-zones request, no records) before any
  /// batch. An import that gets it is asked for again too. What a CKSyncEngine app does on
  /// `zoneNotFound` for a record it sent: "save that zone and retry saving the record". [A]
  /// sample-cloudkit-sync-engine, SyncedDatabase.handleSentRecordZoneChanges
  case recreateZone
}
