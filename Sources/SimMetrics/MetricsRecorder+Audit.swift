import SimKernel
import SimModel

extension MetricsRecorder {
  /// Checks the identities of every row, visible or not, to the nanosecond: the known stages add
  /// up to the latency (visible) or to the time from the edit to the end of the run (a row stuck
  /// in its last known stage); no stage or cause is negative; exportSchedule and importSchedule
  /// are their decision time plus every policy's and wait cause's blocked time; notify is the sum
  /// of its causes. Returns how many checks ran and the first `limit` failures.
  public func auditRows(limit: Int = 20) -> (checks: Int, failures: [String]) {
    var checks = 0
    var failures: [String] = []
    func fail(_ row: LatencyRow, _ what: String) {
      if failures.count < limit {
        failures.append(
          "row of write \(row.write.raw) on device \(row.observer.raw) (\(row.outcome.rawValue)): \(what)")
      }
    }
    forEachLatencyRow { row in
      guard row.knownStages > 0 else { return }
      checks += 1
      var sum = SimDuration.zero
      for index in 0..<row.knownStages {
        if row.stages[index] < .zero { fail(row, "stage \(LatencyRow.stageNames[index]) is negative") }
        sum += row.stages[index]
      }
      let expected = row.latency ?? (endTime - row.editedAt)
      if sum != expected {
        fail(row, "stages sum to \(sum.seconds) s, expected \(expected.seconds) s")
      }
      let blocked = blockedByPolicy(row)
      let decision = decisionTime(row)
      if let export = decision.export {
        checks += 1
        if export < .zero || blocked.export.contains(where: { $0 < .zero })
          || export + blocked.export.reduce(.zero, +) != row.stages.exportSchedule
        {
          fail(
            row,
            "exportSchedule \(row.stages.exportSchedule.seconds) s is not decision \(export.seconds) s plus its causes")
        }
      }
      if let `import` = decision.import {
        checks += 1
        if `import` < .zero || blocked.import.contains(where: { $0 < .zero })
          || `import` + blocked.import.reduce(.zero, +) != row.stages.importSchedule
        {
          fail(
            row,
            "importSchedule \(row.stages.importSchedule.seconds) s is not decision \(`import`.seconds) s plus its causes"
          )
        }
      }
      if let notify = notifyCauses(row) {
        checks += 1
        if notify.contains(where: { $0 < .zero }) || notify.reduce(.zero, +) != row.stages.notify {
          fail(row, "notify \(row.stages.notify.seconds) s is not the sum of its causes")
        }
      }
    }
    return (checks, failures)
  }
}
