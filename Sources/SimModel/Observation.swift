import SimKernel

/// A value the model emits at each stage transition; observers compute metrics from these and
/// never steer the model (spec §10).
public enum Observation: Sendable {
  /// The layout of the world, emitted once per store before anything else.
  case storeCreated(store: StoreID, device: DeviceID, zone: ZoneID, scope: DatabaseScope?)
  /// A person edited an entity of a local-only configuration: it never syncs. [A] [WWDC19-202]
  case localEdit(device: DeviceID, entity: Int32, at: SimTime)
  /// A person edited a field on a device: a new write.
  case edited(write: WriteID, store: StoreID, object: ObjectID, field: Int32, kind: EditKind, at: SimTime)
  /// The write's context saved (persistent history written).
  case saved(write: WriteID, at: SimTime)
  /// A later edit on the same device replaced the write before it was exported.
  case supersededLocally(write: WriteID, by: WriteID)
  /// An export activity's modify request committed the write at the server as change `sequence`.
  case committed(write: WriteID, activity: ActivityID, sequence: Int32, at: SimTime)
  /// A commit overwrote `write` with `by`, from a device that had not seen `write`.
  case lostUpdate(write: WriteID, by: WriteID)
  /// A scheduler activity was submitted.
  case activityRequested(
    activity: ActivityID, kind: ActivityKind, store: StoreID, trigger: ActivityTrigger, at: SimTime)
  /// A policy refused the activity from `from` to `to`.
  case activityBlocked(activity: ActivityID, policy: Int32, from: SimTime, to: SimTime)
  /// All policies let the activity proceed.
  case activityApproved(activity: ActivityID, at: SimTime)
  /// The activity began executing.
  case activityStarted(activity: ActivityID, at: SimTime)
  /// The scheduler dropped the activity before it ran (its store was disabled, removed or reset).
  case activityCancelled(activity: ActivityID, reason: CancelReason, at: SimTime)
  /// The activity ended.
  case activityFinished(activity: ActivityID, at: SimTime, records: Int32, succeeded: Bool)
  /// An import updated the store up to the server's change `token`.
  case imported(store: StoreID, activity: ActivityID, token: Int32, records: Int32, at: SimTime)
  /// The person can now see the store's state up to change `token`.
  case visible(store: StoreID, token: Int32, at: SimTime)
  /// A CloudKit request finished.
  case request(store: StoreID, upload: Bool, records: Int32, bytes: Int64, at: SimTime)
  /// A CloudKit request was sent and refused whole (its error is the `cloudError` beside it):
  /// it cost its bytes all the same. Not part of the trajectory's digest, which its error is.
  case requestRefused(store: StoreID, upload: Bool, records: Int32, bytes: Int64, at: SimTime)
  /// A CloudKit request failed; `retryAfter` is set for throttling.
  case cloudError(store: StoreID, error: CloudError, retryAfter: SimDuration?, at: SimTime)
  /// The mirroring delegate announced a reset of a store: its mirrored rows are wiped.
  case reset(store: StoreID, reason: ResetReason, at: SimTime)
  /// The store's re-import after a reset finished.
  case resetEnded(store: StoreID, at: SimTime)
  /// A write was lost on its device.
  case lostWrite(write: WriteID, reason: LossReason, at: SimTime)
  /// Setting up a store's container failed (134410: a second container on the same store).
  case setupFailed(store: StoreID, code: Int32, at: SimTime)
  /// A store held a child whose parent had not arrived, from `from` to `to` (an orphan window).
  case orphanWindow(store: StoreID, child: ObjectID, from: SimTime, to: SimTime)
  /// An import left out a record made by a newer model version than the device's app runs.
  case hiddenRecord(store: StoreID, object: ObjectID)
  /// The state of the data at the end of the run.
  case finalState(FinalState)
  /// At the end of the run (with `WorldSpec.reportObjects`), one object of a store's zone: whether
  /// the store holds it live, the newest write it holds among the object's fields, and the
  /// server's live flag and newest write. `entity` is −1 for a many-to-many join record.
  case objectState(
    store: StoreID, object: ObjectID, entity: Int32, held: Bool, write: WriteID, serverLive: Bool, serverWrite: WriteID)
  /// A push event for a device.
  case push(device: DeviceID, event: PushEvent, at: SimTime)
  /// The app changed state on a device.
  case appState(device: DeviceID, state: AppState, at: SimTime)
  /// A device's power or network changed (also emitted once per device at the start).
  case conditions(
    device: DeviceID, batteryPercent: Double, pluggedIn: Bool, lowPowerMode: Bool, online: Bool, at: SimTime)
  /// A declared condition after the built-in ones (`ConditionTable`) was set on a device:
  /// `condition` is its position in the table.
  case level(device: DeviceID, condition: Int32, value: Double, at: SimTime)
  /// An event was processed (only when `WorldSpec.traceEvents` is on).
  case event(kind: UInt32, entity: UInt32, at: SimTime)
  /// The run ended; `converged` says whether every store equals the server with nothing pending.
  case runEnded(at: SimTime, converged: Bool)
}

/// What happened to a push (spec §7 counters). `withheld`: APNs did not deliver it because the
/// app had not been launched within `push.deliveryRequiresLaunchWithin` (issue 56, item 4c: it
/// was counted as `discarded`, beside the pushes a force-quit app or a newer push replaced).
public enum PushEvent: String, Sendable, CaseIterable {
  case sent, delivered, dropped, held, discarded, stored, coalesced, deferred, withheld
}

/// Receives the model's observations.
///
/// The commonest observations (a write's steps, an activity's, an import's pages and
/// refreshes, requests and pushes) reach the sink through a requirement each, with the case's
/// fields as arguments; by default each calls `observe(_:)` with the case, so a sink may
/// implement `observe(_:)` alone. The model never builds those observations as values: a fleet
/// emits millions, and a recorder that took each apart again in a switch spent a tenth of its
/// time there (docs/performance-history.md).
public protocol ObservationSink: AnyObject {
  func observe(_ observation: Observation)
  /// `.edited`
  func observeEdited(write: WriteID, store: StoreID, object: ObjectID, field: Int32, kind: EditKind, at: SimTime)
  /// `.saved`
  func observeSaved(write: WriteID, at: SimTime)
  /// `.committed`
  func observeCommitted(write: WriteID, activity: ActivityID, sequence: Int32, at: SimTime)
  /// `.activityRequested`
  func observeActivityRequested(
    activity: ActivityID, kind: ActivityKind, store: StoreID, trigger: ActivityTrigger, at: SimTime)
  /// `.activityApproved`
  func observeActivityApproved(activity: ActivityID, at: SimTime)
  /// `.activityStarted`
  func observeActivityStarted(activity: ActivityID, at: SimTime)
  /// `.activityFinished`
  func observeActivityFinished(activity: ActivityID, at: SimTime, records: Int32, succeeded: Bool)
  /// `.imported`
  func observeImported(store: StoreID, activity: ActivityID, token: Int32, records: Int32, at: SimTime)
  /// `.visible`
  func observeVisible(store: StoreID, token: Int32, at: SimTime)
  /// `.request`
  func observeRequest(store: StoreID, upload: Bool, records: Int32, bytes: Int64, at: SimTime)
  /// `.push`
  func observePush(device: DeviceID, event: PushEvent, at: SimTime)
}

extension ObservationSink {
  public func observeEdited(
    write: WriteID, store: StoreID, object: ObjectID, field: Int32, kind: EditKind, at: SimTime
  ) {
    observe(.edited(write: write, store: store, object: object, field: field, kind: kind, at: at))
  }

  public func observeSaved(write: WriteID, at: SimTime) { observe(.saved(write: write, at: at)) }

  public func observeCommitted(write: WriteID, activity: ActivityID, sequence: Int32, at: SimTime) {
    observe(.committed(write: write, activity: activity, sequence: sequence, at: at))
  }

  public func observeActivityRequested(
    activity: ActivityID, kind: ActivityKind, store: StoreID, trigger: ActivityTrigger, at: SimTime
  ) {
    observe(.activityRequested(activity: activity, kind: kind, store: store, trigger: trigger, at: at))
  }

  public func observeActivityApproved(activity: ActivityID, at: SimTime) {
    observe(.activityApproved(activity: activity, at: at))
  }

  public func observeActivityStarted(activity: ActivityID, at: SimTime) {
    observe(.activityStarted(activity: activity, at: at))
  }

  public func observeActivityFinished(activity: ActivityID, at: SimTime, records: Int32, succeeded: Bool) {
    observe(.activityFinished(activity: activity, at: at, records: records, succeeded: succeeded))
  }

  public func observeImported(store: StoreID, activity: ActivityID, token: Int32, records: Int32, at: SimTime) {
    observe(.imported(store: store, activity: activity, token: token, records: records, at: at))
  }

  public func observeVisible(store: StoreID, token: Int32, at: SimTime) {
    observe(.visible(store: store, token: token, at: at))
  }

  public func observeRequest(store: StoreID, upload: Bool, records: Int32, bytes: Int64, at: SimTime) {
    observe(.request(store: store, upload: upload, records: records, bytes: bytes, at: at))
  }

  public func observePush(device: DeviceID, event: PushEvent, at: SimTime) {
    observe(.push(device: device, event: event, at: at))
  }
}

/// A sink that keeps every observation, for tests.
public final class ObservationLog: ObservationSink {
  public private(set) var observations: [Observation] = []
  public init() {}
  public func observe(_ observation: Observation) { observations.append(observation) }
}

/// What the stores hold when the run ends (spec §7–9 counters).
public struct FinalState: Sendable, Equatable {
  /// Records deleted in the public database that devices still show (deletes do not propagate).
  public var ghosts = 0
  /// Server records that repeat another live record's logical key (no unique constraints).
  public var duplicates = 0
  /// The server's value of the counter fields that received increments (summed).
  public var counterValue = 0
  /// Live contribution records at the server.
  public var contributions = 0
  /// (device, record) pairs a device cannot see because the record's model version is newer.
  public var hiddenRecords = 0
  public init() {}
}
