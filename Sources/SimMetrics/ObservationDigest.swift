import SimKernel
import SimModel

/// A 64-bit hash over every observation a run emits, in order, with all of its fields.
///
/// The kernel's trajectory fingerprint sees only which events ran and when; two runs can process
/// the same events and still differ in what they did (a deduplication that deletes a record, a
/// push held instead of discarded). Every counter and every CSV row is computed from
/// observations, so a difference in any of them is a difference here. Trace events are left out:
/// `--trace` does not change what a run did.
public struct ObservationDigest: Sendable {
  private var hash = TrajectoryFingerprint()
  private var count: Int64 = 0

  public init() {}

  /// The digest's value, mixed with the trajectory's (the run's fingerprint).
  public func combined(with trajectory: TrajectoryFingerprint) -> TrajectoryFingerprint {
    var result = trajectory
    result.add(
      time: count, kind: UInt32(truncatingIfNeeded: hash.value >> 32), entity: UInt32(truncatingIfNeeded: hash.value))
    return result
  }

  /// Folds one observation into the digest.
  ///
  /// Inlined into the recorder's switch over the less common observations
  /// (`MetricsRecorder.observeOther`); the commonest, the recorder folds through their own
  /// functions below with the fields it has read.
  @inline(__always) public mutating func add(_ observation: Observation) {
    switch observation {
    case .storeCreated(let store, let device, let zone, let scope):
      fold(1, id(store), id(device), id(zone), Int64(scope.map(code) ?? 9))
    case .localEdit(let device, let entity, let at): fold(2, id(device), Int64(entity), at.nanoseconds)
    case .edited(let write, let store, let object, let field, let kind, let at):
      edited(write, store: store, object: object, field: field, kind: kind, at: at)
    case .saved(let write, let at): saved(write, at: at)
    case .supersededLocally(let write, let by): fold(5, id(write), id(by))
    case .committed(let write, let activity, let sequence, let at):
      committed(write, activity: activity, sequence: sequence, at: at)
    case .lostUpdate(let write, let by): fold(7, id(write), id(by))
    case .activityRequested(let activity, let kind, let store, let trigger, let at):
      activityRequested(activity, kind: kind, store: store, trigger: trigger, at: at)
    case .activityBlocked(let activity, let policy, let from, let to):
      fold(9, id(activity), Int64(policy), from.nanoseconds, to.nanoseconds)
    case .activityApproved(let activity, let at): activityApproved(activity, at: at)
    case .activityStarted(let activity, let at): activityStarted(activity, at: at)
    case .activityCancelled(let activity, let reason, let at):
      fold(12, id(activity), Int64(code(reason)), at.nanoseconds)
    case .activityFinished(let activity, let at, let records, let succeeded):
      activityFinished(activity, at: at, records: records, succeeded: succeeded)
    case .imported(let store, let activity, let token, let records, let at):
      imported(store, activity: activity, token: token, records: records, at: at)
    case .visible(let store, let token, let at): visible(store, token: token, at: at)
    case .request(let store, let upload, let records, let bytes, let at):
      request(store, upload: upload, records: records, bytes: bytes, at: at)
    case .requestRefused: break  // its cloudError is digested
    case .cloudError(let store, let error, let retryAfter, let at):
      fold(17, id(store), Int64(code(error)), retryAfter?.nanoseconds ?? -1, at.nanoseconds)
    case .reset(let store, let reason, let at): fold(18, id(store), Int64(code(reason)), at.nanoseconds)
    case .resetEnded(let store, let at): fold(19, id(store), at.nanoseconds)
    case .lostWrite(let write, let reason, let at): fold(20, id(write), Int64(code(reason)), at.nanoseconds)
    case .setupFailed(let store, let errorCode, let at): fold(21, id(store), Int64(errorCode), at.nanoseconds)
    case .orphanWindow(let store, let child, let from, let to):
      fold(22, id(store), id(child), from.nanoseconds, to.nanoseconds)
    case .hiddenRecord(let store, let object): fold(23, id(store), id(object))
    case .finalState(let state):
      fold(
        24, Int64(state.ghosts), Int64(state.duplicates), Int64(state.counterValue), Int64(state.contributions),
        Int64(state.hiddenRecords))
    case .objectState(let store, let object, let entity, let held, let write, let serverLive, let serverWrite):
      fold(
        25, id(store), id(object), Int64(entity) << 2 | (held ? 1 : 0) | (serverLive ? 2 : 0), id(write),
        id(serverWrite))
    case .push(let device, let event, let at): push(device, event: event, at: at)
    case .appState(let device, let state, let at): fold(27, id(device), Int64(code(state)), at.nanoseconds)
    case .conditions(let device, let battery, let plugged, let lowPower, let online, let at):
      let flags: Int64 = (plugged ? 1 : 0) | (lowPower ? 2 : 0) | (online ? 4 : 0)
      fold(28, id(device), flags, Int64(bitPattern: battery.bitPattern), at.nanoseconds)
    case .level(let device, let condition, let value, let at):
      fold(30, id(device), Int64(condition), Int64(bitPattern: value.bitPattern), at.nanoseconds)
    case .event: return
    case .runEnded(let at, let converged): fold(29, converged ? 1 : 0, at.nanoseconds)
    }
  }

  // The commonest observations, each folded by a function of its own that the recorder calls
  // with their fields (`MetricsRecorder.observeEdited` and its siblings, which the model calls
  // through `ObservationSink`): `add` folds them through the same functions.

  @inline(__always) mutating func edited(
    _ write: WriteID, store: StoreID, object: ObjectID, field: Int32, kind: EditKind, at: SimTime
  ) {
    fold(3, id(write), id(store), id(object), Int64(field) << 8 | Int64(code(kind)), at.nanoseconds)
  }

  @inline(__always) mutating func saved(_ write: WriteID, at: SimTime) { fold(4, id(write), at.nanoseconds) }

  @inline(__always) mutating func committed(_ write: WriteID, activity: ActivityID, sequence: Int32, at: SimTime) {
    fold(6, id(write), id(activity), Int64(sequence), at.nanoseconds)
  }

  @inline(__always) mutating func activityRequested(
    _ activity: ActivityID, kind: ActivityKind, store: StoreID, trigger: ActivityTrigger, at: SimTime
  ) {
    fold(8, id(activity), Int64(code(kind)) << 8 | Int64(code(trigger)), id(store), at.nanoseconds)
  }

  @inline(__always) mutating func activityApproved(_ activity: ActivityID, at: SimTime) {
    fold(10, id(activity), at.nanoseconds)
  }

  @inline(__always) mutating func activityStarted(_ activity: ActivityID, at: SimTime) {
    fold(11, id(activity), at.nanoseconds)
  }

  @inline(__always) mutating func activityFinished(
    _ activity: ActivityID, at: SimTime, records: Int32, succeeded: Bool
  ) {
    fold(13, id(activity), Int64(records), succeeded ? 1 : 0, at.nanoseconds)
  }

  @inline(__always) mutating func imported(
    _ store: StoreID, activity: ActivityID, token: Int32, records: Int32, at: SimTime
  ) {
    fold(14, id(store), id(activity), Int64(token), Int64(records), at.nanoseconds)
  }

  @inline(__always) mutating func visible(_ store: StoreID, token: Int32, at: SimTime) {
    fold(15, id(store), Int64(token), at.nanoseconds)
  }

  @inline(__always) mutating func request(_ store: StoreID, upload: Bool, records: Int32, bytes: Int64, at: SimTime) {
    fold(16, id(store), upload ? 1 : 0, Int64(records), bytes, at.nanoseconds)
  }

  @inline(__always) mutating func push(_ device: DeviceID, event: PushEvent, at: SimTime) {
    fold(26, id(device), Int64(code(event)), at.nanoseconds)
  }

  /// Folds one observation's kind and up to five of its fields, and counts it.
  ///
  /// The fields are mixed side by side into one word, each multiplied by its own odd constant and
  /// rotated to its own offset (so a change in any one field changes the word), and the word takes
  /// one round of the chain, which makes order count. Three chained rounds (one per pair of
  /// fields) waited on six multiplies in a row: a tenth of a fleet's run.
  @inline(__always)
  private mutating func fold(_ kind: UInt32, _ a: Int64, _ b: Int64 = 0, _ c: Int64 = 0, _ d: Int64 = 0, _ e: Int64 = 0)
  {
    let word =
      (UInt64(bitPattern: a) &* 0x9E37_79B9_7F4A_7C15)
      ^ Self.rotate(UInt64(bitPattern: b) &* 0xC2B2_AE3D_27D4_EB4F, 13)
      ^ Self.rotate(UInt64(bitPattern: c) &* 0x1656_67B1_9E37_79F9, 26)
      ^ Self.rotate(UInt64(bitPattern: d) &* 0x85EB_CA77_C2B2_AE63, 39)
      ^ Self.rotate(UInt64(bitPattern: e) &* 0x27D4_EB2F_1656_67C5, 52)
    hash.add(time: Int64(bitPattern: word), kind: kind, entity: UInt32(truncatingIfNeeded: word >> 32))
    count += 1
  }

  @inline(__always)
  private static func rotate(_ value: UInt64, _ k: UInt64) -> UInt64 { (value &<< k) | (value &>> (64 &- k)) }

  private func id<Tag>(_ value: TypedID<Tag>) -> Int64 { Int64(value.raw) }

  @inline(__always)
  private func code<Value: CaseIterable & RawRepresentable>(_ value: Value) -> UInt32 { UInt32(value.position) }
}
