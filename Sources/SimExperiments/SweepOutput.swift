import SimMetrics
import SimScenario

/// The files a sweep writes: `sweep.csv` (tidy: one row per run and metric) and
/// `sweep-summary.csv` (per point and metric: n, mean, standard deviation, 95 % t-interval), plus
/// one folder per point with its resolved scenario. Summaries are computed from the values as
/// written, so a merge of shards reproduces them byte for byte.
public enum SweepOutput {
  /// The columns of `sweep.csv` for a plan's factors.
  public static func columns(factors: [String]) -> [String] {
    ["scenario", "point", "replication", "seed"] + factors + [
      "metric", "value", "fingerprint", "scenarioHash", "syncsimVersion",
    ]
  }

  /// The columns of `sweep-summary.csv` for a plan's factors.
  public static func summaryColumns(factors: [String]) -> [String] {
    ["scenario", "point"] + factors + [
      "metric", "runs", "n", "mean", "sd", "ci95Low", "ci95High", "interval", "scenarioHash", "syncsimVersion",
    ]
  }

  /// `datapackage.json` of a sweep folder: `sweep.csv` and, unless the folder is a shard's,
  /// `sweep-summary.csv`, with the factors' columns described.
  /// The factors' labels and scales and the sweep's title go into it (`SweepLabels`).
  public static func dataPackage(name: String, labels: SweepLabels, withSummary: Bool) -> String {
    var files = [("sweep.csv", columns(factors: labels.paths))]
    if withSummary { files.append(("sweep-summary.csv", summaryColumns(factors: labels.paths))) }
    return DataPackage.json(name: name, files: files, sweep: labels)
  }

  /// The rows of `sweep.csv` for some results (any subset: a shard's or all).
  public static func rows(
    _ results: [SweepRunner.RunResult], plan: SweepPlan, name: String, version: String
  ) -> [[String]] {
    var rows: [[String]] = []
    for result in results {
      let head =
        [name, String(result.run.point.index), String(result.run.replication), String(result.run.seed)]
        + plan.labels(of: result.run.point)
      for (info, value) in zip(result.metrics, result.values) {
        rows.append(
          head + [
            info.name, CSVTable.value(value, isDuration: info.isDuration), result.fingerprint, result.scenarioHash,
            version,
          ])
      }
    }
    return rows
  }

  /// Sorts tidy rows into the one canonical order: point, replication, then metric catalog order.
  public static func sorted(_ rows: [[String]], factorCount: Int) -> [[String]] {
    let metricColumn = 4 + factorCount
    return rows.sorted { a, b in
      let (ka, kb) = ((Int(a[1]) ?? 0, Int(a[2]) ?? 0), (Int(b[1]) ?? 0, Int(b[2]) ?? 0))
      return ka != kb ? ka < kb : RunSummary.sortKey(a[metricColumn]) < RunSummary.sortKey(b[metricColumn])
    }
  }

  /// `sweep.csv` from tidy rows.
  public static func table(_ rows: [[String]], factors: [String]) -> CSVTable {
    var table = CSVTable(columns: columns(factors: factors))
    for row in sorted(rows, factorCount: factors.count) { table.append(row) }
    return table
  }

  /// `sweep-summary.csv` from the tidy table: per (point, metric) the runs, how many had a value
  /// (`n`; fewer for `convergenceTime` when some runs never converged), mean, sd, and a 95 %
  /// interval from the values as written: Wilson's for a proportion (`converged`), else Student's
  /// t, with bounds never below zero (no metric is negative). Then the point's provenance.
  public static func summary(of table: CSVTable, factors: [String]) -> CSVTable {
    var summary = Summary(factors: factors)
    for row in table.rows { summary.add(row) }
    return summary.table()
  }

  /// `sweep-summary.csv` built row by row from `sweep.csv`'s rows in their canonical order, so
  /// that `merge` can stream its shards: it keeps per (point, metric) only the values.
  public struct Summary: Sendable {
    let factors: [String]
    let metricColumn: Int
    var groups: [(key: [String], runs: Int, values: [Double], provenance: [String])] = []
    var index: [String: Int] = [:]  // lookup only; order follows the sorted table

    public init(factors: [String]) {
      self.factors = factors
      metricColumn = 4 + factors.count
    }

    /// Adds one row of `sweep.csv`.
    public mutating func add(_ row: [String]) {
      let hashColumn = metricColumn + 3
      let key = [row[0], row[1]] + Array(row[4..<metricColumn]) + [row[metricColumn]]
      let joined = key.joined(separator: "\u{1F}")
      if index[joined] == nil {
        index[joined] = groups.count
        groups.append((key, 0, [], [row[hashColumn], row[hashColumn + 1]]))
      }
      groups[index[joined]!].runs += 1
      if let value = Double(row[metricColumn + 1]) { groups[index[joined]!].values.append(value) }
    }

    /// The summary table of every row added.
    public func table() -> CSVTable {
      var out = CSVTable(columns: SweepOutput.summaryColumns(factors: factors))
      let format = { (value: Double) in value.isNaN ? "" : CSVTable.number(value) }
      for group in groups {
        let counts = [String(group.runs), String(group.values.count)]
        guard let estimate = Statistics.estimate(group.values) else {
          out.append(group.key + counts + ["", "", "", "", ""] + group.provenance)
          continue
        }
        let metric = RunSummary.metric(named: group.key[group.key.count - 1])
        var interval = (low: estimate.low, high: estimate.high, method: "t")
        if metric?.isProportion == true,
          let wilson = Statistics.wilson(successes: group.values.reduce(0, +), n: group.values.count)
        {
          interval = (wilson.low, wilson.high, "wilson")
        } else if estimate.n < 2 {
          interval.method = ""
        }
        out.append(
          group.key + counts + [
            // One value has no interval: its bounds are empty, not 0 (`max(0, .nan)` is 0).
            format(estimate.mean), format(estimate.standardDeviation),
            format(interval.low.isNaN ? .nan : max(0, interval.low)),
            format(interval.high.isNaN ? .nan : max(0, interval.high)), interval.method,
          ] + group.provenance)
      }
      return out
    }
  }
}
