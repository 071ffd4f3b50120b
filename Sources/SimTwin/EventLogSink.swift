import SimKernel
import SimModel

/// Watches a simulated run and keeps what a real app's logs would have said of it: the events of
/// SyncSim's event log and of the unified log (`docs/event-log.md`), on each device's clock
/// starting at `epoch`. It only watches (spec §10): the run is the same with it or without it.
public final class EventLogSink: ObservationSink {
  public private(set) var events: [LogEvent] = []
  /// Scheduler policies and wait causes, by the index `activityBlocked` gives.
  let policyNames: [String]
  let epoch: Int64
  let deliveryLatency: SimDuration
  var deviceOfStore: [Int] = []
  var storeOfWrite: [Int] = []
  var activities: [(kind: ActivityKind, device: Int, store: Int)] = []
  var appStates: [AppState?]
  var power: [(battery: Double, plugged: Bool, lowPower: Bool)?]
  /// The newest error of each store, told with its activity's end.
  var lastError: [String?] = []

  /// `epoch` is the wall-clock time of the run's start, in microseconds since 1970.
  public init(spec: WorldSpec, epoch: Int64) {
    policyNames = spec.scheduler.policies.map(\.name) + spec.reportedCauses.map(\.name)
    self.epoch = epoch
    deliveryLatency = spec.push.deliveryLatency
    appStates = Array(repeating: nil, count: spec.devices.count)
    power = Array(repeating: nil, count: spec.devices.count)
  }

  /// The default epoch: 2026-01-01 00:00 UTC, plus the run's clock start when it has one.
  public static func epoch(of spec: WorldSpec) -> Int64 {
    1_767_225_600_000_000 + (spec.clockStart?.nanoseconds ?? 0) / 1000
  }

  func time(_ at: SimTime) -> Int64 { epoch + at.nanoseconds / 1000 }

  func add(_ at: SimTime, _ device: Int, _ kind: LogEvent.Kind) {
    events.append(LogEvent(time: time(at), device: device, kind: kind))
  }

  /// The events in time order (blocks are told when they end, so they arrive late).
  public func sortedEvents() -> [LogEvent] { LogEvent.inTimeOrder(events) }

  static func work(_ kind: ActivityKind) -> LogEvent.Work {
    switch kind {
    case .export: .export
    case .import: .import
    case .setup: .setup
    }
  }

  public func observe(_ observation: Observation) {
    switch observation {
    case .storeCreated(let store, let device, _, _):
      set(&deviceOfStore, store.index, device.index, fill: -1)
    case .activityBlocked(let activity, let policy, let from, _):
      let (kind, device, _) = activities[activity.index]
      let name = policy >= 0 && Int(policy) < policyNames.count ? policyNames[Int(policy)] : "unknown"
      add(from, device, .decision(Self.work(kind), proceeds: false, refusedBy: [name]))
    case .activityCancelled: break
    case .cloudError(let store, let error, _, _):
      set(&lastError, store.index, "CKErrorDomain \(error.rawValue)", fill: nil)
    case .appState(let device, let state, let at):
      let previous = appStates[device.index]
      appStates[device.index] = state
      guard previous != nil, previous != state else { return }
      if previous == .notRunning { add(at, device.index, .appState("launch")) }
      switch state {
      case .notRunning: add(at, device.index, .appState("terminate"))
      case .foreground: add(at, device.index, .appState("foreground"))
      case .background: if previous != .suspended { add(at, device.index, .appState("background")) }
      case .suspended: if previous == .foreground { add(at, device.index, .appState("background")) }
      }
    case .conditions(let device, let battery, let plugged, let lowPower, _, let at):
      let previous = power[device.index]
      power[device.index] = (battery, plugged, lowPower)
      guard let previous, previous.battery != battery || previous.plugged != plugged || previous.lowPower != lowPower
      else { return }
      add(
        at, device.index,
        .power(
          batteryPercent: previous.battery != battery ? battery : nil,
          lowPowerMode: previous.lowPower != lowPower ? lowPower : nil,
          pluggedIn: previous.plugged != plugged ? plugged : nil))
    default: break
    }
  }

  public func observeEdited(write: WriteID, store: StoreID, object: ObjectID, field: Int32, kind: EditKind, at: SimTime) {
    set(&storeOfWrite, write.index, store.index, fill: -1)
  }

  public func observeSaved(write: WriteID, at: SimTime) {
    let store = write.index < storeOfWrite.count ? storeOfWrite[write.index] : -1
    guard store >= 0 else { return }
    let device = deviceOfStore[Int(store)]
    // A save of many records is one save: the writes a context saves together share its time.
    if let last = events.last, last.device == device, last.time == time(at), case .save(let records) = last.kind {
      events[events.count - 1].kind = .save(records: records + 1)
      return
    }
    add(at, device, .save(records: 1))
  }

  public func observeCommitted(write: WriteID, activity: ActivityID, sequence: Int32, at: SimTime) {}

  public func observeActivityRequested(
    activity: ActivityID, kind: ActivityKind, store: StoreID, trigger: ActivityTrigger, at: SimTime
  ) {
    let device = deviceOfStore[store.index]
    while activities.count <= activity.index { activities.append((.export, -1, -1)) }
    activities[activity.index] = (kind, device, store.index)
    if kind == .import { add(at, device, .importRequested(trigger: trigger.rawValue)) }
  }

  public func observeActivityApproved(activity: ActivityID, at: SimTime) {
    let (kind, device, _) = activities[activity.index]
    add(at, device, .decision(Self.work(kind), proceeds: true, refusedBy: []))
  }

  public func observeActivityStarted(activity: ActivityID, at: SimTime) {
    let (kind, device, _) = activities[activity.index]
    add(at, device, .started(Self.work(kind), trigger: nil))
  }

  public func observeActivityFinished(activity: ActivityID, at: SimTime, records: Int32, succeeded: Bool) {
    let (kind, device, store) = activities[activity.index]
    if kind == .export { add(at, device, .pending(records: Int(records))) }
    // The activity's own store's error (the device's first store's, before: a search per end,
    // and the wrong store's error on a device with two).
    let error = succeeded || store >= lastError.count ? nil : lastError[store]
    add(at, device, .finished(Self.work(kind), succeeded: succeeded, records: Int(records), error: error))
  }

  public func observeImported(store: StoreID, activity: ActivityID, token: Int32, records: Int32, at: SimTime) {}
  public func observeVisible(store: StoreID, token: Int32, at: SimTime) {}
  public func observeRequest(store: StoreID, upload: Bool, records: Int32, bytes: Int64, at: SimTime) {}

  public func observePush(device: DeviceID, event: PushEvent, at: SimTime) {
    switch event {
    case .delivered:
      // apsd took it `deliveryLatency` before the app's handler ran (TN3163: 0.10 s).
      add(SimTime(nanoseconds: max(0, at.nanoseconds - deliveryLatency.nanoseconds)), device.index, .pushReceived)
      add(at, device.index, .pushHandled)
    case .held, .deferred:
      add(at, device.index, .pushReceived)
    default: break
    }
  }

  func set<T>(_ array: inout [T], _ index: Int, _ value: T, fill: T) {
    while array.count <= index { array.append(fill) }
    array[index] = value
  }
}
