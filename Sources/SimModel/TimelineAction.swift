import SimKernel

/// A scripted action at a time for some devices (spec §3 timeline).
public struct TimelineAction: Sendable {
  public var at: SimDuration
  public var devices: [Int]
  public var action: Action
  /// The store an `edit` or `bulkInsert` writes: an index into each device's `stores`; nil
  /// writes the device's first syncing store.
  public var store: Int?

  public init(at: SimDuration, devices: [Int], action: Action, store: Int? = nil) {
    self.at = at
    self.devices = devices
    self.action = action
    self.store = store
  }

  public enum Action: Equatable, Sendable {
    case goOffline, goOnline, plug, unplug
    case lowPower(Bool)
    case battery(Double)
    case launch, activate, background, terminate, forceQuit
    /// The app's process ends abruptly: no deactivation, unsaved edits lost (and a CKSyncEngine
    /// app's pending changes its written state does not hold).
    case crash
    /// CKSyncEngine's `sendChanges()` / `fetchChanges()`: the app starts a send or a fetch at once.
    case sendChanges, fetchChanges
    /// A CKSyncEngine app saves a record with its own CloudKit call, not through the engine (as
    /// UICloudSharingController saves or deletes a CKShare).
    case saveOutsideEngine
    /// Post `didBecomeActive` once (nil `every`) or every `every` until `until` ([HowTo]).
    /// The app's nudge, once or every `every` until `until`, each repeat delayed by a uniform draw
    /// in [0, `jitter`) from its time on the clock.
    case nudge(every: SimDuration?, until: SimDuration?, jitter: SimDuration = .zero)
    /// One edit on the device's first syncing store; an insert may carry a logical key.
    case edit(EditKind, entity: Int, key: Int32?)
    /// `count` new objects, in one save or one save each, spread evenly over `over`.
    case bulkInsert(count: Int, entity: Int, oneSave: Bool, over: SimDuration)
    /// `count` live objects of `entity` deleted (nil: every live one), first created first, in one
    /// save or one save each, spread evenly over `over` (an app clearing a list or wiping data).
    case bulkDelete(count: Int?, entity: Int, oneSave: Bool, over: SimDuration)
    /// The mirroring delegate resets the device's stores.
    case resetSync(ResetReason)
    /// The app re-creates its container: with the old store still registered it fails with
    /// 134410 ([HowTo]'s trap); removing the store first works, losing unexported changes.
    case toggleSync(removeStoreFirst: Bool)
    /// Sets the iCloud storage quota of the device's account (nil = unlimited).
    case quota(bytes: Int64?)
    /// Sets a declared condition after the built-in ones (`ConditionTable`, at `slot` after
    /// them) to `value`; the built-in ones have their own actions.
    case setLevel(slot: Int, value: Double)
    /// Forces the container's throttle on (every request answers serviceUnavailable) or off.
    case throttle(Bool)
    /// An action declared as a type, its traits and behaviour in its own file
    /// (`DeclaredTimelineAction`).
    case declared(DeclaredAction)
  }
}
