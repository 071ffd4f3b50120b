/// A sync log reconstructed: each save with the export that carried it, each export and import
/// with what the log shows of its request, decisions and end, each push, and for every pair of
/// devices of one account the save-to-visible rows, with each stage the log can see.
public struct SyncTrace: Sendable {
  /// An export, import or setup, as the log shows it.
  public struct Activity: Sendable {
    public var device: Int
    public var work: LogEvent.Work
    public var trigger: String?
    public var requestedAt: Int64?
    public var decidedAt: Int64?
    public var approvedAt: Int64?
    public var startedAt: Int64
    public var finishedAt: Int64?
    public var succeeded = false
    public var records: Int?
    public var error: String?
    /// Refusals: the policy and the time from its refusal to dasd's next decision.
    public var refusals: [(policy: String, from: Int64, to: Int64)] = []
  }

  public struct Save: Sendable {
    public var device: Int
    public var time: Int64
    public var records: Int
    /// The successful export that carried it (position in `activities`).
    public var export: Int?
  }

  public struct Push: Sendable {
    public var device: Int
    public var receivedAt: Int64?
    public var handledAt: Int64?
    /// When the app had it: the handler's time, else apsd's.
    public var arrival: Int64 { handledAt ?? receivedAt ?? 0 }
  }

  /// A (save, observer) pair: the save made on `writer`, seen (or not) on `observer`.
  public struct Row: Sendable {
    public var save: Int
    public var writer: Int
    public var observer: Int
    public var committedAt: Int64?
    public var visibleAt: Int64?
    /// The import that made it visible, and what asked for it (a push, or the import's own request).
    public var importActivity: Int?
    public var notifiedAt: Int64?
  }

  public var devices: [SyncLog.Device]
  public var start: Int64
  public var end: Int64
  public var activities: [Activity] = []
  public var saves: [Save] = []
  public var pushes: [Push] = []
  public var rows: [Row] = []
  /// Devices whose log holds dasd's decisions (their waits can be split by policy).
  public var hasDecisions: [Bool]
  /// Each device's logged app states in time order: whether the app was in front from then on.
  public var frontChanges: [[(time: Int64, front: Bool)]] = []

  /// Whether `device`'s app was in front at `time`, as far as the log's app states say (nil:
  /// no state logged before it).
  public func inFront(_ device: Int, at time: Int64) -> Bool? {
    let changes = frontChanges[device]
    let after = changes.partitionIndex { $0.time > time }
    return after == 0 ? nil : changes[after - 1].front
  }
  /// Reconstructs `log`'s events (already in time order).
  public init(_ log: SyncLog) {
    self.init(events: log.events, devices: log.devices, span: log.span)
  }

  public init(events: [LogEvent], devices: [SyncLog.Device], span: (start: Int64, end: Int64)?) {
    self.devices = devices
    start = span?.start ?? 0
    end = span?.end ?? 0
    hasDecisions = Array(repeating: false, count: devices.count)
    frontChanges = Array(repeating: [], count: devices.count)
    var perDevice: [[LogEvent]] = Array(repeating: [], count: devices.count)
    for event in events { perDevice[event.device].append(event) }
    for (device, list) in perDevice.enumerated() { reconstruct(device, list) }
    pairSavesWithExports()
    makeRows()
  }

  mutating func reconstruct(_ device: Int, _ events: [LogEvent]) {
    var open: [LogEvent.Work: [Int]] = [:]
    var decisions: [LogEvent.Work: [(time: Int64, proceeds: Bool, refusedBy: [String])]] = [:]
    var requests: [LogEvent.Work: [(time: Int64, trigger: String)]] = [:]
    var firstUnexportedSave: Int64?
    var pendingRecords: Int?
    var pendingPush: Int?
    for event in events {
      switch event.kind {
      case .save(let records):
        saves.append(Save(device: device, time: event.time, records: records))
        if firstUnexportedSave == nil { firstUnexportedSave = event.time }
      case .decision(let work, let proceeds, let refusedBy):
        hasDecisions[device] = true
        decisions[work, default: []].append((event.time, proceeds, refusedBy))
      case .importRequested(let trigger):
        requests[.import, default: []].append((event.time, trigger))
      case .pending(let records):
        pendingRecords = records
      case .started(let work, let trigger):
        var activity = Activity(device: device, work: work, startedAt: event.time)
        activity.trigger = trigger ?? requests[work]?.first?.trigger
        activity.requestedAt = requests[work]?.first?.time
        if work == .export, let save = firstUnexportedSave {
          activity.requestedAt = save
          activity.trigger = activity.trigger ?? "save"
          firstUnexportedSave = nil
        }
        let seen = decisions[work] ?? []
        activity.decidedAt = seen.first?.time
        activity.approvedAt = seen.last(where: { $0.proceeds })?.time
        for (index, decision) in seen.enumerated() where !decision.proceeds {
          let until = index + 1 < seen.count ? seen[index + 1].time : event.time
          for policy in decision.refusedBy { activity.refusals.append((policy, decision.time, until)) }
        }
        decisions[work] = []
        requests[work] = []
        if work == .export { pendingRecords = nil }
        activities.append(activity)
        open[work, default: []].append(activities.count - 1)
      case .finished(let work, let succeeded, let records, let error):
        guard let index = open[work]?.first else { continue }
        open[work]!.removeFirst()
        activities[index].finishedAt = event.time
        activities[index].succeeded = succeeded
        activities[index].records = records ?? (work == .export ? pendingRecords : nil)
        activities[index].error = error
      case .pushReceived:
        pushes.append(Push(device: device, receivedAt: event.time))
        pendingPush = pushes.count - 1
      case .pushHandled:
        // The handler runs for the push apsd took last, if it has not run yet (within 5 s).
        if let index = pendingPush, pushes[index].handledAt == nil, event.time - (pushes[index].receivedAt ?? 0) < 5_000_000 {
          pushes[index].handledAt = event.time
        } else {
          pushes.append(Push(device: device, handledAt: event.time))
        }
        pendingPush = nil
      case .appState(let state):
        frontChanges[device].append((event.time, state == "launch" || state == "foreground"))
      case .power: break
      }
    }
  }

  /// The successful exports and imports of each device, by start time.
  func finished(_ work: LogEvent.Work) -> [[Int]] {
    var lists: [[Int]] = Array(repeating: [], count: devices.count)
    for (index, activity) in activities.enumerated()
    where activity.work == work && activity.succeeded && activity.finishedAt != nil {
      lists[activity.device].append(index)
    }
    return lists.map { list in list.sorted { activities[$0].startedAt < activities[$1].startedAt } }
  }

  mutating func pairSavesWithExports() {
    let exports = finished(.export)
    for index in saves.indices {
      let list = exports[saves[index].device]
      let position = list.partitionIndex { activities[$0].startedAt >= saves[index].time }
      saves[index].export = position < list.count ? list[position] : nil
    }
  }

  mutating func makeRows() {
    let imports = finished(.import)
    var pushesOf: [[Int]] = Array(repeating: [], count: devices.count)
    for (index, push) in pushes.enumerated() { pushesOf[push.device].append(index) }
    for (saveIndex, save) in saves.enumerated() {
      let account = devices[save.device].account
      let committed = save.export.flatMap { activities[$0].finishedAt }
      for observer in devices.indices where observer != save.device && devices[observer].account == account {
        var row = Row(save: saveIndex, writer: save.device, observer: observer, committedAt: committed)
        let list = imports[observer]
        let position = committed.map { time in list.partitionIndex { activities[$0].startedAt >= time } } ?? list.count
        if let committed, position < list.count {
          let found = list[position]
          row.importActivity = found
          row.visibleAt = activities[found].finishedAt
          let started = activities[found].startedAt
          // The last push before the import's start, if it came after the commit.
          let arrivals = pushesOf[observer]
          let after = arrivals.partitionIndex { pushes[$0].arrival > started }
          let push = after > 0 && pushes[arrivals[after - 1]].arrival >= committed ? arrivals[after - 1] : nil
          row.notifiedAt = push.map { pushes[$0].arrival } ?? activities[found].requestedAt.flatMap { $0 >= committed ? $0 : nil }
        }
        rows.append(row)
      }
    }
  }

  /// Seconds from the trace's start.
  public func seconds(_ time: Int64) -> Double { Double(time - start) / 1e6 }
}
