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

  /// The rows of `sweep.csv` for some results (any subset: a shard's or all).
  public static func rows(
    _ results: [SweepRunner.RunResult], plan: SweepPlan, name: String, version: String
  ) -> [[String]] {
    var rows: [[String]] = []
    for result in results {
      let head =
        [name, String(result.run.point.index), String(result.run.replication), String(result.run.seed)]
        + plan.labels(of: result.run.point)
      for (info, value) in zip(RunSummary.catalog, result.values) {
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
    let rank = Dictionary(uniqueKeysWithValues: RunSummary.metricNames.enumerated().map { ($1, $0) })
    return rows.sorted { a, b in
      let ka = (Int(a[1]) ?? 0, Int(a[2]) ?? 0, rank[a[metricColumn]] ?? Int.max)
      let kb = (Int(b[1]) ?? 0, Int(b[2]) ?? 0, rank[b[metricColumn]] ?? Int.max)
      return ka < kb
    }
  }

  /// `sweep.csv` from tidy rows.
  public static func table(_ rows: [[String]], factors: [String]) -> CSVTable {
    var table = CSVTable(columns: columns(factors: factors))
    for row in sorted(rows, factorCount: factors.count) { table.append(row) }
    return table
  }

  /// `sweep-summary.csv` from the tidy table: per (point, metric) n, mean, sd and the 95 %
  /// t-interval, from the values as written.
  public static func summary(of table: CSVTable, factors: [String]) -> CSVTable {
    var out = CSVTable(
      columns: ["scenario", "point"] + factors + ["metric", "n", "mean", "sd", "ci95Low", "ci95High"])
    let metricColumn = 4 + factors.count
    var groups: [(key: [String], values: [Double])] = []
    var index: [String: Int] = [:]  // lookup only; order follows the sorted table
    for row in table.rows {
      let key = [row[0], row[1]] + Array(row[4..<metricColumn]) + [row[metricColumn]]
      let joined = key.joined(separator: "\u{1F}")
      if index[joined] == nil {
        index[joined] = groups.count
        groups.append((key, []))
      }
      if let value = Double(row[metricColumn + 1]) { groups[index[joined]!].values.append(value) }
    }
    for group in groups {
      guard let estimate = Statistics.estimate(group.values) else {
        out.append(group.key + ["0", "", "", "", ""])
        continue
      }
      let format = { (value: Double) in value.isNaN ? "" : CSVTable.number(value) }
      out.append(
        group.key + [
          String(estimate.n), format(estimate.mean), format(estimate.standardDeviation), format(estimate.low),
          format(estimate.high),
        ])
    }
    return out
  }
}
