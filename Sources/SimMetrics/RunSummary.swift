import SimKernel
import SimModel

/// The named metrics of one run, in a stable order: what `expect` assertions, `summary.csv` and
/// the printed summary refer to.
public struct RunSummary: Sendable {
  /// Which way a metric is better, for `compare`'s verdicts.
  public enum Better: Int, Sendable {
    case lower = -1
    case neither = 0
    case higher = 1
  }

  /// One metric, declared once: name, unit, better direction, meaning and how it is computed.
  /// Summary columns, `docs/metrics.md`, `compare`'s verdict direction, `expect`'s names and the
  /// report's labels all come from these declarations.
  public struct MetricInfo: Sendable {
    public var name: String
    /// "s" for a duration; otherwise what is counted ("writes", "rows", "bytes"), or "1" for a
    /// 0/1 outcome.
    public var unit: String
    public var better: Better
    public var meaning: String
    /// The value from a run's tally; nil where undefined (no visible rows, never converged).
    let compute: @Sendable (Inputs) -> Double?

    init(
      _ name: String, _ unit: String, _ better: Better, _ meaning: String,
      _ compute: @escaping @Sendable (Inputs) -> Double?
    ) {
      (self.name, self.unit, self.better, self.meaning, self.compute) = (name, unit, better, meaning, compute)
    }

    /// Whether the metric is a duration in seconds.
    public var isDuration: Bool { unit == "s" }

    /// Whether the metric is a 0/1 outcome (`converged`): its replications' mean is a
    /// proportion, with a Wilson interval.
    public var isProportion: Bool { unit == "1" }

    /// Which way is better, for `compare`: -1 lower, 1 higher, 0 neither.
    public var betterDirection: Int { better.rawValue }
  }

  /// What the metrics are computed from: the tally, with what several metrics share computed once.
  struct Inputs {
    var tally: SummaryTally
    /// p50, p90, p95, p99 of visible rows' latency, seconds (nil with no visible rows).
    var percentiles: [Double]?

    var counters: RunCounters { tally.counters }

    /// Index of a policy or wait cause in the tally's blocked counters.
    func blocked(_ name: String) -> Int? { tally.policyNames.firstIndex(of: name) }
  }

  /// Values by metric, in `catalog` order; nil where undefined.
  public var values: [Double?]
  /// The metrics of this run: those of the policies in its set, then the wait causes.
  public var catalog: [MetricInfo]

  /// Every metric SyncSim reports for its own registered policies (what `expect` and
  /// `tolerances` may name).
  public static let catalog = catalog(policyNames: PolicyRegistry.standard.names)

  /// Every metric, with `blocked.<name>.*` for each of `policyNames` and then each wait cause.
  public static func catalog(
    policyNames: [String], errors: [CloudError] = CloudError.allCases,
    causes: [WaitCause] = WaitCause.allCases, approximateLatency: Bool = false, watches: [String] = []
  ) -> [MetricInfo] {
    latencyHead + (approximateLatency ? [percentileError] : []) + head
      + LatencyRow.stageNames.enumerated().map(stageMetric) + activity
      + PushEvent.allCases.map(pushMetric) + errors.map(errorMetric)
      + (policyNames + causes.map(\.name)).flatMap(blockedMetrics) + [events] + watches.flatMap(watchMetrics)
  }

  /// Only in a run whose latencies were counted in a histogram (more than
  /// `LatencySample.defaultExactLimit` visible rows): the bound on the percentiles' relative error.
  static let percentileError = MetricInfo(
    "latency.percentileError", "ratio", .neither,
    "only when the run had more than 4,194,304 visible rows: the percentiles come from a histogram and are within "
      + "this relative error of the exact values (mean and max stay exact)"
  ) { $0.tally.latencies.isApproximate ? LatencyHistogram.relativeErrorBound : nil }

  /// The latency statistics, first in every summary; `percentileError` follows them when present.
  static let latencyHead: [MetricInfo] = [
    percentile("latency.p50", 0, "median save-to-visible latency over visible rows"),
    percentile("latency.p90", 1, "90th percentile latency"),
    percentile("latency.p95", 2, "95th percentile latency"),
    percentile("latency.p99", 3, "99th percentile latency"),
    MetricInfo("latency.max", "s", .lower, "longest latency") {
      $0.tally.latencies.count > 0 ? Double($0.tally.latencies.maximum) / 1e9 : nil
    },
    MetricInfo("latency.mean", "s", .lower, "mean latency") { $0.tally.latencies.mean.map { $0 / 1e9 } },
    MetricInfo(
      "latency.kaplanMeierP50", "s", .lower,
      "median latency with the rows never visible counted as censored at the run's end (Kaplan–Meier): unlike "
        + "latency.p50, not biased low by the slowest rows missing; empty when more than half the rows may never be "
        + "visible, or past 1,048,576 censored rows"
    ) { KaplanMeier.median(events: $0.tally.latencies, censored: $0.tally.censored) },
  ]

  static let head: [MetricInfo] = [
    MetricInfo(
      "latency.isLowerBound", "1", .lower,
      "1 when committed writes were still unseen at the end (rowsNotVisible > 0): the latency statistics cover "
        + "visible rows only, so each is a lower bound"
    ) { $0.tally.notVisibleRows > 0 ? 1 : 0 },
    MetricInfo("convergenceTime", "s", .lower, "last write to the last store change, if converged") {
      $0.tally.convergenceTime?.seconds
    },
    MetricInfo("converged", "1", .higher, "1 if every store equals the server with nothing pending at the end") {
      $0.tally.converged ? 1 : 0
    },
    MetricInfo("writes", "writes", .neither, "writes made") { Double($0.tally.accounting.total) },
    MetricInfo("localEdits", "edits", .neither, "edits of local-only entities (never synced)") {
      Double($0.counters.localEdits)
    },
    MetricInfo("writesCommitted", "writes", .higher, "writes committed and not lost") {
      Double($0.tally.accounting.committed)
    },
    MetricInfo("writesPending", "writes", .lower, "writes unsaved or not yet committed at the end") {
      Double($0.tally.accounting.pending)
    },
    MetricInfo("writesSupersededLocally", "writes", .neither, "writes replaced on their device before export") {
      Double($0.tally.accounting.supersededLocally)
    },
    MetricInfo("lostUpdates", "writes", .lower, "writes overwritten by a device that had not seen them") {
      Double($0.tally.accounting.lostUpdates)
    },
    MetricInfo("writesLost", "writes", .lower, "writes lost on their device (reset without guard, removed store)") {
      Double($0.tally.accounting.lost)
    },
    MetricInfo("ghosts", "records", .lower, "public records deleted at the server that devices still show") {
      Double($0.tally.finalState.ghosts)
    },
    MetricInfo("duplicates", "records", .lower, "live records repeating another's logical key") {
      Double($0.tally.finalState.duplicates)
    },
    MetricInfo("counterValue", "increments", .neither, "server value of the incremented counter fields") {
      Double($0.tally.finalState.counterValue)
    },
    MetricInfo("contributions", "records", .neither, "live contribution records at the server") {
      Double($0.tally.finalState.contributions)
    },
    MetricInfo("resets", "resets", .neither, "mirroring resets") { Double($0.counters.resets) },
    MetricInfo("setupFailures", "setups", .lower, "container setups that failed (134410)") {
      Double($0.counters.setupFailures)
    },
    MetricInfo("orphanWindows", "windows", .lower, "children held before their parent arrived") {
      Double($0.counters.orphanWindows)
    },
    MetricInfo("recordsHidden", "pairs", .lower, "(device, record) pairs hidden from older model versions at the end") {
      Double($0.tally.finalState.hiddenRecords)
    },
    MetricInfo("rowsHidden", "rows", .lower, "writes on records an observer's older model version does not fetch") {
      Double($0.tally.hiddenRows)
    },
    MetricInfo("orphanTime.total", "s", .lower, "time children were held without their parent") {
      $0.counters.orphanTotal.seconds
    },
    MetricInfo("orphanTime.longest", "s", .lower, "longest orphan window") { $0.counters.orphanLongest.seconds },
    MetricInfo("rows", "rows", .neither, "(write, other device) pairs") { Double($0.tally.rowCount) },
    MetricInfo("rowsVisible", "rows", .higher, "pairs whose write the device showed") {
      Double($0.tally.latencies.count)
    },
    MetricInfo("rowsNotVisible", "rows", .lower, "committed writes a device had not shown at the end") {
      Double($0.tally.notVisibleRows)
    },
  ]

  static let activity: [MetricInfo] = [
    MetricInfo("exports", "activities", .neither, "export activities that succeeded") {
      Double($0.counters.exportsSucceeded)
    },
    MetricInfo("exportsFailed", "activities", .lower, "export activities that failed") {
      Double($0.counters.exportsFailed)
    },
    MetricInfo("imports", "activities", .neither, "import activities that succeeded") {
      Double($0.counters.importsSucceeded)
    },
    MetricInfo("importsFailed", "activities", .lower, "import activities that failed") {
      Double($0.counters.importsFailed)
    },
    MetricInfo("exports.longest", "s", .neither, "longest export that carried records, start to end") {
      $0.tally.longest.first { $0.name == "exports" }?.longest.duration.seconds
    },
    MetricInfo("imports.longest", "s", .neither, "longest import that carried records, start to end") {
      $0.tally.longest.first { $0.name == "imports" }?.longest.duration.seconds
    },
    MetricInfo("imports.longestStartedAt", "s", .neither, "when the longest import started (run time)") {
      $0.tally.longest.first { $0.name == "imports" }?.longest.startedAt.seconds
    },
    MetricInfo(
      "retryAfter.mean", "s", .neither, "mean retry-after of serviceUnavailable and requestRateLimited answers"
    ) {
      $0.counters.retryAfterCount > 0
        ? $0.counters.retryAfterTotal.seconds / Double($0.counters.retryAfterCount) : nil
    },
    MetricInfo("retryAfter.longest", "s", .neither, "longest retry-after answered") {
      $0.counters.retryAfterCount > 0 ? $0.counters.retryAfterLongest.seconds : nil
    },
    MetricInfo("requestsUp", "requests", .neither, "modify requests sent, a batch the server refused whole included") {
      Double($0.counters.requestsUp)
    },
    MetricInfo("requestsDown", "requests", .neither, "fetch requests (pages)") { Double($0.counters.requestsDown) },
    MetricInfo("recordsUp", "records", .neither, "records uploaded") { Double($0.counters.recordsUp) },
    MetricInfo("recordsDown", "records", .neither, "records downloaded") { Double($0.counters.recordsDown) },
    MetricInfo("bytesUp", "bytes", .neither, "bytes uploaded, a refused batch's included") {
      Double($0.counters.bytesUp)
    },
    MetricInfo("bytesDown", "bytes", .neither, "bytes downloaded") { Double($0.counters.bytesDown) },
  ]

  static let events = MetricInfo("events", "events", .neither, "events processed") { Double($0.tally.events) }

  static func percentile(_ name: String, _ index: Int, _ meaning: String) -> MetricInfo {
    MetricInfo(name, "s", .lower, meaning) { $0.percentiles?[index] }
  }

  static func stageMetric(_ index: Int, _ stage: String) -> MetricInfo {
    MetricInfo("stage.\(stage).mean", "s", .lower, "mean time in the \(stage) stage over visible rows") {
      let count = $0.tally.latencies.count
      return count > 0 ? Double($0.tally.stageSums[index]) / Double(count) / 1e9 : nil
    }
  }

  static func pushMetric(_ event: PushEvent) -> MetricInfo {
    let better: Better = event == .dropped || event == .discarded || event == .withheld ? .lower : .neither
    return MetricInfo("pushes.\(event.rawValue)", "pushes", better, "pushes \(event.rawValue)") {
      Double($0.counters.pushCount(event))
    }
  }

  static func errorMetric(_ error: CloudError) -> MetricInfo {
    let index = CloudError.allCases.firstIndex(of: error)!
    return MetricInfo("errors.\(error.rawValue)", "errors", .lower, "\(error.rawValue) errors") {
      Double($0.counters.cloudErrors[index])
    }
  }

  /// `blocked.<name>.count`, `.total` and `.longest`: waits on a policy or a wait cause.
  static func blockedMetrics(_ name: String) -> [MetricInfo] {
    [
      MetricInfo("blocked.\(name).count", "waits", .lower, "waits on \(name)") { inputs in
        Double(inputs.blocked(name).map { inputs.counters.blockedCount[$0] } ?? 0)
      },
      MetricInfo("blocked.\(name).total", "s", .lower, "time activities waited on \(name)") { inputs in
        inputs.blocked(name).map { inputs.counters.blockedTotal[$0].seconds } ?? 0
      },
      MetricInfo("blocked.\(name).longest", "s", .lower, "longest wait on \(name)") { inputs in
        inputs.blocked(name).map { inputs.counters.blockedLongest[$0].seconds } ?? 0
      },
    ]
  }

  /// `watch.<name>.*`: the arrival of a watched write (`WriteWatch`), last in the summary.
  public static func watchMetrics(_ name: String) -> [MetricInfo] {
    let found: @Sendable (Inputs) -> WriteWatch.Arrival? = { inputs in
      inputs.tally.arrivals.first { $0.name == name && $0.editedAt != nil }
    }
    return [
      MetricInfo(
        "watch.\(name).latency", "s", .lower,
        "from the watched write \(name)'s edit until every other device with access showed it (its slowest row); "
          + "empty unless all did"
      ) { found($0)?.latency?.seconds },
      MetricInfo(
        "watch.\(name).firstVisible", "s", .lower, "from the watched write \(name)'s edit until the first other device showed it"
      ) { found($0)?.first?.seconds },
      MetricInfo(
        "watch.\(name).visibleOn", "rows", .higher,
        "the watched write \(name)'s rows (other devices' stores with access) that showed it by the end"
      ) { found($0).map { Double($0.visibleOn) } },
      MetricInfo(
        "watch.\(name).editedAt", "s", .neither,
        "when the watched write \(name) was made (run time); every watch.\(name) metric is empty when its device made "
          + "no such write"
      ) { found($0)?.editedAt?.seconds },
    ]
  }

  /// The fields of `watch.<name>.*`.
  public static let watchFields = ["latency", "firstVisible", "visibleOn", "editedAt"]

  public static let metricNames = catalog.map(\.name)
  private static let catalogRank = Dictionary(uniqueKeysWithValues: metricNames.enumerated().map { ($1, $0) })

  /// Where a metric's rows sort among a run's (sweep.csv, its shards, compare): catalog order,
  /// then watched writes by name and field, then a policy's outside the registry by its name and
  /// field (count, total, longest, as the catalog has them), then any other name by name; never by
  /// hashing.
  public static func sortKey(_ name: String) -> MetricSortKey {
    if let rank = catalogRank[name] { return MetricSortKey(rank: rank, name: "", field: 0) }
    guard let dot = name.lastIndex(of: ".") else { return MetricSortKey(rank: metricNames.count + 2, name: name, field: 0) }
    let (prefix, field) = (String(name[..<dot]), String(name[name.index(after: dot)...]))
    if watchMetric(name) != nil {
      return MetricSortKey(rank: metricNames.count, name: prefix, field: watchFields.firstIndex(of: field) ?? 0)
    }
    if name.hasPrefix("blocked."), let position = ["count", "total", "longest"].firstIndex(of: field) {
      return MetricSortKey(rank: metricNames.count + 1, name: prefix, field: position)
    }
    return MetricSortKey(rank: metricNames.count + 2, name: name, field: 0)
  }

  /// `sortKey`'s value.
  public struct MetricSortKey: Comparable, Hashable, Sendable {
    var rank: Int
    var name: String
    var field: Int

    public static func < (a: Self, b: Self) -> Bool { (a.rank, a.name, a.field) < (b.rank, b.name, b.field) }
  }

  /// A metric's declaration: the catalog's, or a watched write's (`watch.<name>.latency`).
  public static func metric(named name: String) -> MetricInfo? {
    catalog.first { $0.name == name } ?? watchMetric(name)
  }

  /// The declaration of `watch.<name>.<field>`, or nil when `name` is not of that form.
  static func watchMetric(_ name: String) -> MetricInfo? {
    guard name.hasPrefix("watch."), let dot = name.lastIndex(of: "."), dot > name.index(name.startIndex, offsetBy: 6)
    else { return nil }
    let watch = String(name[name.index(name.startIndex, offsetBy: 6)..<dot])
    return watchMetrics(watch).first { $0.name == name }
  }

  /// The declaration of a `summary.csv` metric column: the catalog's, or for a policy outside
  /// the registry its `blocked.*` declaration; nil for a column that is not a metric.
  public static func metric(column name: String) -> MetricInfo? {
    if let info = metric(named: name) { return info }
    guard name.hasPrefix("blocked."), let dot = name.lastIndex(of: ".") else { return nil }
    let policy = String(name[name.index(name.startIndex, offsetBy: 8)..<dot])
    return blockedMetrics(policy).first { $0.name == name }
  }

  /// The value of `name`, if defined.
  public func value(_ name: String) -> Double? {
    guard let index = catalog.firstIndex(where: { $0.name == name }) else { return nil }
    return values[index]
  }

  /// Computes every metric from a finished run.
  public init(recorder: MetricsRecorder, events: Int) {
    self.init(tally: SummaryTally(recorder: recorder, events: events))
  }

  /// Computes every metric of the run's catalog from the tally of its parts: the `blocked.*`
  /// columns are those of the policies the run evaluated (a policy not in its set has none).
  public init(tally: SummaryTally) {
    let percentiles =
      tally.latencies.count > 0
      ? tally.latencies.percentiles([0.5, 0.9, 0.95, 0.99])?.map { Double($0) / 1e9 } : nil
    let inputs = Inputs(tally: tally, percentiles: percentiles)
    // The tally's names are the policies', then the reported causes' (a prefix of `allCases`).
    let causes = Array(WaitCause.allCases.prefix(tally.reportedCauseCount))
    let policyNames = Array(tally.policyNames.dropLast(causes.count))
    let approximate = tally.latencies.isApproximate
    catalog =
      policyNames == PolicyRegistry.standard.names && tally.reportedErrors == CloudError.allCases
        && causes == WaitCause.allCases && !approximate && tally.arrivals.isEmpty
      ? Self.catalog
      : Self.catalog(
        policyNames: policyNames, errors: tally.reportedErrors, causes: causes, approximateLatency: approximate,
        watches: tally.arrivals.map(\.name))
    values = catalog.map { $0.compute(inputs) }
  }

  /// `docs/metrics.md`: every metric with its unit, better direction and meaning (printed by
  /// `syncsim schema metrics`; a test holds the committed file equal to it).
  public static var document: String {
    var lines = [
      "<!-- Generated by `syncsim schema metrics` from RunSummary's declarations; a test holds this file equal. -->",
      "# Metrics of `summary.csv`",
      "",
      "One column per metric, in this order; a run has the `blocked.<policy>.*` columns of the policies in",
      "its set (the default set has no `singleDeviceAccount`), then those of the wait causes always",
      "reported (through `suspended`) plus those its faults can raise, and the `errors.*` columns of the",
      "errors always reported plus those its faults can raise. Durations are",
      "seconds. `better` is the direction `compare` calls an improvement. An empty cell is undefined (no",
      "visible rows, never converged, no retry-after answered). A run with more than 4,194,304 visible rows",
      "counts its latencies in a histogram (`LatencyHistogram`: log-linear buckets, 1,024 per power of two)",
      "and has the `latency.percentileError` column after `latency.mean`: its percentiles are within 0.049 %",
      "of the exact values; its mean and max stay exact.",
      "",
      "Sums of waits (`blocked.*.total`, `orphanTime.total`, and `retryAfter.mean`'s sum) add 64-bit nanoseconds and",
      "saturate at 2^63 − 1 ns (9,223,372,036.85 s, about 292 years): a fleet long offline can reach it, and",
      "a value of 9223372036.854776 then means \"at least that\", a lower bound. The run's `waits` line adds",
      "the rows' causes in 128 bits and never saturates.",
      "",
      "A scenario that watches writes (`watch`, or a timeline edit's `\"watch\": \"name\"`) has four more columns per",
      "watched write, after `events`, in name order: `watch.<name>.latency` (s, lower: until every other device",
      "showed it), `watch.<name>.firstVisible` (s, lower), `watch.<name>.visibleOn` (rows, higher) and",
      "`watch.<name>.editedAt` (s); docs/scenario-format.md describes them.",
      "",
      "| metric | unit | better | meaning |",
      "|---|---|---|---|",
    ]
    for info in catalog(policyNames: PolicyRegistry.standard.names, approximateLatency: true) {
      let better = info.better == .lower ? "lower" : info.better == .higher ? "higher" : ""
      lines.append("| `\(info.name)` | \(info.unit) | \(better) | \(info.meaning) |")
    }
    return lines.joined(separator: "\n")
  }
}
