import SimKernel
import SimModel

extension MetricsRecorder {
  /// Where every row's time went, visible or not (a stuck row's to the end of the run), summed
  /// by cause: `save` and `ui`; the scheduling stages split into decision, each policy's or wait
  /// cause's blocked time and each hold (`exportHeld.*`, `importHeld.*`); upload and download
  /// less their suspended time (`upload.suspended`, `download.suspended`); notify split into its
  /// causes (a ghost's as `notify.ghost`); and a hidden row's download as `hidden`.
  /// Zeros are left out; the order is the pipeline's. Needs the push log (`keepsPushLog`) for the
  /// notify split.
  public func causeTotals() -> [(name: String, nanoseconds: Int128)] {
    let held = LatencyRow.heldNames
    let names =
      ["save", "exportDecision"] + policyNames.map { "exportBlocked." + $0 } + held.map { "exportHeld." + $0 }
      + ["upload", "upload.suspended"] + LatencyRow.notifyCauseNames.map { "notify." + $0 } + ["notify", "importDecision"]
      + policyNames.map { "importBlocked." + $0 } + held.map { "importHeld." + $0 }
      + ["download", "download.suspended", "hidden", "ui", "exportSchedule", "importSchedule"]
    let position = Dictionary(uniqueKeysWithValues: names.enumerated().map { ($1, $0) })
    // 128-bit sums: stuck rows' time to the end of a long run adds past 64 bits of nanoseconds
    // (28,858 rows stuck for 60 days are 1.5e20 ns).
    var totals = [Int128](repeating: 0, count: names.count)
    let exportStart = position["exportDecision"]!, importStart = position["importDecision"]!
    let notifyStart = position["notify.fanout"]!
    func add(_ index: Int, _ time: SimDuration) { totals[index] += Int128(time.nanoseconds) }
    func add(_ split: StageSplit, at start: Int) {
      add(start, split.decision + split.unexplained)
      for (index, time) in split.blocked.enumerated() { add(start + 1 + index, time) }
      for (index, time) in split.held.enumerated() { add(start + 1 + policyNames.count + index, time) }
    }
    forEachLatencyRow { row in
      guard row.knownStages > 0 else { return }
      let known = { (stage: Int) in stage < row.knownStages }
      add(0, row.stages.save)
      if known(1) {
        if let split = exportSplit(row) { add(split, at: exportStart) } else { add(position["exportSchedule"]!, row.stages.exportSchedule) }
      }
      let transfer = transferSplit(row)
      if known(2) {
        add(position["upload"]!, row.stages.upload - transfer.uploadSuspended)
        add(position["upload.suspended"]!, transfer.uploadSuspended)
      }
      if known(3) {
        if let notify = notifyCauses(row) {
          for (index, time) in notify.enumerated() { add(notifyStart + index, time) }
        } else {
          add(position["notify"]!, row.stages.notify)
        }
      }
      if known(4) {
        if let split = importSplit(row) { add(split, at: importStart) } else { add(position["importSchedule"]!, row.stages.importSchedule) }
      }
      // A hidden row (a record type its model never reads) did not wait on a download: its time
      // since the commit is `hidden`.
      if known(5) {
        add(position["download"]!, row.stages.download - transfer.downloadSuspended - transfer.hidden)
        add(position["download.suspended"]!, transfer.downloadSuspended)
        add(position["hidden"]!, transfer.hidden)
      }
      if known(6) { add(position["ui"]!, row.stages.ui) }
    }
    return zip(names, totals).filter { $0.1 > 0 }.map { ($0.0, $0.1) }
  }
}
