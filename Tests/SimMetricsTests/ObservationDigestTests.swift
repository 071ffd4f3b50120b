import SimKernel
import SimModel
import Testing

@testable import SimMetrics

/// The fingerprint must move with every change of state a run can show: each kind of observation,
/// and each of its fields, changes the digest.
struct ObservationDigestTests {
  /// The byte a case is stored in is its position in `allCases`, for every enum the digest codes
  /// and the counters index by (`position` reads the byte).
  @Test func aCasesStoredByteIsItsPositionInAllCases() {
    func positions<Value: CaseIterable & RawRepresentable>(_: Value.Type) -> Bool {
      Value.allCases.enumerated().allSatisfy { index, value in Int(value.position) == index }
    }
    #expect(positions(PushEvent.self) && positions(CloudError.self) && positions(AppState.self))
    #expect(positions(ActivityKind.self) && positions(ActivityTrigger.self) && positions(DatabaseScope.self))
    #expect(positions(EditKind.self) && positions(CancelReason.self) && positions(ResetReason.self))
    #expect(positions(LossReason.self) && positions(WriteOutcome.self))
    #expect(
      PushEvent.deferred.position == 7 && Int(CloudError.allCases.last!.position) == CloudError.allCases.count - 1)
  }

  static let t0 = SimTime(nanoseconds: 1_000)
  static let t1 = SimTime(nanoseconds: 2_000)
  static let s = StoreID(1), d = DeviceID(1), w = WriteID(1), a = ActivityID(1), o = ObjectID(1)

  /// Per kind of observation: a base value, then one copy per field with that field changed.
  static let families: [(name: String, variants: [Observation])] = [
    (
      "storeCreated",
      [
        .storeCreated(store: s, device: d, zone: ZoneID(1), scope: .private),
        .storeCreated(store: StoreID(2), device: d, zone: ZoneID(1), scope: .private),
        .storeCreated(store: s, device: DeviceID(2), zone: ZoneID(1), scope: .private),
        .storeCreated(store: s, device: d, zone: ZoneID(2), scope: .private),
        .storeCreated(store: s, device: d, zone: ZoneID(1), scope: .shared),
        .storeCreated(store: s, device: d, zone: ZoneID(1), scope: nil),
      ]
    ),
    (
      "localEdit",
      [
        .localEdit(device: d, entity: 1, at: t0), .localEdit(device: DeviceID(2), entity: 1, at: t0),
        .localEdit(device: d, entity: 2, at: t0), .localEdit(device: d, entity: 1, at: t1),
      ]
    ),
    (
      "edited",
      [
        .edited(write: w, store: s, object: o, field: 1, kind: .update, at: t0),
        .edited(write: WriteID(2), store: s, object: o, field: 1, kind: .update, at: t0),
        .edited(write: w, store: StoreID(2), object: o, field: 1, kind: .update, at: t0),
        .edited(write: w, store: s, object: ObjectID(2), field: 1, kind: .update, at: t0),
        .edited(write: w, store: s, object: o, field: 2, kind: .update, at: t0),
        .edited(write: w, store: s, object: o, field: 1, kind: .delete, at: t0),
        .edited(write: w, store: s, object: o, field: 1, kind: .update, at: t1),
      ]
    ),
    ("saved", [.saved(write: w, at: t0), .saved(write: WriteID(2), at: t0), .saved(write: w, at: t1)]),
    (
      "supersededLocally",
      [
        .supersededLocally(write: w, by: WriteID(5)), .supersededLocally(write: WriteID(2), by: WriteID(5)),
        .supersededLocally(write: w, by: WriteID(6)),
      ]
    ),
    (
      "committed",
      [
        .committed(write: w, activity: a, sequence: 1, at: t0),
        .committed(write: WriteID(2), activity: a, sequence: 1, at: t0),
        .committed(write: w, activity: ActivityID(2), sequence: 1, at: t0),
        .committed(write: w, activity: a, sequence: 2, at: t0), .committed(write: w, activity: a, sequence: 1, at: t1),
      ]
    ),
    (
      "lostUpdate",
      [
        .lostUpdate(write: w, by: WriteID(5)), .lostUpdate(write: WriteID(2), by: WriteID(5)),
        .lostUpdate(write: w, by: WriteID(6)),
      ]
    ),
    (
      "activityRequested",
      [
        .activityRequested(activity: a, kind: .export, store: s, trigger: .save, at: t0),
        .activityRequested(activity: ActivityID(2), kind: .export, store: s, trigger: .save, at: t0),
        .activityRequested(activity: a, kind: .import, store: s, trigger: .save, at: t0),
        .activityRequested(activity: a, kind: .export, store: StoreID(2), trigger: .save, at: t0),
        .activityRequested(activity: a, kind: .export, store: s, trigger: .push, at: t0),
        .activityRequested(activity: a, kind: .export, store: s, trigger: .save, at: t1),
      ]
    ),
    (
      "activityBlocked",
      [
        .activityBlocked(activity: a, policy: 1, from: t0, to: t1),
        .activityBlocked(activity: ActivityID(2), policy: 1, from: t0, to: t1),
        .activityBlocked(activity: a, policy: 2, from: t0, to: t1),
        .activityBlocked(activity: a, policy: 1, from: t1, to: t1),
        .activityBlocked(activity: a, policy: 1, from: t0, to: SimTime(nanoseconds: 3_000)),
      ]
    ),
    (
      "activityApproved",
      [
        .activityApproved(activity: a, at: t0), .activityApproved(activity: ActivityID(2), at: t0),
        .activityApproved(activity: a, at: t1),
      ]
    ),
    (
      "activityStarted",
      [
        .activityStarted(activity: a, at: t0), .activityStarted(activity: ActivityID(2), at: t0),
        .activityStarted(activity: a, at: t1),
      ]
    ),
    (
      "activityCancelled",
      [
        .activityCancelled(activity: a, reason: .storeDisabled, at: t0),
        .activityCancelled(activity: ActivityID(2), reason: .storeDisabled, at: t0),
        .activityCancelled(activity: a, reason: .appTerminated, at: t0),
        .activityCancelled(activity: a, reason: .storeDisabled, at: t1),
      ]
    ),
    (
      "activityFinished",
      [
        .activityFinished(activity: a, at: t0, records: 1, succeeded: true),
        .activityFinished(activity: ActivityID(2), at: t0, records: 1, succeeded: true),
        .activityFinished(activity: a, at: t1, records: 1, succeeded: true),
        .activityFinished(activity: a, at: t0, records: 2, succeeded: true),
        .activityFinished(activity: a, at: t0, records: 1, succeeded: false),
      ]
    ),
    (
      "imported",
      [
        .imported(store: s, activity: a, token: 1, records: 1, at: t0),
        .imported(store: StoreID(2), activity: a, token: 1, records: 1, at: t0),
        .imported(store: s, activity: ActivityID(2), token: 1, records: 1, at: t0),
        .imported(store: s, activity: a, token: 2, records: 1, at: t0),
        .imported(store: s, activity: a, token: 1, records: 2, at: t0),
        .imported(store: s, activity: a, token: 1, records: 1, at: t1),
      ]
    ),
    (
      "visible",
      [
        .visible(store: s, token: 1, at: t0), .visible(store: StoreID(2), token: 1, at: t0),
        .visible(store: s, token: 2, at: t0), .visible(store: s, token: 1, at: t1),
      ]
    ),
    (
      "request",
      [
        .request(store: s, upload: true, records: 1, bytes: 10, at: t0),
        .request(store: StoreID(2), upload: true, records: 1, bytes: 10, at: t0),
        .request(store: s, upload: false, records: 1, bytes: 10, at: t0),
        .request(store: s, upload: true, records: 2, bytes: 10, at: t0),
        .request(store: s, upload: true, records: 1, bytes: 11, at: t0),
        .request(store: s, upload: true, records: 1, bytes: 10, at: t1),
      ]
    ),
    (
      "cloudError",
      [
        .cloudError(store: s, error: .zoneBusy, retryAfter: nil, at: t0),
        .cloudError(store: StoreID(2), error: .zoneBusy, retryAfter: nil, at: t0),
        .cloudError(store: s, error: .quotaExceeded, retryAfter: nil, at: t0),
        .cloudError(store: s, error: .zoneBusy, retryAfter: .seconds(1), at: t0),
        .cloudError(store: s, error: .zoneBusy, retryAfter: nil, at: t1),
      ]
    ),
    (
      "reset",
      [
        .reset(store: s, reason: .accountChange, at: t0), .reset(store: StoreID(2), reason: .accountChange, at: t0),
        .reset(store: s, reason: .tokenExpired, at: t0), .reset(store: s, reason: .accountChange, at: t1),
      ]
    ),
    (
      "resetEnded",
      [.resetEnded(store: s, at: t0), .resetEnded(store: StoreID(2), at: t0), .resetEnded(store: s, at: t1)]
    ),
    (
      "lostWrite",
      [
        .lostWrite(write: w, reason: .savedDuringReset, at: t0),
        .lostWrite(write: WriteID(2), reason: .savedDuringReset, at: t0),
        .lostWrite(write: w, reason: LossReason.allCases.last!, at: t0),
        .lostWrite(write: w, reason: .savedDuringReset, at: t1),
      ]
    ),
    (
      "setupFailed",
      [
        .setupFailed(store: s, code: 134410, at: t0), .setupFailed(store: StoreID(2), code: 134410, at: t0),
        .setupFailed(store: s, code: 1, at: t0), .setupFailed(store: s, code: 134410, at: t1),
      ]
    ),
    (
      "orphanWindow",
      [
        .orphanWindow(store: s, child: o, from: t0, to: t1),
        .orphanWindow(store: StoreID(2), child: o, from: t0, to: t1),
        .orphanWindow(store: s, child: ObjectID(2), from: t0, to: t1),
        .orphanWindow(store: s, child: o, from: t1, to: t1),
        .orphanWindow(store: s, child: o, from: t0, to: t0),
      ]
    ),
    (
      "hiddenRecord",
      [
        .hiddenRecord(store: s, object: o), .hiddenRecord(store: StoreID(2), object: o),
        .hiddenRecord(store: s, object: ObjectID(2)),
      ]
    ),
    ("finalState", finalStates()),
    (
      "objectState",
      [
        .objectState(store: s, object: o, entity: 1, held: true, write: w, serverLive: true, serverWrite: w),
        .objectState(store: StoreID(2), object: o, entity: 1, held: true, write: w, serverLive: true, serverWrite: w),
        .objectState(store: s, object: ObjectID(2), entity: 1, held: true, write: w, serverLive: true, serverWrite: w),
        .objectState(store: s, object: o, entity: 2, held: true, write: w, serverLive: true, serverWrite: w),
        .objectState(store: s, object: o, entity: 1, held: false, write: w, serverLive: true, serverWrite: w),
        .objectState(store: s, object: o, entity: 1, held: true, write: WriteID(2), serverLive: true, serverWrite: w),
        .objectState(store: s, object: o, entity: 1, held: true, write: w, serverLive: false, serverWrite: w),
        .objectState(store: s, object: o, entity: 1, held: true, write: w, serverLive: true, serverWrite: WriteID(2)),
      ]
    ),
    (
      "push",
      PushEvent.allCases.map { .push(device: d, event: $0, at: t0) } + [
        .push(device: DeviceID(2), event: .sent, at: t0), .push(device: d, event: .sent, at: t1),
      ]
    ),
    (
      "appState",
      AppState.allCases.map { .appState(device: d, state: $0, at: t0) } + [
        .appState(device: DeviceID(2), state: .foreground, at: t0), .appState(device: d, state: .foreground, at: t1),
      ]
    ),
    (
      "conditions",
      [
        .conditions(device: d, batteryPercent: 50, pluggedIn: false, lowPowerMode: false, online: true, at: t0),
        .conditions(
          device: DeviceID(2), batteryPercent: 50, pluggedIn: false, lowPowerMode: false, online: true, at: t0),
        .conditions(device: d, batteryPercent: 49.5, pluggedIn: false, lowPowerMode: false, online: true, at: t0),
        .conditions(device: d, batteryPercent: 50, pluggedIn: true, lowPowerMode: false, online: true, at: t0),
        .conditions(device: d, batteryPercent: 50, pluggedIn: false, lowPowerMode: true, online: true, at: t0),
        .conditions(device: d, batteryPercent: 50, pluggedIn: false, lowPowerMode: false, online: false, at: t0),
        .conditions(device: d, batteryPercent: 50, pluggedIn: false, lowPowerMode: false, online: true, at: t1),
      ]
    ),
    (
      "runEnded",
      [.runEnded(at: t0, converged: true), .runEnded(at: t1, converged: true), .runEnded(at: t0, converged: false)]
    ),
  ]

  static func finalStates() -> [Observation] {
    var states: [FinalState] = [FinalState()]
    for field in 0..<5 {
      var state = FinalState()
      switch field {
      case 0: state.ghosts = 1
      case 1: state.duplicates = 1
      case 2: state.counterValue = 1
      case 3: state.contributions = 1
      default: state.hiddenRecords = 1
      }
      states.append(state)
    }
    return states.map { .finalState($0) }
  }

  /// The digest of a short run: a fixed prefix, then `observation`.
  static func digest(_ observation: Observation) -> UInt64 {
    var digest = ObservationDigest()
    digest.add(.runEnded(at: t0, converged: false))
    digest.add(observation)
    return digest.combined(with: TrajectoryFingerprint()).value
  }

  @Test func everyKindAndEveryFieldOfAnObservationMovesTheFingerprint() {
    var seen: [UInt64: String] = [:]
    var total = 0
    for family in Self.families {
      for (index, observation) in family.variants.enumerated() {
        let value = Self.digest(observation)
        let label = "\(family.name) variant \(index)"
        #expect(seen[value] == nil, "\(label) has the same fingerprint as \(seen[value] ?? "")")
        seen[value] = label
        total += 1
      }
    }
    // Every case of Observation except the trace's `event` has a family here (29 kinds).
    #expect(Self.families.count == 29)
    #expect(total == seen.count)
    print("observation variants with distinct fingerprints: \(seen.count) of \(total)")
  }

  @Test func traceEventsAndOrderDoNotAndDoCount() {
    var plain = ObservationDigest()
    plain.add(.saved(write: Self.w, at: Self.t0))
    var traced = ObservationDigest()
    traced.add(.event(kind: 3, entity: 4, at: Self.t0))
    traced.add(.saved(write: Self.w, at: Self.t0))
    #expect(plain.combined(with: TrajectoryFingerprint()) == traced.combined(with: TrajectoryFingerprint()))
    // Order matters: the same two observations swapped are another run.
    var ab = ObservationDigest(), ba = ObservationDigest()
    ab.add(.saved(write: Self.w, at: Self.t0))
    ab.add(.saved(write: WriteID(2), at: Self.t0))
    ba.add(.saved(write: WriteID(2), at: Self.t0))
    ba.add(.saved(write: Self.w, at: Self.t0))
    #expect(ab.combined(with: TrajectoryFingerprint()) != ba.combined(with: TrajectoryFingerprint()))
    // A repeated observation is a change too (a duplicate the first one hid).
    var twice = plain
    twice.add(.saved(write: Self.w, at: Self.t0))
    #expect(twice.combined(with: TrajectoryFingerprint()) != plain.combined(with: TrajectoryFingerprint()))
  }
}
