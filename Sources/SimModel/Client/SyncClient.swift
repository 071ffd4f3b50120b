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

extension World {
  /// dasd started `activity` (an export or an import of its store's client).
  @inline(__always)
  mutating func clientActivityStarted(_ activity: ActivityID, sim: inout Simulation<ModelEvent>) {
    let state = scheduler.activities[activity.index]
    switch stores[state.store.index].client {
    case .coreData, .syncEngine:
      switch state.kind {
      case .export:
        stores[state.store.index].runningExport = activity
        exportStep(activity, .started, sim: &sim)
      case .import:
        stores[state.store.index].runningImport = activity
        importStep(activity, .started, sim: &sim)
      case .setup:
        finishActivity(activity, succeeded: true, sim: &sim)
      }
    }
  }

  /// The server answered the request `activity` had on the wire.
  @inline(__always)
  mutating func clientRequestAnswered(_ activity: ActivityID, sim: inout Simulation<ModelEvent>) {
    let state = scheduler.activities[activity.index]
    switch stores[state.store.index].client {
    case .coreData, .syncEngine:
      if state.kind == .export {
        exportStep(activity, .answered, sim: &sim)
      } else {
        importStep(activity, .answered, sim: &sim)
      }
    }
  }

  /// The app left the foreground: Core Data asks for its deactivation export; CKSyncEngine sends
  /// only if the app calls `sendChanges` on resign.
  mutating func clientResigned(_ store: StoreID, sim: inout Simulation<ModelEvent>) {
    switch stores[store.index].client {
    case .coreData: requestExport(store, trigger: .appDeactivation, sim: &sim)
    case .syncEngine: engineResigned(store, sim: &sim)
    }
  }

  /// A push for `zone` reached the app on `device` (delivered, or released when the person
  /// brought the app forward): each of its stores of the zone reacts as its client does.
  mutating func clientPushReceived(_ device: DeviceID, zone: ZoneID, sim: inout Simulation<ModelEvent>) {
    for store in storeIDs(of: device) where stores[store.index].zone == zone {
      switch stores[store.index].client {
      case .coreData: requestImport(store, trigger: .push, sim: &sim)
      case .syncEngine: engineReceivedPush(store, sim: &sim)
      }
    }
  }
}
