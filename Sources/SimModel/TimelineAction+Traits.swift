/// What each timeline action is, declared once per action: the decoder, the replay rule and
/// `World.perform` read these instead of each keeping its own list behind a `default:` that would
/// swallow a new action. Every switch here names every case, so a new action does not compile
/// until someone decides each of them.
extension TimelineAction.Action {
  /// The only client the action applies to (nil: either): CKSyncEngine's manual calls and its
  /// outside save, or Core Data's mirroring reset and container re-creation.
  public var onlyFor: SyncClient? {
    switch self {
    case .saveOutsideEngine, .sendChanges, .fetchChanges: .syncEngine
    case .resetSync, .toggleSync: .coreData
    case .goOffline, .goOnline, .plug, .unplug, .lowPower, .battery, .launch, .activate, .background, .terminate,
      .forceQuit, .crash, .nudge, .edit, .bulkInsert, .bulkDelete, .quota, .setLevel, .throttle:
      nil
    case .declared(let declared): declared.behaviour.onlyFor
    }
  }

  /// Whether the action writes to its devices' stores, so that a store it names cannot be a
  /// replayed copy (`WorldSpec.replayedStores`).
  var writesToStore: Bool {
    switch self {
    case .edit, .bulkInsert, .bulkDelete, .saveOutsideEngine, .toggleSync: true
    case .goOffline, .goOnline, .plug, .unplug, .lowPower, .battery, .launch, .activate, .background, .terminate,
      .forceQuit, .crash, .sendChanges, .fetchChanges, .nudge, .resetSync, .quota, .setLevel, .throttle:
      false
    case .declared(let declared): declared.behaviour.writesToStore
    }
  }

  /// The wait cause the action imposes on its devices' activities, if any: a run whose timeline
  /// holds it reports the cause (`WorldSpec.reportedCauses`), as one whose faults can raise it.
  var waitCause: WaitCause? {
    switch self {
    case .goOffline, .goOnline, .plug, .unplug, .lowPower, .battery, .launch, .activate, .background, .terminate,
      .forceQuit, .crash, .sendChanges, .fetchChanges, .saveOutsideEngine, .nudge, .edit, .bulkInsert, .bulkDelete,
      .resetSync, .toggleSync, .quota, .setLevel, .throttle:
      nil
    case .declared(let declared): declared.behaviour.waitCause
    }
  }

  /// Whether the action changes one of the four built-in conditions (network, power, Low Power
  /// Mode, battery): the push service then re-decides held pushes, and the conditions are
  /// reported. A declared condition (`setLevel`) is reported by its own path.
  var changesBuiltInCondition: Bool {
    switch self {
    case .goOffline, .goOnline, .plug, .unplug, .lowPower, .battery: true
    case .launch, .activate, .background, .terminate, .forceQuit, .crash, .sendChanges, .fetchChanges,
      .saveOutsideEngine, .nudge, .edit, .bulkInsert, .bulkDelete, .resetSync, .toggleSync, .quota, .setLevel,
      .throttle:
      false
    case .declared(let declared): declared.behaviour.changesBuiltInCondition
    }
  }

  /// Whether the action holds what every account shares, the container (a forced throttle), so
  /// that the world cannot run as independent parts (`WorldPartitioning`). Lifting a throttle
  /// that was never forced changes nothing (a healing script lifts it anyway).
  var holdsContainer: Bool {
    switch self {
    case .throttle(let on): on
    case .goOffline, .goOnline, .plug, .unplug, .lowPower, .battery, .launch, .activate, .background, .terminate,
      .forceQuit, .crash, .sendChanges, .fetchChanges, .saveOutsideEngine, .nudge, .edit, .bulkInsert, .bulkDelete,
      .resetSync, .toggleSync, .quota, .setLevel:
      false
    case .declared(let declared): declared.behaviour.holdsContainer
    }
  }

  /// The action's name in messages: a declared action's own, else its case's.
  public var name: String {
    switch self {
    case .declared(let declared): declared.behaviour.name
    default: String(describing: self).prefix { $0 != "(" }.description
    }
  }
}
