import SimKernel
import SimModel

extension MetricsRecorder {
  /// Where every row's time went, visible or not (a stuck row's to the end of the run), summed
  /// by cause: the stages without causes (`save`, `upload`, `download`, `ui`), the scheduling
  /// stages split into decision and each policy's or wait cause's blocked time, and notify split
  /// into its causes (a ghost's notify, which has none, as `notify`). Zeros are left out; the
  /// order is the pipeline's. Needs the push log (`keepsPushLog`) for the notify split.
  public func causeTotals() -> [(name: String, total: SimDuration)] {
    let names =
      ["save", "exportDecision"] + policyNames.map { "exportBlocked." + $0 } + ["upload"]
      + LatencyRow.notifyCauseNames.map { "notify." + $0 } + ["notify", "importDecision"]
      + policyNames.map { "importBlocked." + $0 } + ["download", "ui", "exportSchedule", "importSchedule"]
    var totals = [SimDuration](repeating: .zero, count: names.count)
    let exportBlocked = 2, notifyStart = 3 + policyNames.count,
      unsplitNotify = notifyStart + LatencyRow.notifyCauseNames.count
    let importBlocked = unsplitNotify + 2
    let (download, ui) = (importBlocked + policyNames.count, importBlocked + policyNames.count + 1)
    let (unsplitExport, unsplitImport) = (ui + 1, ui + 2)
    forEachLatencyRow { row in
      guard row.knownStages > 0 else { return }
      let known = { (stage: Int) in stage < row.knownStages }
      totals[0] += row.stages.save
      let blocked = blockedByPolicy(row)
      let decision = decisionTime(row)
      if known(1) {
        if let export = decision.export {
          totals[1] += export
          for (index, time) in blocked.export.enumerated() { totals[exportBlocked + index] += time }
        } else {
          totals[unsplitExport] += row.stages.exportSchedule
        }
      }
      if known(2) { totals[exportBlocked + policyNames.count] += row.stages.upload }
      if known(3) {
        if let notify = notifyCauses(row) {
          for (index, time) in notify.enumerated() { totals[notifyStart + index] += time }
        } else {
          totals[unsplitNotify] += row.stages.notify
        }
      }
      if known(4) {
        if let `import` = decision.import {
          totals[unsplitNotify + 1] += `import`
          for (index, time) in blocked.import.enumerated() { totals[importBlocked + index] += time }
        } else {
          totals[unsplitImport] += row.stages.importSchedule
        }
      }
      if known(5) { totals[download] += row.stages.download }
      if known(6) { totals[ui] += row.stages.ui }
    }
    return zip(names, totals).filter { $0.1 > .zero }.map { ($0.0, $0.1) }
  }
}
