/// The summary statistics of a sync log that the fit compares, computed the same way from a
/// real app's log and from a simulated one (`docs/event-log.md` defines each).
public struct LogSummaries: Sendable {
  /// A summary: its name, the unit it is in, and whether it is a share (0…1) or a time.
  public struct Definition: Sendable {
    public var name: String
    public var meaning: String
    public var isShare: Bool
  }

  public static let definitions: [Definition] = [
    Definition(name: "exportWait.p50", meaning: "median time from a save to the start of the export that carries it", isShare: false),
    Definition(name: "exportWait.p90", meaning: "90th percentile of the same", isShare: false),
    Definition(name: "decision.p50", meaning: "median time from an export's request to dasd's first decision (dasd lines)", isShare: false),
    Definition(name: "exportDuration.p50", meaning: "median duration of a successful export that carried saves", isShare: false),
    Definition(name: "importDuration.p50", meaning: "median duration of a successful import after the device's first", isShare: false),
    Definition(name: "importPerRecord.p50", meaning: "median import duration per record, over imports of 10 records or more (logs that count records)", isShare: false),
    Definition(name: "pushDelay.p50", meaning: "median time from a commit on one device to a push on another device of the account", isShare: false),
    Definition(name: "pushShare", meaning: "share of (commit, other device) pairs with a push within 10 minutes, before the account's next commit", isShare: true),
    Definition(name: "pushShare.background", meaning: "the same, for pairs whose other device's app was in the background at the commit (logs with app states)", isShare: true),
    Definition(name: "pushHandling.p50", meaning: "median time from apsd's receipt to the app's push handler (unified logs)", isShare: false),
    Definition(name: "pushToImport.p50", meaning: "median time from a push to the start of the next import on the device", isShare: false),
    Definition(name: "retryWait.p50", meaning: "median time from a failed export to the next export's start on the device", isShare: false),
    Definition(name: "exportFailedShare", meaning: "share of the exports that ended which failed", isShare: true),
    Definition(name: "latency.p50", meaning: "median save-to-visible latency of the rows that became visible", isShare: false),
    Definition(name: "latency.p90", meaning: "90th percentile of the same", isShare: false),
    Definition(name: "visibleShare", meaning: "share of (save, other device) rows visible by the end of the log", isShare: true),
  ]

  public static var names: [String] { definitions.map(\.name) }
  /// Fewer observations than this and a summary is not used: a median of a few says little, and
  /// a rare kind of event may not occur at all in a simulated world.
  public static let minimumCount = 10

  /// Each summary's value (nil: too few observations) and how many observations it rests on.
  public var values: [Double?]
  public var counts: [Int]

  public init(_ trace: SyncTrace) {
    var samples: [[Double]] = Array(repeating: [], count: Self.definitions.count)
    var shares: [Int: (hits: Int, total: Int)] = [:]
    func add(_ name: String, _ value: Double) { samples[Self.index(name)].append(value) }
    let acts = trace.activities
    var carried = Set<Int>()  // membership only
    for save in trace.saves {
      guard let export = save.export else { continue }
      carried.insert(export)
      add("exportWait.p50", Double(acts[export].startedAt - save.time) / 1e6)
    }
    samples[Self.index("exportWait.p90")] = samples[Self.index("exportWait.p50")]
    var firstImportSeen = Array(repeating: false, count: trace.devices.count)
    var commits: [(time: Int64, device: Int)] = []
    for (index, activity) in acts.enumerated() {
      guard let finished = activity.finishedAt else { continue }
      let duration = Double(finished - activity.startedAt) / 1e6
      switch activity.work {
      case .export:
        if let requested = activity.requestedAt, let decided = activity.decidedAt, decided >= requested {
          add("decision.p50", Double(decided - requested) / 1e6)
        }
        if activity.succeeded && carried.contains(index) {
          add("exportDuration.p50", duration)
          commits.append((finished, activity.device))
        }
        shares[Self.index("exportFailedShare"), default: (0, 0)].total += 1
        if !activity.succeeded { shares[Self.index("exportFailedShare")]!.hits += 1 }
        if !activity.succeeded, let next = acts[(index + 1)...].first(where: {
          $0.device == activity.device && $0.work == .export && $0.startedAt >= finished
        }) {
          add("retryWait.p50", Double(next.startedAt - finished) / 1e6)
        }
      case .import:
        guard activity.succeeded else { continue }
        if firstImportSeen[activity.device] { add("importDuration.p50", duration) }
        firstImportSeen[activity.device] = true
        if let records = activity.records, records >= 10 { add("importPerRecord.p50", duration / Double(records)) }
      case .setup: break
      }
    }
    commits.sort { $0.time < $1.time }
    var pushesOf: [[Int64]] = Array(repeating: [], count: trace.devices.count)
    for push in trace.pushes {
      pushesOf[push.device].append(push.arrival)
      if let received = push.receivedAt, let handled = push.handledAt {
        add("pushHandling.p50", Double(handled - received) / 1e6)
      }
    }
    for list in pushesOf.indices { pushesOf[list].sort() }
    let window: Int64 = 600_000_000
    for (position, commit) in commits.enumerated() {
      let account = trace.devices[commit.device].account
      let nextCommit = commits[(position + 1)...].first { trace.devices[$0.device].account == account }?.time
      let until = min(nextCommit ?? Int64.max, commit.time + window)
      guard until <= trace.end else { continue }
      for observer in trace.devices.indices
      where observer != commit.device && trace.devices[observer].account == account {
        let arrivals = pushesOf[observer]
        let first = arrivals.partitionIndex { $0 >= commit.time }
        let hit = first < arrivals.count && arrivals[first] < until
        if hit { add("pushDelay.p50", Double(arrivals[first] - commit.time) / 1e6) }
        shares[Self.index("pushShare"), default: (0, 0)].total += 1
        if hit { shares[Self.index("pushShare")]!.hits += 1 }
        // A background push budget holds pushes to an app in the background only; a drop
        // loses pushes to any app: the two shares tell them apart.
        if trace.inFront(observer, at: commit.time) == false {
          shares[Self.index("pushShare.background"), default: (0, 0)].total += 1
          if hit { shares[Self.index("pushShare.background")]!.hits += 1 }
        }
      }
    }
    var importStarts: [[Int64]] = Array(repeating: [], count: trace.devices.count)
    for activity in acts where activity.work == .import { importStarts[activity.device].append(activity.startedAt) }
    for (device, arrivals) in pushesOf.enumerated() {
      let starts = importStarts[device].sorted()
      for arrival in arrivals {
        let next = starts.partitionIndex { $0 >= arrival }
        if next < starts.count && starts[next] - arrival < window {
          add("pushToImport.p50", Double(starts[next] - arrival) / 1e6)
        }
      }
    }
    var visibleRows = 0
    for row in trace.rows {
      guard let visible = row.visibleAt else { continue }
      visibleRows += 1
      add("latency.p50", Double(visible - trace.saves[row.save].time) / 1e6)
    }
    samples[Self.index("latency.p90")] = samples[Self.index("latency.p50")]
    shares[Self.index("visibleShare")] = (visibleRows, trace.rows.count)

    values = Array(repeating: nil, count: Self.definitions.count)
    counts = Array(repeating: 0, count: Self.definitions.count)
    for (index, definition) in Self.definitions.enumerated() {
      if definition.isShare {
        let share = shares[index] ?? (0, 0)
        counts[index] = share.total
        if share.total >= Self.minimumCount { values[index] = Double(share.hits) / Double(share.total) }
        continue
      }
      let sorted = samples[index].sorted()
      counts[index] = sorted.count
      guard sorted.count >= Self.minimumCount else { continue }
      values[index] = TwinStatistics.quantile(sorted, definition.name.hasSuffix(".p90") ? 0.9 : 0.5)
    }
  }

  public static func index(_ name: String) -> Int { definitions.firstIndex { $0.name == name }! }

  public func value(_ name: String) -> Double? { values[Self.index(name)] }
}

extension Array {
  /// The first index whose element satisfies `belongs` (which must be false, then true).
  func partitionIndex(_ belongs: (Element) -> Bool) -> Int {
    var low = 0
    var high = count
    while low < high {
      let middle = (low + high) / 2
      if belongs(self[middle]) { high = middle } else { low = middle + 1 }
    }
    return low
  }
}
