import SimKernel
import SimModel

/// Watches a run's observations and computes its metrics (spec §10). Never steers the model.
public final class MetricsRecorder: ObservationSink {
  struct WriteRecord {
    var store: StoreID
    var object: ObjectID
    var kind: EditKind
    var editedAt: SimTime
    var savedAt: SimTime?
    var committedAt: SimTime?
    var sequence: Int32 = 0
    var activity = ActivityID.none
    var superseded = false
    var lostUpdate = false
    var lost = false
    var lossReason: LossReason?
  }

  /// One scheduler activity as the decision log saw it.
  ///
  /// 48 bytes: its optional times are kept as nanoseconds with `Int64.min` for none (an optional
  /// time takes 16 at an 8-byte alignment), and the intervals a policy blocked it are kept apart
  /// (`MetricsRecorder.blocked(of:)`): few activities have any, and each had its own array. A
  /// public-database day at a million installs keeps eight million (64 bytes each before).
  public struct ActivityRecord: Sendable {
    public var requestedAt: SimTime
    private var approvedNanoseconds = Int64.min
    private var startedNanoseconds = Int64.min
    private var finishedNanoseconds = Int64.min
    public var store: StoreID
    public var records: Int32 = 0
    /// The store's previous activity of the same kind (-1 for none): a retry chain's earlier
    /// links, whose waits held the rows the last link carried.
    public var previousOfKind: Int32 = -1
    public var kind: ActivityKind
    public var trigger: ActivityTrigger
    public var succeeded = false
    /// Why the scheduler dropped it before it ran, if it did.
    public var cancelled: CancelReason?

    init(requestedAt: SimTime, kind: ActivityKind, trigger: ActivityTrigger, store: StoreID) {
      self.requestedAt = requestedAt
      self.kind = kind
      self.trigger = trigger
      self.store = store
    }

    public var approvedAt: SimTime? {
      get { Self.time(approvedNanoseconds) }
      set { approvedNanoseconds = newValue?.nanoseconds ?? .min }
    }
    public var startedAt: SimTime? {
      get { Self.time(startedNanoseconds) }
      set { startedNanoseconds = newValue?.nanoseconds ?? .min }
    }
    public var finishedAt: SimTime? {
      get { Self.time(finishedNanoseconds) }
      set { finishedNanoseconds = newValue?.nanoseconds ?? .min }
    }

    @inline(__always) static func time(_ nanoseconds: Int64) -> SimTime? {
      nanoseconds == .min ? nil : SimTime(nanoseconds: nanoseconds)
    }
  }

  /// An interval during which a policy (by index) refused an activity.
  public typealias BlockedInterval = (policy: Int32, from: SimTime, to: SimTime)

  /// Every interval during which a policy refused the activity at `index`, in time order.
  public func blocked(of index: Int) -> [BlockedInterval] { blockedIntervals[Int32(index)] ?? [] }

  /// The device a store belongs to.
  public func device(of store: StoreID) -> DeviceID { storeDevice[store.index] }

  /// The zone a store mirrors (`.none` for a local-only store).
  public func zone(of store: StoreID) -> ZoneID { ZoneID(Int(storeZone[store.index])) }

  /// What can block an activity, by index: the scheduler's policies, then the wait causes.
  public let policyNames: [String]
  /// The errors the run's summary reports (`errors.*` columns).
  public let reportedErrors: [CloudError]
  /// The wait causes `policyNames` ends with (`WorldSpec.reportedCauses`).
  public let reportedCauses: [WaitCause]
  /// Every observation so far, hashed: what the run's fingerprint adds to the trajectory's.
  public private(set) var digest = ObservationDigest()
  var storeDevice: [DeviceID] = []
  var storeZone: [Int32] = []
  var zoneStores: [[StoreID]] = []
  var writes: [WriteRecord] = []
  var writeIndex: [Int32] = []  // WriteID.raw → index into `writes`, or −1
  public internal(set) var activities: [ActivityRecord] = []
  /// The tally's arrays for an observer's imports and refreshes, kept for their capacity.
  var observerReach = ObserverReach()
  /// Per activity that a policy refused, the intervals it did (looked up by activity, never walked).
  var blockedIntervals: [Int32: [BlockedInterval]] = [:]
  /// Each store's newest export (slot 2·store) and import (2·store + 1), for `previousOfKind`.
  var lastOfKind: [Int32] = []
  /// Per store, its imports' pages and its UI refreshes.
  let observerLog = ObserverLog()
  public internal(set) var counters = RunCounters()
  public internal(set) var converged = false
  public internal(set) var finalState = FinalState()
  public internal(set) var endTime = SimTime.zero
  var lastEditAt: SimTime?
  /// (store, record) pairs an import left out for a newer model version (membership only).
  var hidden = Set<Int64>()
  var lastStoreChangeAt = SimTime.zero
  /// A device's power and network after a change.
  public struct ConditionChange: Sendable {
    public var device: DeviceID
    public var batteryPercent: Double
    public var pluggedIn: Bool
    public var lowPowerMode: Bool
    public var online: Bool
    public var at: SimTime
  }

  /// Condition changes, in time order (kept when `keepsTimeline`).
  public internal(set) var conditionChanges: [ConditionChange] = []
  /// Changes of the declared conditions after the built-in ones (`ConditionTable`), in time order:
  /// the condition's position in the table and its new value (kept when `keepsTimeline`).
  public internal(set) var levelChanges: [(device: DeviceID, condition: Int, value: Double, at: SimTime)] = []
  /// Every processed event, when tracing.
  public internal(set) var trace: [(kind: UInt32, entity: UInt32, at: SimTime)] = []
  /// App-state changes per device, for the timeline file (kept when `keepsTimeline`).
  public internal(set) var appStates: [(device: DeviceID, state: AppState, at: SimTime)] = []
  /// Whether every app-state, condition and level change is kept: only `timeline.csv` reads
  /// them, and a public-database day at a million installs has 12 million app-state changes
  /// (270 MB with the array's spare capacity) and a million conditions (34 MB), so a run that
  /// does not write the file keeps none.
  public var keepsTimeline = true
  /// Per device: its last push event, app state and connectivity (for rows stuck at the end).
  var lastPush: [PushEvent?] = []
  /// Per device: every push event, in time order (the notify stage's causes are read from them).
  var pushLog: [[(event: PushEvent, at: SimTime)]] = []
  /// Whether every push event is kept per device: only `latency.csv`'s notify split reads them,
  /// and a fleet where every device hears every write makes millions (a third of the memory of
  /// 1,000 devices on one account), so a run that does not write the file keeps none.
  public var keepsPushLog = true
  /// The fixed hand-over from APNs to the device (`push.deliveryLatency`), to split it from fan-out.
  public var pushDeliveryLatency = SimDuration.zero
  var lastAppState: [AppState?] = []
  /// Each device's app state at the start of the run, by device (`DeviceSpec.initialAppState`):
  /// the model announces only a foreground start, and a row's holds read the others.
  public var initialAppStates: [AppState] {
    get { holdLog.initialAppStates }
    set { holdLog.initialAppStates = newValue }
  }
  /// What held rows' exports and imports when no activity stood behind them (kept with the push
  /// log, as only the rows' splits read it).
  var holdLog = HoldLog()
  var lastOnline: [Bool] = []
  /// Per store, whether its zone is the public database (polled, not pushed).
  var storeIsPublic: [Bool] = []
  /// Per store, whether sync was turned off (a failed setup).
  var storeDisabled: [Bool] = []
  /// Each store's objects at the end, when asked for (`objects.csv`).
  public internal(set) var objectStates: [ObjectStateRow] = []
  /// One store's object at the end: whether it holds it live and which write, beside the server.
  public typealias ObjectStateRow = (
    store: StoreID, object: ObjectID, entity: Int32, held: Bool, write: WriteID, serverLive: Bool,
    serverWrite: WriteID
  )

  /// Records a run whose scheduler evaluates `policyNames`, in order; the wait causes follow them
  /// (`WaitCause`), as the model numbers them.
  /// `tables`, when given, are an earlier recorder's (`takeTables()`), for their storage.
  public init(
    policyNames: [String], reportedErrors: [CloudError] = CloudError.alwaysReported,
    reportedCauses: [WaitCause] = WaitCause.alwaysReported, tables: RecorderTables? = nil
  ) {
    // `takeTables()` empties them; nothing else makes tables that hold anything.
    if let tables {
      writes = tables.writes
      writeIndex = tables.writeIndex
      activities = tables.activities
      observerReach = tables.reach
    }
    let policyNames = policyNames + reportedCauses.map(\.name)
    self.policyNames = policyNames
    self.reportedCauses = reportedCauses
    self.reportedErrors = reportedErrors
    counters.blockedCount = [Int](repeating: 0, count: policyNames.count)
    counters.blockedTotal = [SimDuration](repeating: .zero, count: policyNames.count)
    counters.blockedLongest = [SimDuration](repeating: .zero, count: policyNames.count)
  }

  /// Records one observation and folds it into the digest.
  ///
  /// The model hands the commonest observations (an activity's steps, a write's, an import's
  /// pages and refreshes, requests, pushes) to the functions below directly, with their fields
  /// (`ObservationSink`); an observation given here as a value goes to the same function.
  public func observe(_ observation: Observation) {
    switch observation {
    case .activityRequested(let activity, let kind, let store, let trigger, let at):
      observeActivityRequested(activity: activity, kind: kind, store: store, trigger: trigger, at: at)
    case .activityApproved(let activity, let at): observeActivityApproved(activity: activity, at: at)
    case .activityStarted(let activity, let at): observeActivityStarted(activity: activity, at: at)
    case .activityFinished(let activity, let at, let records, let succeeded):
      observeActivityFinished(activity: activity, at: at, records: records, succeeded: succeeded)
    case .imported(let store, let activity, let token, let records, let at):
      observeImported(store: store, activity: activity, token: token, records: records, at: at)
    case .visible(let store, let token, let at): observeVisible(store: store, token: token, at: at)
    case .request(let store, let upload, let records, let bytes, let at):
      observeRequest(store: store, upload: upload, records: records, bytes: bytes, at: at)
    case .requestRefused(_, let upload, let records, let bytes, _):
      counters.countRequest(upload: upload, records: Int(records), bytes: bytes)
    case .push(let device, let event, let at): observePush(device: device, event: event, at: at)
    case .edited(let write, let store, let object, let field, let kind, let at):
      observeEdited(write: write, store: store, object: object, field: field, kind: kind, at: at)
    case .saved(let write, let at): observeSaved(write: write, at: at)
    case .committed(let write, let activity, let sequence, let at):
      observeCommitted(write: write, activity: activity, sequence: sequence, at: at)
    default: observeOther(observation)
    }
  }

  public func observeActivityRequested(
    activity: ActivityID, kind: ActivityKind, store: StoreID, trigger: ActivityTrigger, at: SimTime
  ) {
    digest.activityRequested(activity, kind: kind, store: store, trigger: trigger, at: at)
    precondition(activity.index == activities.count, "activities are announced in id order")
    var record = ActivityRecord(requestedAt: at, kind: kind, trigger: trigger, store: store)
    let slot = store.index * 2 + (kind == .export ? 0 : 1)
    if slot >= lastOfKind.count {
      lastOfKind.append(contentsOf: repeatElement(-1, count: slot + 1 - lastOfKind.count))
    }
    record.previousOfKind = lastOfKind[slot]
    if holdLog.firstActivityAt[store.index] == nil { holdLog.firstActivityAt[store.index] = at }
    lastOfKind[slot] = Int32(activity.index)
    activities.append(record)
  }

  public func observeActivityApproved(activity: ActivityID, at: SimTime) {
    digest.activityApproved(activity, at: at)
    activities[activity.index].approvedAt = at
  }

  public func observeActivityStarted(activity: ActivityID, at: SimTime) {
    digest.activityStarted(activity, at: at)
    activities[activity.index].startedAt = at
  }

  public func observeActivityFinished(activity: ActivityID, at: SimTime, records: Int32, succeeded: Bool) {
    digest.activityFinished(activity, at: at, records: records, succeeded: succeeded)
    activities[activity.index].finishedAt = at
    activities[activity.index].succeeded = succeeded
    activities[activity.index].records = records
    counters.countActivity(activities[activity.index].kind, succeeded: succeeded)
  }

  public func observeImported(store: StoreID, activity: ActivityID, token: Int32, records: Int32, at: SimTime) {
    digest.imported(store, activity: activity, token: token, records: records, at: at)
    observerLog.addPage(store: store, activity: activity, token: token, at: at)
    if records > 0 { lastStoreChangeAt = max(lastStoreChangeAt, at) }
  }

  public func observeVisible(store: StoreID, token: Int32, at: SimTime) {
    digest.visible(store, token: token, at: at)
    observerLog.addRefresh(store: store, token: token, at: at)
  }

  public func observeRequest(store: StoreID, upload: Bool, records: Int32, bytes: Int64, at: SimTime) {
    digest.request(store, upload: upload, records: records, bytes: bytes, at: at)
    counters.countRequest(upload: upload, records: Int(records), bytes: bytes)
  }

  public func observePush(device: DeviceID, event: PushEvent, at: SimTime) {
    digest.push(device, event: event, at: at)
    counters.pushes[Int(event.position)] += 1
    ensureDevice(device)
    lastPush[device.index] = event
    if keepsPushLog { pushLog[device.index].append((event, at)) }
  }

  public func observeEdited(
    write: WriteID, store: StoreID, object: ObjectID, field: Int32, kind: EditKind, at: SimTime
  ) {
    digest.edited(write, store: store, object: object, field: field, kind: kind, at: at)
    while writeIndex.count <= write.index { writeIndex.append(-1) }
    writeIndex[write.index] = Int32(writes.count)
    writes.append(WriteRecord(store: store, object: object, kind: kind, editedAt: at))
    lastEditAt = at
  }

  public func observeSaved(write: WriteID, at: SimTime) {
    digest.saved(write, at: at)
    update(write) { $0.savedAt = at }
  }

  public func observeCommitted(write: WriteID, activity: ActivityID, sequence: Int32, at: SimTime) {
    digest.committed(write, activity: activity, sequence: sequence, at: at)
    update(write) {
      $0.committedAt = at
      $0.sequence = sequence
      $0.activity = activity
    }
    lastStoreChangeAt = max(lastStoreChangeAt, at)
  }

  /// The other observations: the layout, the rest of an activity's and a write's fates, devices'
  /// states, failures and the run's end.
  func observeOther(_ observation: Observation) {
    digest.add(observation)
    switch observation {
    case .storeCreated(let store, let device, let zone, let scope):
      precondition(store.index == storeDevice.count, "stores are announced in id order")
      storeDevice.append(device)
      storeIsPublic.append(scope == .public)
      storeDisabled.append(false)
      holdLog.ensure(store: store)
      ensureDevice(device)
      storeZone.append(zone.raw)
      observerLog.addStore()
      if zone.exists {
        while zoneStores.count <= zone.index { zoneStores.append([]) }
        zoneStores[zone.index].append(store)
      }
    case .supersededLocally(let write, _):
      update(write) { $0.superseded = true }
    case .lostUpdate(let write, _):
      update(write) { $0.lostUpdate = true }
      counters.lostUpdates += 1
    case .activityBlocked(let activity, let policy, let from, let to):
      blockedIntervals[activity.raw, default: []].append((policy, from, to))
      let length = to - from
      counters.blockedCount[Int(policy)] += 1
      counters.blockedTotal[Int(policy)] = counters.blockedTotal[Int(policy)].saturatingAdding(length)
      counters.blockedLongest[Int(policy)] = max(counters.blockedLongest[Int(policy)], length)
    case .activityCancelled(let activity, let reason, let at):
      activities[activity.index].finishedAt = at
      activities[activity.index].cancelled = reason
    case .appState(let device, let state, let at):
      if keepsTimeline { appStates.append((device, state, at)) }
      ensureDevice(device)
      if keepsPushLog { holdLog.appendAppState(state, at: at, device: device) }
      lastAppState[device.index] = state
    case .conditions(let device, let battery, let plugged, let lowPower, let online, let at):
      ensureDevice(device)
      if keepsPushLog && online != lastOnline[device.index] { holdLog.online[device.index].append((online, at)) }
      lastOnline[device.index] = online
      if keepsTimeline {
        conditionChanges.append(
          ConditionChange(
            device: device, batteryPercent: battery, pluggedIn: plugged, lowPowerMode: lowPower, online: online, at: at)
        )
      }
    case .level(let device, let condition, let value, let at):
      if keepsTimeline { levelChanges.append((device, Int(condition), value, at)) }
    case .event(let kind, let entity, let at):
      trace.append((kind, entity, at))
    case .cloudError(_, let error, let retryAfter, _):
      counters.cloudErrors[Int(error.position)] += 1
      if let retryAfter, error == .serviceUnavailable || error == .requestRateLimited {
        counters.retryAfterCount += 1
        counters.retryAfterTotal = counters.retryAfterTotal.saturatingAdding(retryAfter)
        counters.retryAfterLongest = max(counters.retryAfterLongest, retryAfter)
      }
    case .reset(let store, _, let at):
      counters.resets += 1
      holdLog.resets[store.index].append((at, nil))
    case .resetEnded(let store, let at):
      if let open = holdLog.resets[store.index].indices.last, holdLog.resets[store.index][open].to == nil {
        holdLog.resets[store.index][open].to = at
      }
    case .lostWrite(let write, let reason, let at):
      holdLog.lostAt[write] = at
      update(write) {
        $0.lost = true
        $0.lossReason = reason
      }
    case .setupFailed(let store, _, let at):
      counters.setupFailures += 1
      if holdLog.disabledAt[store.index] == nil { holdLog.disabledAt[store.index] = at }
      storeDisabled[store.index] = true
    case .localEdit:
      counters.localEdits += 1
    case .hiddenRecord(let store, let object):
      hidden.insert(Int64(store.raw) << 32 | Int64(object.raw))
    case .orphanWindow(_, _, let from, let to):
      counters.orphanWindows += 1
      counters.orphanTotal = counters.orphanTotal.saturatingAdding(to - from)
      counters.orphanLongest = max(counters.orphanLongest, to - from)
    case .finalState(let state):
      finalState = state
    case .objectState(let store, let object, let entity, let held, let write, let serverLive, let serverWrite):
      objectStates.append((store, object, entity, held, write, serverLive, serverWrite))
    case .runEnded(let at, let converged):
      endTime = at
      self.converged = converged
    default:
      break
    }
  }

  func ensureDevice(_ device: DeviceID) {
    while lastPush.count <= device.index {
      lastPush.append(nil)
      pushLog.append([])
      lastAppState.append(nil)
      lastOnline.append(true)
    }
    holdLog.ensure(device: device)
  }

  func update(_ write: WriteID, _ change: (inout WriteRecord) -> Void) {
    guard write.index < writeIndex.count, writeIndex[write.index] >= 0 else { return }
    change(&writes[Int(writeIndex[write.index])])
  }

  /// Convergence time: from the last write to the last store change, or nil if never converged.
  public var convergenceTime: SimDuration? {
    guard converged else { return nil }
    guard let lastEditAt else { return .zero }
    return max(.zero, lastStoreChangeAt - lastEditAt)
  }

  /// Number of writes made.
  public var writeCount: Int { writes.count }
}

extension MetricsRecorder {
  /// The longest export and the longest import that carried records (start to end), by their
  /// metric prefix (`exports`, `imports`); a kind with none is left out.
  public func longestActivities() -> [(name: String, longest: (duration: SimDuration, startedAt: SimTime))] {
    // Two running maxima, not a table keyed by kind: a fleet asks once per account.
    var export: (duration: SimDuration, startedAt: SimTime)?
    var `import`: (duration: SimDuration, startedAt: SimTime)?
    for activity in activities where activity.records > 0 {
      guard let start = activity.startedAt, let end = activity.finishedAt else { continue }
      switch activity.kind {
      case .export: if end - start > export?.duration ?? SimDuration(nanoseconds: -1) { export = (end - start, start) }
      case .import:
        if end - start > `import`?.duration ?? SimDuration(nanoseconds: -1) { `import` = (end - start, start) }
      case .setup: break
      }
    }
    return [("exports", export), ("imports", `import`)].compactMap { name, longest in longest.map { (name, $0) } }
  }
}
