import SimMetrics
import SimScenario

/// The answer of a sweep on screen: a line per point with its factors' values, its runs and, per
/// chosen metric, the mean and its 95 % interval, durations as `run` prints them; a metric some
/// runs had no value of shows n/runs (censored: never converged, no visible row).
///
/// Read from `sweep-summary.csv`'s table, so the screen and the file never disagree.
enum SweepScreenTable {
  /// The metrics shown when `--metric` is not given.
  static let defaultMetrics = ["latency.p50", "latency.p95", "converged"]
  /// At most this many points are printed; the file has them all.
  static let pointLimit = 40

  /// The lines for `summary` (sweep-summary.csv's table) and `metrics`.
  static func lines(_ summary: CSVTable, factors: [String], metrics: [String]) -> [String] {
    let columns = summary.columns
    guard let point = columns.firstIndex(of: "point"), let metric = columns.firstIndex(of: "metric"),
      let runs = columns.firstIndex(of: "runs"), let n = columns.firstIndex(of: "n"),
      let mean = columns.firstIndex(of: "mean"), let low = columns.firstIndex(of: "ci95Low"),
      let high = columns.firstIndex(of: "ci95High")
    else { return [] }
    let factorColumns = factors.compactMap { columns.firstIndex(of: $0) }
    // Rows by point, in file order (points ascending).
    var order: [String] = []
    var cells: [String: [String: String]] = [:]  // lookup only
    var heads: [String: [String]] = [:]  // lookup only
    for row in summary.rows {
      let key = row[point]
      if cells[key] == nil {
        order.append(key)
        cells[key] = [:]
        heads[key] = [key] + factorColumns.map { row[$0] } + [row[runs]]
      }
      guard metrics.contains(row[metric]) else { continue }
      let isDuration = RunSummary.metric(named: row[metric])?.isDuration ?? false
      let censored = row[n] != row[runs] ? " n=\(row[n])/\(row[runs])" : ""
      guard let value = Double(row[mean]) else {
        cells[key]?[row[metric]] = "no value" + censored
        continue
      }
      var text = format(value, isDuration)
      if let lower = Double(row[low]), let upper = Double(row[high]) {
        text += " [" + format(lower, isDuration) + ", " + format(upper, isDuration) + "]"
      }
      cells[key]?[row[metric]] = text + censored
    }
    let header = ["point"] + factors + ["runs"] + metrics
    var table = [header]
    for key in order.prefix(pointLimit) {
      table.append(heads[key]! + metrics.map { cells[key]?[$0] ?? "–" })
    }
    var lines = aligned(table)
    if order.count > pointLimit {
      lines.append("… \(order.count - pointLimit) more points in sweep-summary.csv")
    }
    return lines
  }

  /// A value as people read it: a duration as `run` prints one, else a short number.
  static func format(_ value: Double, _ isDuration: Bool) -> String {
    if isDuration { return DurationText.display(seconds: value) }
    if value == value.rounded() && abs(value) < 1e15 { return String(Int64(value)) }
    return CSVTable.number((value * 1000).rounded() / 1000)
  }

  /// Columns padded to their widest cell, two spaces apart.
  static func aligned(_ rows: [[String]]) -> [String] {
    guard let first = rows.first else { return [] }
    var widths = [Int](repeating: 0, count: first.count)
    for row in rows { for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) } }
    return rows.map { row in
      row.enumerated().map { index, cell in
        index == row.count - 1 ? cell : cell.padding(widths[index])
      }.joined(separator: "  ")
    }
  }
}
