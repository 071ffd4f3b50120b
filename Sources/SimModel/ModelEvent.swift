import SimKernel

/// Every event of the model: a small flat value (ids only), so the kernel's queue stays flat.
public enum ModelEvent: SimEvent {
  case workloadEdit(DeviceID)
  case saveTimer(StoreID)
  case decide(ActivityID)
  case start(ActivityID)
  case exportRequestDone(ActivityID)
  case importPageDone(ActivityID)
  case pushArrives(DeviceID, ZoneID)
  case uiRefresh(StoreID)
  case timeline(Int32)
  case nudge(Int32)
  case bulkStep(Int32)
  case sessionStart(DeviceID)
  case sessionEnd(DeviceID)
  case suspend(DeviceID)
  case poll(StoreID)
  case batteryTick(DeviceID)
  case setupDone(StoreID)
  /// A CKSyncEngine app writes its state's serialization (`SyncEngineBehaviour.statePersistLag`).
  case statePersisted(StoreID)

  public var traceKind: UInt32 {
    switch self {
    case .workloadEdit: 1
    case .saveTimer: 2
    case .decide: 3
    case .start: 4
    case .exportRequestDone: 5
    case .importPageDone: 6
    case .pushArrives: 7
    case .uiRefresh: 8
    case .timeline: 9
    case .nudge: 10
    case .bulkStep: 11
    case .sessionStart: 12
    case .sessionEnd: 13
    case .suspend: 14
    case .poll: 15
    case .batteryTick: 16
    case .setupDone: 17
    case .statePersisted: 18
    }
  }

  /// The name of each kind, for the trace file.
  public static let kindNames = [
    "", "workloadEdit", "saveTimer", "decide", "start", "exportRequestDone", "importPageDone",
    "pushArrives", "uiRefresh", "timeline", "nudge", "bulkStep", "sessionStart", "sessionEnd",
    "suspend", "poll", "batteryTick", "setupDone", "statePersisted",
  ]

  public var traceEntity: UInt32 {
    switch self {
    case .workloadEdit(let d), .sessionStart(let d), .sessionEnd(let d), .suspend(let d), .batteryTick(let d):
      UInt32(d.raw)
    case .saveTimer(let m), .uiRefresh(let m), .poll(let m), .setupDone(let m), .statePersisted(let m): UInt32(m.raw)
    case .decide(let a), .start(let a), .exportRequestDone(let a), .importPageDone(let a): UInt32(a.raw)
    case .pushArrives(let d, _): UInt32(d.raw)
    case .timeline(let i), .nudge(let i), .bulkStep(let i): UInt32(i)
    }
  }
}
