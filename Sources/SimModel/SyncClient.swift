import SimKernel

/// The sync client a store runs: what decides when to send and fetch, over the shared CloudKit
/// server, push service and system scheduler.
///
/// The world reaches a store's client through the entry points below, each a switch on the
/// store's client. Both clients send through activities of kind `export` and fetch through
/// `import`, so results name their stages alike; what differs is when they start and how a send
/// takes failures (`exportStep` against `sendStep`).
public enum SyncClient: String, Sendable, CaseIterable {
  /// Core Data's mirroring (`NSPersistentCloudKitContainer`): every save asks for an export
  /// activity, the app's deactivation too, and the container imports on pushes, launches and
  /// activations.
  case coreData
  /// CKSyncEngine (iOS 17+): a pending change schedules one send; the app builds the batches; a
  /// push fetches at once in a running app; the app may call `sendChanges`/`fetchChanges`.
  case syncEngine

  /// dasd's priority of the client's activities, which its battery and Low Power Mode rules read.
  /// Core Data's CloudKit activities are utility work [RE] (dasd `_DASThermalPolicy` allows
  /// CloudKit's activities to moderate pressure, the utility level); CKSyncEngine's are taken
  /// to be the same [assumed]: it schedules through CloudKit's own scheduler, whose priority for
  /// it no source states.
  public var activityPriority: ActivityPriority { .utility }
}

/// dasd's priority classes below user-initiated work, as its battery and Low Power Mode
/// policies treat them. [RE] iOS 26.1 `_DASBatteryLevelPolicy`, `_DASLowPowerModePolicy`.
public enum ActivityPriority: String, Sendable, CaseIterable {
  case maintenance, utility
}
