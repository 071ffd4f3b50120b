import SimKernel
import SimModel

extension MetricsRecorder {
  /// Checks the identities of every row, whatever its outcome, to the nanosecond: the known
  /// stages add up to the latency (visible) or to the time from the edit to the end of the run (a
  /// row stuck in its last known stage), and a row with no known stage has no time; no stage or
  /// cause is negative; exportSchedule and importSchedule are their decision time, every policy's
  /// and wait cause's blocked time and every hold, with no time that neither an activity nor a
  /// state explains; notify is the sum of its causes; upload's and download's suspended time lie
  /// inside them. Returns how many checks ran and the first `limit` failures.
  public func auditRows(limit: Int = 20) -> (checks: Int, failures: [String]) {
    var checks = 0
    var failures: [String] = []
    func fail(_ row: LatencyRow, _ what: String) {
      if failures.count < limit {
        failures.append(
          "row of write \(row.write.raw) on device \(row.observer.raw) (\(row.outcome.rawValue)): \(what)")
      }
    }
    func check(_ row: LatencyRow, _ split: StageSplit?, stage: String, length: SimDuration) {
      guard let split else { return }
      checks += 1
      let parts = [split.decision, split.unexplained] + split.blocked + split.held
      if parts.contains(where: { $0 < .zero }) || split.total != length {
        fail(row, "\(stage) \(length.seconds) s is not its decision \(split.decision.seconds) s plus its causes and holds")
      } else if split.unexplained > .zero {
        fail(row, "\(split.unexplained.seconds) s of \(stage) has no activity waiting and no state that explains it")
      }
    }
    var reference = RowTally()
    forEachLatencyRow { row in
      reference.add(row, endTime: endTime)
      checks += 1
      guard row.knownStages > 0 else {
        if row.stages.contains(where: { $0 != .zero }) { fail(row, "a row with no known stage has time") }
        return
      }
      var sum = SimDuration.zero
      for index in 0..<row.knownStages {
        if row.stages[index] < .zero { fail(row, "stage \(LatencyRow.stageNames[index]) is negative") }
        sum += row.stages[index]
      }
      let expected = row.latency ?? (endTime - row.editedAt)
      if sum != expected {
        fail(row, "stages sum to \(sum.seconds) s, expected \(expected.seconds) s")
      }
      check(row, exportSplit(row), stage: "exportSchedule", length: row.stages.exportSchedule)
      check(row, importSplit(row), stage: "importSchedule", length: row.stages.importSchedule)
      if let notify = notifyCauses(row) {
        checks += 1
        if notify.contains(where: { $0 < .zero }) || notify.reduce(.zero, +) != row.stages.notify {
          fail(row, "notify \(row.stages.notify.seconds) s is not the sum of its causes")
        }
        // A wait with no push is the app's state's at each instant (issue 72): no more
        // not-running, setup or no-push time than the observer spent in each state.
        if !(row.observerStore.exists && storeIsPublic[row.observerStore.index]), let committed = row.committedAt {
          checks += 1
          var room = [SimDuration](repeating: .zero, count: notify.count)
          holdLog.bookNoPush(
            from: committed, to: committed + row.stages.notify, store: row.observerStore, device: row.observer,
            into: &room)
          for cause in [HoldLog.notRunningCause, HoldLog.setupCause, HoldLog.noPushCause] where notify[cause] > room[cause] {
            fail(row, "notify.\(LatencyRow.notifyCauseNames[cause]) \(notify[cause].seconds) s is more than the "
              + "\(room[cause].seconds) s its observer spent in that state")
          }
        }
        // A row stuck in notify names its cause, and that cause has a column with time.
        if row.outcome != .visible, row.knownStages == 4, let stuck = row.stuckCause,
          let column = Self.notifyColumn(ofStuckCause: stuck)
        {
          checks += 1
          if notify[column] <= .zero {
            fail(row, "stuck on \(stuck) with no time in notify.\(LatencyRow.notifyCauseNames[column])")
          }
        }
        // Once the observer's store stopped syncing, its wait is that cause's alone (issue 72).
        let store = row.observerStore.index
        if row.observerStore.exists, store < holdLog.disabledAt.count, let disabledAt = holdLog.disabledAt[store],
          let committed = row.committedAt
        {
          checks += 1
          let before = max(.zero, min(disabledAt - committed, row.stages.notify))
          if row.stages.notify - notify[9] > before {
            fail(row, "\((row.stages.notify - notify[9] - before).seconds) s of notify after its store was disabled "
              + "is booked to another cause than storeDisabled")
          }
        }
      }
      let transfer = transferSplit(row)
      checks += 1
      if transfer.uploadSuspended < .zero || transfer.uploadSuspended > row.stages.upload
        || transfer.downloadSuspended < .zero || transfer.downloadSuspended + transfer.hidden > row.stages.download
      {
        fail(row, "upload's or download's suspended or hidden time is outside the stage")
      }
    }
    checks += 1
    if let difference = rowTally().difference(from: reference) {
      failures.append("the summary's tally of the rows differs from the rows: \(difference)")
    }
    return (checks, failures)
  }
}

extension MetricsRecorder {
  /// The notify column a stuck row's cause names (`LatencyRow.notifyCauseNames`), where one does.
  static func notifyColumn(ofStuckCause cause: String) -> Int? {
    switch cause {
    case "storeDisabled": 9
    case "pollWait": 6
    case "pushHeld": 2
    case "pushDeferred": 3
    case "pushStored": 4
    case "pushWithheld": 10
    case "notRunning": 5
    default: nil
    }
  }
}

extension MetricsRecorder.RowTally {
  /// Adds one row as the summary counts it (the reference `rowTally()` is checked against).
  mutating func add(_ row: LatencyRow, endTime: SimTime) {
    rowCount += 1
    if row.outcome == .hidden { hiddenRows += 1 }
    if row.outcome == .notVisible { notVisibleRows += 1 }
    // A ghost (a public delete) is never visible: not censored, as no later end would show it.
    if (row.outcome == .notVisible && row.stuckCause != MetricsRecorder.RowSource.ghost) || row.outcome == .pending {
      censored.append((endTime - row.editedAt).nanoseconds)
    }
    guard row.outcome == .visible else { return }
    for index in stageSums.indices { stageSums[index] += Int128(row.stages[index].nanoseconds) }
    if let latency = row.latency { latencies.append(latency.nanoseconds) }
  }

  /// What differs from `other` (counts, stage sums, the latencies' count, extremes, mean and
  /// percentiles), or nil.
  func difference(from other: Self) -> String? {
    if rowCount != other.rowCount { return "rows \(rowCount) vs \(other.rowCount)" }
    if hiddenRows != other.hiddenRows { return "hidden rows \(hiddenRows) vs \(other.hiddenRows)" }
    if notVisibleRows != other.notVisibleRows { return "rows not visible \(notVisibleRows) vs \(other.notVisibleRows)" }
    if censored.count != other.censored.count || censored.mean != other.censored.mean
      || censored.sortedValues() != other.censored.sortedValues()
    {
      return "censored rows differ (\(censored.count) vs \(other.censored.count))"
    }
    if let stage = stageSums.indices.first(where: { stageSums[$0] != other.stageSums[$0] }) {
      return "stage \(LatencyRow.stageNames[stage]) sums to \(stageSums[stage]) vs \(other.stageSums[stage]) ns"
    }
    let probes = [0.01, 0.5, 0.9, 0.95, 0.99, 1]
    if latencies.count != other.latencies.count || latencies.minimum != other.latencies.minimum
      || latencies.maximum != other.latencies.maximum || latencies.mean != other.latencies.mean
      || latencies.percentiles(probes) != other.latencies.percentiles(probes)
    {
      return "latencies differ (\(latencies.count) vs \(other.latencies.count) values)"
    }
    return nil
  }
}
