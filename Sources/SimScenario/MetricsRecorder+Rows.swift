import SimKernel
import SimModel

extension MetricsRecorder {
  /// Every (write, other device with access) row, in write then observer-store order.
  public func latencyRows() -> [LatencyRow] {
    var rows: [LatencyRow] = []
    rows.reserveCapacity(writes.count)
    let ids = writeIDs
    for (index, write) in writes.enumerated() {
      let zone = mirrorZone[write.mirror.index]
      guard zone >= 0 else { continue }
      let writer = mirrorDevice[write.mirror.index]
      for observer in zoneMirrors[Int(zone)] where mirrorDevice[observer.index] != writer {
        rows.append(row(for: write, id: WriteID(Int(ids[index])), observer: observer))
      }
    }
    return rows
  }

  var writeIDs: [Int32] {
    var ids = [Int32](repeating: 0, count: writes.count)
    for (id, index) in writeIndex.enumerated() where index >= 0 { ids[Int(index)] = Int32(id) }
    return ids
  }

  func row(for write: WriteRecord, id: WriteID, observer: MirrorID) -> LatencyRow {
    let policies = policyNames.count
    var row = LatencyRow(
      write: id, writer: mirrorDevice[write.mirror.index], observer: mirrorDevice[observer.index],
      kind: write.kind, outcome: .pending, editedAt: write.editedAt, committedAt: write.committedAt, visibleAt: nil,
      stages: [SimDuration](repeating: .zero, count: 7),
      exportBlockedByPolicy: [SimDuration](repeating: .zero, count: policies),
      importBlockedByPolicy: [SimDuration](repeating: .zero, count: policies))
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
    guard let saved = write.savedAt, let committed = write.committedAt, write.activity.raw >= 0 else {
      return row
    }
    if hidden.contains(Int64(observer.raw) << 32 | Int64(write.object.raw)) {
      row.outcome = .hidden
      return row
    }
    row.outcome = .notVisible
    guard let imported = imports[observer.index].first(where: { $0.token >= write.sequence }),
      let seen = visibility[observer.index].first(where: { $0.token >= write.sequence })
    else { return row }
    let export = activities[write.activity.index]
    let fetch = activities[imported.activity.index]
    let exportStart = export.startedAt ?? committed
    let notified = max(committed, fetch.requestedAt)
    let importStart = max(notified, fetch.startedAt ?? notified)
    let milestones = [write.editedAt, saved, exportStart, committed, notified, importStart, imported.at, seen.at]
    for stage in 0..<7 { row.stages[stage] = milestones[stage + 1] - milestones[stage] }
    row.exportBlockedByPolicy = blockedTime(export, from: saved, to: exportStart)
    row.importBlockedByPolicy = blockedTime(fetch, from: notified, to: importStart)
    row.outcome = .visible
    row.visibleAt = seen.at
    return row
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
