import SimKernel
import SimModel

/// What one part of a run adds to its summary, kept so that parts merge: every latency (for
/// exact percentiles), sums, counts and extremes.
///
/// A run of independent parts (`WorldPartitioning`) tallies each part from its own recorder and
/// adds the tallies in part order; `RunSummary` is then computed from the total. Floating-point
/// sums are taken per part and then added in part order, so the result does not depend on how
/// parts were batched or which thread ran them.
public struct SummaryTally: Sendable {
  /// Visible rows' save-to-visible latencies.
  var latencies = LatencySample()
  /// Rows not visible at the end that still could be (not visible, or pending; not a public
  /// delete's ghost rows, which never are): each one's time from its edit to the end, where its
  /// latency is censored (`KaplanMeier`).
  var censored = LatencySample.censoredSample()
  /// Visible rows' time per stage, nanoseconds, summed exactly (an Int64 overflows beyond a few
  /// million rows; a Double rounds, so a sum would depend on how parts were grouped, and tallies
  /// of shards would not merge to the unsharded run's).
  var stageSums = [Int128](repeating: 0, count: LatencyRow.stageNames.count)
  var rowCount = 0
  var hiddenRows = 0
  var notVisibleRows = 0
  var converged = true
  var lastEditAt: SimTime?
  var lastStoreChangeAt = SimTime.zero
  var accounting = WriteAccounting()
  var counters: RunCounters
  var finalState = FinalState()
  /// The longest export and import that carried records, by metric prefix.
  var longest: [(name: String, longest: (duration: SimDuration, startedAt: SimTime))] = []
  var policyNames: [String]
  var reportedErrors: [CloudError]
  var events = 0
  /// What the run showed of the scenario's watched writes (`WriteWatch`), in their order.
  var arrivals: [WriteWatch.Arrival] = []

  /// How many of `policyNames`' last names are wait causes: the run's reported causes, a prefix
  /// of `WaitCause.allCases` (`WorldSpec.reportedCauses`).
  var reportedCauseCount: Int {
    for count in stride(from: WaitCause.allCases.count, to: 0, by: -1)
    where policyNames.suffix(count).elementsEqual(WaitCause.allCases.prefix(count).map(\.name)) {
      return count
    }
    return 0
  }

  /// The tally of one part, read from its recorder after its run ended; `threads` share the rows
  /// of a large zone (the tally is the same for any number); `watches` are the scenario's
  /// watched writes, their devices numbered as the recorder's.
  public init(recorder: MetricsRecorder, events: Int, threads: Int = 1, watches: [WriteWatch] = []) {
    counters = recorder.counters
    policyNames = recorder.policyNames
    reportedErrors = recorder.reportedErrors
    self.events = events
    // The rows' contributions, without building the rows (a large run has hundreds of millions).
    let rows = recorder.rowTally(threads: threads)
    rowCount = rows.rowCount
    hiddenRows = rows.hiddenRows
    notVisibleRows = rows.notVisibleRows
    stageSums = rows.stageSums
    latencies = rows.latencies
    censored = rows.censored
    converged = recorder.converged
    lastEditAt = recorder.lastEditAt
    lastStoreChangeAt = recorder.lastStoreChangeAt
    accounting = recorder.writeAccounting()
    finalState = recorder.finalState
    longest = recorder.longestActivities()
    arrivals = recorder.arrivals(of: watches)
  }

  /// Adds a later part's tally (parts are added in part order).
  public mutating func add(_ other: SummaryTally) {
    latencies.append(contentsOf: other.latencies)
    censored.append(contentsOf: other.censored)
    for index in stageSums.indices { stageSums[index] += other.stageSums[index] }
    rowCount += other.rowCount
    hiddenRows += other.hiddenRows
    notVisibleRows += other.notVisibleRows
    converged = converged && other.converged
    if let edit = other.lastEditAt { lastEditAt = max(lastEditAt ?? edit, edit) }
    lastStoreChangeAt = max(lastStoreChangeAt, other.lastStoreChangeAt)
    accounting.committed += other.accounting.committed
    accounting.lostUpdates += other.accounting.lostUpdates
    accounting.supersededLocally += other.accounting.supersededLocally
    accounting.pending += other.accounting.pending
    accounting.lost += other.accounting.lost
    counters.add(other.counters)
    finalState.ghosts += other.finalState.ghosts
    finalState.duplicates += other.finalState.duplicates
    finalState.counterValue += other.finalState.counterValue
    finalState.contributions += other.finalState.contributions
    finalState.hiddenRecords += other.finalState.hiddenRecords
    for entry in other.longest {
      if let index = longest.firstIndex(where: { $0.name == entry.name }) {
        if entry.longest.duration > longest[index].longest.duration { longest[index] = entry }
      } else {
        longest.append(entry)
        longest.sort { $0.name < $1.name }
      }
    }
    events += other.events
    for index in arrivals.indices where index < other.arrivals.count { arrivals[index].add(other.arrivals[index]) }
  }

  /// Convergence time: from the last write to the last store change, or nil if never converged.
  var convergenceTime: SimDuration? {
    guard converged else { return nil }
    guard let lastEditAt else { return .zero }
    return max(.zero, lastStoreChangeAt - lastEditAt)
  }

}

extension RunCounters {
  /// Adds another part's counters (the same policies, in the same order).
  mutating func add(_ other: RunCounters) {
    exportsSucceeded += other.exportsSucceeded
    exportsFailed += other.exportsFailed
    importsSucceeded += other.importsSucceeded
    importsFailed += other.importsFailed
    requestsUp += other.requestsUp
    requestsDown += other.requestsDown
    recordsUp += other.recordsUp
    recordsDown += other.recordsDown
    bytesUp += other.bytesUp
    bytesDown += other.bytesDown
    for index in pushes.indices { pushes[index] += other.pushes[index] }
    lostUpdates += other.lostUpdates
    for index in cloudErrors.indices { cloudErrors[index] += other.cloudErrors[index] }
    retryAfterCount += other.retryAfterCount
    retryAfterTotal = retryAfterTotal.saturatingAdding(other.retryAfterTotal)
    retryAfterLongest = max(retryAfterLongest, other.retryAfterLongest)
    resets += other.resets
    localEdits += other.localEdits
    orphanWindows += other.orphanWindows
    orphanTotal = orphanTotal.saturatingAdding(other.orphanTotal)
    orphanLongest = max(orphanLongest, other.orphanLongest)
    setupFailures += other.setupFailures
    for index in blockedCount.indices {
      blockedCount[index] += other.blockedCount[index]
      blockedTotal[index] = blockedTotal[index].saturatingAdding(other.blockedTotal[index])
      blockedLongest[index] = max(blockedLongest[index], other.blockedLongest[index])
    }
  }
}
