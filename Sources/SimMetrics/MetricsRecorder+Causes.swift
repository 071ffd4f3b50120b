import SimKernel
import SimModel

extension MetricsRecorder {
  /// Where every row's time went, visible or not (a stuck row's to the end of the run), summed
  /// by cause: the stages without causes (`save`, `upload`, `download`, `ui`), the scheduling
  /// stages split into decision and each policy's or wait cause's blocked time, and notify split
  /// into its causes (a ghost's as `notify.ghost`), and a hidden row's download as `hidden`.
  /// Zeros are left out; the order is the pipeline's. Needs the push log (`keepsPushLog`) for the
  /// notify split.
  public func causeTotals() -> [(name: String, nanoseconds: Int128)] {
    let names =
      ["save", "exportDecision"] + policyNames.map { "exportBlocked." + $0 } + ["upload"]
      + LatencyRow.notifyCauseNames.map { "notify." + $0 } + ["notify", "importDecision"]
      + policyNames.map { "importBlocked." + $0 } + ["download", "ui", "exportSchedule", "importSchedule", "hidden"]
    // 128-bit sums: stuck rows' time to the end of a long run adds past 64 bits of nanoseconds
    // (28,858 rows stuck for 60 days are 1.5e20 ns).
    var totals = [Int128](repeating: 0, count: names.count)
    let exportBlocked = 2, notifyStart = 3 + policyNames.count,
      unsplitNotify = notifyStart + LatencyRow.notifyCauseNames.count
    let importBlocked = unsplitNotify + 2
    let (download, ui) = (importBlocked + policyNames.count, importBlocked + policyNames.count + 1)
    let (unsplitExport, unsplitImport, hidden) = (ui + 1, ui + 2, ui + 3)
    forEachLatencyRow { row in
      guard row.knownStages > 0 else { return }
      let known = { (stage: Int) in stage < row.knownStages }
      totals[0] += Int128(row.stages.save.nanoseconds)
      let blocked = blockedByPolicy(row)
      let decision = decisionTime(row)
      if known(1) {
        if let export = decision.export {
          totals[1] += Int128(export.nanoseconds)
          for (index, time) in blocked.export.enumerated() { totals[exportBlocked + index] += Int128(time.nanoseconds) }
        } else {
          totals[unsplitExport] += Int128(row.stages.exportSchedule.nanoseconds)
        }
      }
      if known(2) { totals[exportBlocked + policyNames.count] += Int128(row.stages.upload.nanoseconds) }
      if known(3) {
        if let notify = notifyCauses(row) {
          for (index, time) in notify.enumerated() { totals[notifyStart + index] += Int128(time.nanoseconds) }
        } else {
          totals[unsplitNotify] += Int128(row.stages.notify.nanoseconds)
        }
      }
      if known(4) {
        if let `import` = decision.import {
          totals[unsplitNotify + 1] += Int128(`import`.nanoseconds)
          for (index, time) in blocked.import.enumerated() { totals[importBlocked + index] += Int128(time.nanoseconds) }
        } else {
          totals[unsplitImport] += Int128(row.stages.importSchedule.nanoseconds)
        }
      }
      // A hidden row (a record type its model never reads) did not wait on a download: its time
      // since the commit is `hidden`.
      if known(5) { totals[row.outcome == .hidden ? hidden : download] += Int128(row.stages.download.nanoseconds) }
      if known(6) { totals[ui] += Int128(row.stages.ui.nanoseconds) }
    }
    return zip(names, totals).filter { $0.1 > 0 }.map { ($0.0, $0.1) }
  }
}
