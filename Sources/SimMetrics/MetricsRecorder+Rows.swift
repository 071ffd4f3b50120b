import SimKernel
import SimModel

extension MetricsRecorder {
  /// Every (write, other device with access) row, in write then observer-store order.
  public func latencyRows() -> [LatencyRow] {
    var rows: [LatencyRow] = []
    rows.reserveCapacity(writes.count)
    forEachLatencyRow { rows.append($0) }
    return rows
  }

  /// Calls `body` with every row, in `latencyRows()` order, without keeping them: a large run has
  /// millions (10,000 public-database readers × a day's posts), and the summary and latency.csv
  /// each need one pass.
  public func forEachLatencyRow(_ body: (LatencyRow) -> Void) {
    let ids = writeIDs
    let source = RowSource(
      storeDevice: storeDevice, imports: imports, visibility: visibility, activities: activities, hidden: hidden,
      reached: TokensReached(imports: imports, visibility: visibility))
    for (index, write) in writes.enumerated() {
      let zone = storeZone[write.store.index]
      guard zone >= 0 else { continue }
      let writer = source.storeDevice[write.store.index]
      for observer in zoneStores[Int(zone)] where source.storeDevice[observer.index] != writer {
        body(source.row(for: write, id: WriteID(Int(ids[index])), observer: observer))
      }
    }
  }

  /// Per store, the highest token its imports (and its UI) had reached after each one, so that
  /// the first import to reach a write's token is found by binary search: the running maximum
  /// first reaches a token exactly where the first import at or above it is (a reset can make
  /// the tokens themselves fall back).
  struct TokensReached {
    var imported: [[Int32]]
    var visible: [[Int32]]

    init(imports: [[(activity: ActivityID, token: Int32, at: SimTime)]], visibility: [[(token: Int32, at: SimTime)]]) {
      imported = imports.map { Self.runningMaximum($0.map(\.token)) }
      visible = visibility.map { Self.runningMaximum($0.map(\.token)) }
    }

    static func runningMaximum(_ tokens: [Int32]) -> [Int32] {
      var highest = Int32.min
      return tokens.map {
        highest = max(highest, $0)
        return highest
      }
    }

    /// The first position whose running maximum is at least `token`, or nil.
    static func first(reaching token: Int32, in maxima: [Int32]) -> Int? {
      var low = 0
      var high = maxima.count
      while low < high {
        let mid = (low + high) / 2
        if maxima[mid] >= token { high = mid } else { low = mid + 1 }
      }
      return low < maxima.count ? low : nil
    }
  }

  var writeIDs: [Int32] {
    var ids = [Int32](repeating: 0, count: writes.count)
    for (id, index) in writeIndex.enumerated() where index >= 0 { ids[Int(index)] = Int32(id) }
    return ids
  }

  /// What building a row reads, taken out of the recorder once: reading the class's arrays row
  /// by row paid an exclusivity check each time, and a large run has millions of rows.
  struct RowSource {
    let storeDevice: [DeviceID]
    let imports: [[(activity: ActivityID, token: Int32, at: SimTime)]]
    let visibility: [[(token: Int32, at: SimTime)]]
    let activities: [ActivityRecord]
    let hidden: Set<Int64>
    let reached: TokensReached

    func row(for write: WriteRecord, id: WriteID, observer: StoreID) -> LatencyRow {
      var row = LatencyRow(
        write: id, writer: storeDevice[write.store.index], observer: storeDevice[observer.index],
        kind: write.kind, outcome: .pending, editedAt: write.editedAt, committedAt: write.committedAt, visibleAt: nil)
      if write.superseded {
        row.outcome = .supersededLocally
        return row
      }
      if write.lostUpdate {
        row.outcome = .lostUpdate
        return row
      }
      if write.lost {
        row.outcome = .lost
        return row
      }
      guard let saved = write.savedAt, let committed = write.committedAt, write.activity.exists else {
        return row
      }
      if !hidden.isEmpty && hidden.contains(Int64(observer.raw) << 32 | Int64(write.object.raw)) {
        row.outcome = .hidden
        return row
      }
      row.outcome = .notVisible
      guard let importIndex = TokensReached.first(reaching: write.sequence, in: reached.imported[observer.index]),
        let seenIndex = TokensReached.first(reaching: write.sequence, in: reached.visible[observer.index])
      else { return row }
      let imported = imports[observer.index][importIndex]
      let seen = visibility[observer.index][seenIndex]
      let exportStart = activities[write.activity.index].startedAt ?? committed
      let notified = max(committed, activities[imported.activity.index].requestedAt)
      let importStart = max(notified, activities[imported.activity.index].startedAt ?? notified)
      row.stages.save = saved - write.editedAt
      row.stages.exportSchedule = exportStart - saved
      row.stages.upload = committed - exportStart
      row.stages.notify = notified - committed
      row.stages.importSchedule = importStart - notified
      row.stages.download = imported.at - importStart
      row.stages.ui = seen.at - imported.at
      row.exportActivity = write.activity.raw
      row.importActivity = imported.activity.raw
      row.outcome = .visible
      row.visibleAt = seen.at
      return row
    }
  }

  /// For a visible row, the time inside its exportSchedule and importSchedule stages during which
  /// each policy (by index) blocked the export or the import; the rest of each stage is decision
  /// latency, start delay or a running activity. Zeros for other rows.
  public func blockedByPolicy(_ row: LatencyRow) -> (export: [SimDuration], import: [SimDuration]) {
    guard row.outcome == .visible, row.exportActivity >= 0, row.importActivity >= 0 else {
      let none = [SimDuration](repeating: .zero, count: policyNames.count)
      return (none, none)
    }
    let saved = row.editedAt + row.stages.save
    let exportStart = saved + row.stages.exportSchedule
    let notified = exportStart + row.stages.upload + row.stages.notify
    let importStart = notified + row.stages.importSchedule
    return (
      blockedTime(activities[Int(row.exportActivity)], from: saved, to: exportStart),
      blockedTime(activities[Int(row.importActivity)], from: notified, to: importStart)
    )
  }

  /// Time within [from, to] during which each policy blocked the activity.
  func blockedTime(_ activity: ActivityRecord, from: SimTime, to: SimTime) -> [SimDuration] {
    var result = [SimDuration](repeating: .zero, count: policyNames.count)
    for interval in activity.blocked {
      let start = max(interval.from, from)
      let end = min(interval.to, to)
      if end > start { result[Int(interval.policy)] += end - start }
    }
    return result
  }
}

/// Where every write ended up (MODEL §10 conservation): the four counts add up to all writes.
public struct WriteAccounting: Equatable, Sendable {
  /// Committed at the server and not lost to a device that had not seen it.
  public var committed = 0
  /// Committed, then overwritten by a device that had not seen it.
  public var lostUpdates = 0
  /// Replaced on its own device before export: never reached the server.
  public var supersededLocally = 0
  /// Unsaved, or saved and not yet committed, when the run ended.
  public var pending = 0
  /// Lost on the device (saved during a reset without the guard, or a removed store).
  public var lost = 0

  public var total: Int { committed + lostUpdates + supersededLocally + pending + lost }
}

extension MetricsRecorder {
  /// Classifies every write; each lands in exactly one class.
  public func writeAccounting() -> WriteAccounting {
    var accounting = WriteAccounting()
    for write in writes {
      if write.superseded {
        accounting.supersededLocally += 1
      } else if write.lost {
        accounting.lost += 1
      } else if write.committedAt == nil {
        accounting.pending += 1
      } else if write.lostUpdate {
        accounting.lostUpdates += 1
      } else {
        accounting.committed += 1
      }
    }
    return accounting
  }
}

extension MetricsRecorder {
  /// Each write's device, edit time and commit time (nil if never committed; superseded writes
  /// are left out, as they never commit).
  package func writesForTimeline() -> [(device: DeviceID, editedAt: SimTime, committedAt: SimTime?)] {
    writes.filter { !$0.superseded }.map { (storeDevice[$0.store.index], $0.editedAt, $0.committedAt) }
  }
}
