import SimKernel
import SimModel

/// The named metrics of one run, in a stable order: what `expect` assertions, `summary.csv` and
/// the printed summary refer to.
public struct RunSummary: Sendable {
  /// A metric's name, and whether it is a duration (seconds) or a count.
  public struct MetricInfo: Sendable {
    public var name: String
    public var isDuration: Bool
    public var meaning: String

    /// Whether the metric is a 0/1 outcome (`converged`): its replications' mean is a
    /// proportion, with a Wilson interval.
    public var isProportion: Bool { name == "converged" }

    /// Which way is better, for `compare`: lower for latencies, waits, losses and errors; higher
    /// for what was delivered; neither for plain counts of activity.
    public var betterDirection: Int {
      let lower = [
        "latency.", "stage.", "blocked.", "errors.", "convergenceTime", "lostUpdates", "writesLost",
        "writesPending", "ghosts", "duplicates", "rowsNotVisible", "setupFailures", "pushes.dropped",
        "pushes.discarded", "exportsFailed", "importsFailed", "orphan", "recordsHidden", "rowsHidden",
      ]
      let higher = ["rowsVisible", "converged", "writesCommitted"]
      if lower.contains(where: { name.hasPrefix($0) }) { return -1 }
      if higher.contains(name) { return 1 }
      return 0
    }
  }

  /// Values by metric, in `catalog` order; nil where undefined (no visible rows, never converged).
  public var values: [Double?]
  /// The metrics of this run: `RunSummary.catalog`, then the `blocked.*` metrics of any policy
  /// in the run that is not one of SyncSim's own (a researcher's).
  public var catalog: [MetricInfo]

  /// Every metric SyncSim reports for its own policies.
  public static let catalog = catalog(policyNames: PolicyRegistry.standard.names)

  /// Every metric, with `blocked.<name>.*` for each of `policyNames` and then each wait cause.
  public static func catalog(policyNames: [String]) -> [MetricInfo] {
    let policyNames = policyNames + WaitCause.names
    var list: [MetricInfo] = [
      MetricInfo(name: "latency.p50", isDuration: true, meaning: "median save-to-visible latency over visible rows"),
      MetricInfo(name: "latency.p90", isDuration: true, meaning: "90th percentile latency"),
      MetricInfo(name: "latency.p95", isDuration: true, meaning: "95th percentile latency"),
      MetricInfo(name: "latency.p99", isDuration: true, meaning: "99th percentile latency"),
      MetricInfo(name: "latency.max", isDuration: true, meaning: "longest latency"),
      MetricInfo(name: "latency.mean", isDuration: true, meaning: "mean latency"),
      MetricInfo(
        name: "convergenceTime", isDuration: true, meaning: "last write to the last store change, if converged"),
      MetricInfo(
        name: "converged", isDuration: false,
        meaning: "1 if every store equals the server with nothing pending at the end"),
      MetricInfo(name: "writes", isDuration: false, meaning: "writes made"),
      MetricInfo(name: "localEdits", isDuration: false, meaning: "edits of local-only entities (never synced)"),
      MetricInfo(name: "writesCommitted", isDuration: false, meaning: "writes committed and not lost"),
      MetricInfo(name: "writesPending", isDuration: false, meaning: "writes unsaved or not yet committed at the end"),
      MetricInfo(
        name: "writesSupersededLocally", isDuration: false, meaning: "writes replaced on their device before export"),
      MetricInfo(
        name: "lostUpdates", isDuration: false, meaning: "writes overwritten by a device that had not seen them"),
      MetricInfo(
        name: "writesLost", isDuration: false,
        meaning: "writes lost on their device (reset without guard, removed store)"),
      MetricInfo(
        name: "ghosts", isDuration: false, meaning: "public records deleted at the server that devices still show"),
      MetricInfo(name: "duplicates", isDuration: false, meaning: "live records repeating another's logical key"),
      MetricInfo(name: "counterValue", isDuration: false, meaning: "server value of the incremented counter fields"),
      MetricInfo(name: "contributions", isDuration: false, meaning: "live contribution records at the server"),
      MetricInfo(name: "resets", isDuration: false, meaning: "mirroring resets"),
      MetricInfo(name: "setupFailures", isDuration: false, meaning: "container setups that failed (134410)"),
      MetricInfo(name: "orphanWindows", isDuration: false, meaning: "children held before their parent arrived"),
      MetricInfo(
        name: "recordsHidden", isDuration: false,
        meaning: "(device, record) pairs hidden from older model versions at the end"),
      MetricInfo(
        name: "rowsHidden", isDuration: false,
        meaning: "writes on records an observer's older model version does not fetch"),
      MetricInfo(name: "orphanTime.total", isDuration: true, meaning: "time children were held without their parent"),
      MetricInfo(name: "orphanTime.longest", isDuration: true, meaning: "longest orphan window"),
      MetricInfo(name: "rows", isDuration: false, meaning: "(write, other device) pairs"),
      MetricInfo(name: "rowsVisible", isDuration: false, meaning: "pairs whose write the device showed"),
      MetricInfo(
        name: "rowsNotVisible", isDuration: false, meaning: "committed writes a device had not shown at the end"),
    ]
    for stage in LatencyRow.stageNames {
      list.append(
        MetricInfo(
          name: "stage.\(stage).mean", isDuration: true, meaning: "mean time in the \(stage) stage over visible rows"))
    }
    list += [
      MetricInfo(name: "exports", isDuration: false, meaning: "export activities that succeeded"),
      MetricInfo(name: "exportsFailed", isDuration: false, meaning: "export activities that failed"),
      MetricInfo(name: "imports", isDuration: false, meaning: "import activities that succeeded"),
      MetricInfo(name: "importsFailed", isDuration: false, meaning: "import activities that failed"),
      MetricInfo(name: "exports.longest", isDuration: true, meaning: "longest export that carried records, start to end"),
      MetricInfo(name: "imports.longest", isDuration: true, meaning: "longest import that carried records, start to end"),
      MetricInfo(
        name: "imports.longestStartedAt", isDuration: true, meaning: "when the longest import started (run time)"),
      MetricInfo(
        name: "retryAfter.mean", isDuration: true,
        meaning: "mean retry-after of serviceUnavailable and requestRateLimited answers"),
      MetricInfo(name: "retryAfter.longest", isDuration: true, meaning: "longest retry-after answered"),
      MetricInfo(name: "requestsUp", isDuration: false, meaning: "modify requests"),
      MetricInfo(name: "requestsDown", isDuration: false, meaning: "fetch requests (pages)"),
      MetricInfo(name: "recordsUp", isDuration: false, meaning: "records uploaded"),
      MetricInfo(name: "recordsDown", isDuration: false, meaning: "records downloaded"),
      MetricInfo(name: "bytesUp", isDuration: false, meaning: "bytes uploaded"),
      MetricInfo(name: "bytesDown", isDuration: false, meaning: "bytes downloaded"),
    ]
    for event in PushEvent.allCases {
      list.append(MetricInfo(name: "pushes.\(event.rawValue)", isDuration: false, meaning: "pushes \(event.rawValue)"))
    }
    for error in CloudError.allCases {
      list.append(MetricInfo(name: "errors.\(error.rawValue)", isDuration: false, meaning: "\(error.rawValue) errors"))
    }
    for policy in policyNames {
      list.append(MetricInfo(name: "blocked.\(policy).count", isDuration: false, meaning: "waits on \(policy)"))
      list.append(
        MetricInfo(name: "blocked.\(policy).total", isDuration: true, meaning: "time activities waited on \(policy)"))
      list.append(MetricInfo(name: "blocked.\(policy).longest", isDuration: true, meaning: "longest wait on \(policy)"))
    }
    list.append(MetricInfo(name: "events", isDuration: false, meaning: "events processed"))
    return list
  }

  public static let metricNames = catalog.map(\.name)

  public static func metric(named name: String) -> MetricInfo? { catalog.first { $0.name == name } }

  /// The value of `name`, if defined.
  public func value(_ name: String) -> Double? {
    guard let index = catalog.firstIndex(where: { $0.name == name }) else { return nil }
    return values[index]
  }

  /// Computes every metric from a finished run.
  public init(recorder: MetricsRecorder, events: Int) {
    self.init(tally: SummaryTally(recorder: recorder, events: events))
  }

  /// Computes every metric from the tally of a run's parts.
  public init(tally: SummaryTally) {
    var named: [String: Double] = [:]
    let latencies = tally.latencies
    let stageSums = tally.stageSums
    if let mean = latencies.mean {
      let percentiles = latencies.percentiles([0.5, 0.9, 0.95, 0.99])!
      for (name, value) in zip(["p50", "p90", "p95", "p99"], percentiles) {
        named["latency.\(name)"] = Double(value) / 1e9
      }
      named["latency.max"] = Double(latencies.maximum) / 1e9
      named["latency.mean"] = mean / 1e9
      for (index, stage) in LatencyRow.stageNames.enumerated() {
        named["stage.\(stage).mean"] = stageSums[index] / Double(latencies.count) / 1e9
      }
    }
    if let convergence = tally.convergenceTime { named["convergenceTime"] = convergence.seconds }
    named["converged"] = tally.converged ? 1 : 0
    let accounting = tally.accounting
    named["writes"] = Double(accounting.total)
    named["localEdits"] = Double(tally.counters.localEdits)
    named["writesCommitted"] = Double(accounting.committed)
    named["writesPending"] = Double(accounting.pending)
    named["writesSupersededLocally"] = Double(accounting.supersededLocally)
    named["lostUpdates"] = Double(accounting.lostUpdates)
    named["writesLost"] = Double(accounting.lost)
    named["ghosts"] = Double(tally.finalState.ghosts)
    named["duplicates"] = Double(tally.finalState.duplicates)
    named["counterValue"] = Double(tally.finalState.counterValue)
    named["contributions"] = Double(tally.finalState.contributions)
    named["resets"] = Double(tally.counters.resets)
    named["setupFailures"] = Double(tally.counters.setupFailures)
    named["orphanWindows"] = Double(tally.counters.orphanWindows)
    named["recordsHidden"] = Double(tally.finalState.hiddenRecords)
    named["rowsHidden"] = Double(tally.hiddenRows)
    named["orphanTime.total"] = tally.counters.orphanTotal.seconds
    named["orphanTime.longest"] = tally.counters.orphanLongest.seconds
    for (index, error) in CloudError.allCases.enumerated() {
      named["errors.\(error.rawValue)"] = Double(tally.counters.cloudErrors[index])
    }
    named["rows"] = Double(tally.rowCount)
    named["rowsVisible"] = Double(latencies.count)
    named["rowsNotVisible"] = Double(tally.notVisibleRows)
    let c = tally.counters
    for (name, value) in [
      ("exports", c.exportsSucceeded), ("exportsFailed", c.exportsFailed), ("imports", c.importsSucceeded),
      ("importsFailed", c.importsFailed), ("requestsUp", c.requestsUp), ("requestsDown", c.requestsDown),
      ("recordsUp", c.recordsUp), ("recordsDown", c.recordsDown),
    ] {
      named[name] = Double(value)
    }
    if c.retryAfterCount > 0 {
      named["retryAfter.mean"] = c.retryAfterTotal.seconds / Double(c.retryAfterCount)
      named["retryAfter.longest"] = c.retryAfterLongest.seconds
    }
    for (name, longest) in tally.longest {
      named["\(name).longest"] = longest.duration.seconds
      if name == "imports" { named["imports.longestStartedAt"] = longest.startedAt.seconds }
    }
    named["bytesUp"] = Double(c.bytesUp)
    named["bytesDown"] = Double(c.bytesDown)
    for event in PushEvent.allCases { named["pushes.\(event.rawValue)"] = Double(c.pushCount(event)) }
    let ownNames = PolicyRegistry.standard.names
    let extraNames = tally.policyNames.filter { !ownNames.contains($0) && !WaitCause.names.contains($0) }
    let policyNames = ownNames + extraNames
    for policy in policyNames + WaitCause.names {
      let index = tally.policyNames.firstIndex(of: policy)
      named["blocked.\(policy).count"] = Double(index.map { c.blockedCount[$0] } ?? 0)
      named["blocked.\(policy).total"] = index.map { c.blockedTotal[$0].seconds } ?? 0
      named["blocked.\(policy).longest"] = index.map { c.blockedLongest[$0].seconds } ?? 0
    }
    named["events"] = Double(tally.events)
    catalog = policyNames == ownNames ? Self.catalog : Self.catalog(policyNames: policyNames)
    values = catalog.map { named[$0.name] }
  }

}
