import Foundation
import SimExperiments
import SimMetrics
import SimScenario

/// `syncsim compare A/ B/`: per point and metric, B's mean minus A's with a 95 % Welch interval
/// and a verdict: better, worse, changed (for neutral counts) or no significant change.
struct CompareCommand {
  static let usage = """
    usage: syncsim compare A_DIR B_DIR [--all]

    Compares two sweeps (folders with sweep.csv) or two runs (folders with summary.csv). For each
    point and metric: the means, B − A with a 95 % Welch t-interval, and a verdict. Runs have one
    value each, so only equality can be judged. Lists metrics that differ; --all lists every one.
    """

  static func run(_ arguments: [String], console: Console) throws(UsageError) -> ExitCode {
    var args = ArgumentList(arguments)
    if args.flag("help") {
      console.print(usage)
      return .success
    }
    let all = args.flag("all")
    let directories = try args.positionals()
    guard directories.count == 2 else { throw UsageError("compare takes two folders") }
    var folders: [OrderedValues] = []
    for directory in directories {
      guard let values = values(directory) else {
        var isFolder: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: directory, isDirectory: &isFolder)
        let problem =
          !exists
          ? "no such folder" : !isFolder.boolValue ? "not a folder" : "no readable sweep.csv or summary.csv in it"
        console.error("error: \(directory): \(problem) (compare reads the folders that `run` or `sweep` wrote)")
        return .dataError
      }
      folders.append(values)
    }
    let (a, b) = (folders[0], folders[1])
    console.print(
      "point  metric                               A mean          B mean          B − A [95 % interval]                verdict"
    )
    var shown = 0
    for key in a.keys where b.index(forKey: key) != nil {
      let valuesA = a[key]!, valuesB = b[key]!
      let verdict = self.verdict(metric: key.metric, valuesA, valuesB)
      if !all && verdict.text == "no significant change" { continue }
      shown += 1
      console.print(
        pad(key.point, 5) + "  " + key.metric.padding(34) + pad(format(mean(valuesA)), 14) + "  "
          + pad(format(mean(valuesB)), 14)
          + "  " + verdict.interval.padding(36) + " " + verdict.text)
    }
    if shown == 0 { console.print("no metric changed significantly") }
    return .success
  }

  struct Key: Hashable, Comparable {
    var point: String
    var metric: String
    var order: Int
    static func < (a: Key, b: Key) -> Bool { (Int(a.point) ?? 0, a.order) < (Int(b.point) ?? 0, b.order) }
  }

  /// Values per (point, metric), in a stable order.
  static func values(_ directory: String) -> OrderedValues? {
    let rank = Dictionary(uniqueKeysWithValues: RunSummary.metricNames.enumerated().map { ($1, $0) })
    // Columns by name: a file that lacks one is not a sweep.csv (`parse` keeps only full rows).
    if let text = try? String(contentsOfFile: directory + "/sweep.csv", encoding: .utf8),
      let table = CSVTable.parse(text),
      let pointColumn = table.columns.firstIndex(of: "point"),
      let metricColumn = table.columns.firstIndex(of: "metric"),
      let valueColumn = table.columns.firstIndex(of: "value")
    {
      var result = OrderedValues()
      for row in table.rows {
        guard let value = Double(row[valueColumn]) else { continue }
        result.append(
          Key(point: row[pointColumn], metric: row[metricColumn], order: rank[row[metricColumn]] ?? Int.max), value)
      }
      return result
    }
    if let text = try? String(contentsOfFile: directory + "/summary.csv", encoding: .utf8),
      let table = CSVTable.parse(text)
    {
      var result = OrderedValues()
      for row in table.rows {
        for (column, name) in table.columns.enumerated() where rank[name] != nil {
          if let value = Double(row[column]) { result.append(Key(point: "0", metric: name, order: rank[name]!), value) }
        }
      }
      return result
    }
    return nil
  }

  /// Keys in first-seen order with their values (no dictionary order reaches the output).
  struct OrderedValues {
    private(set) var keys: [Key] = []
    private var storage: [Key: [Double]] = [:]
    mutating func append(_ key: Key, _ value: Double) {
      if storage[key] == nil { keys.append(key) }
      storage[key, default: []].append(value)
    }
    subscript(_ key: Key) -> [Double]? { storage[key] }
    func index(forKey key: Key) -> Int? { storage[key] == nil ? nil : 0 }
  }

  static func verdict(metric: String, _ a: [Double], _ b: [Double]) -> (text: String, interval: String) {
    let direction = RunSummary.metric(named: metric)?.betterDirection ?? 0
    guard let welch = Statistics.welch(a, b) else {
      let same = a == b
      return (same ? "no significant change" : "changed (single runs: no interval)", format(mean(b) - mean(a)))
    }
    let interval = "\(format(welch.difference)) [\(format(welch.low)), \(format(welch.high))]"
    if welch.low <= 0 && welch.high >= 0 { return ("no significant change", interval) }
    if direction == 0 { return ("changed", interval) }
    let improved = (welch.difference < 0) == (direction < 0)
    return (improved ? "better" : "worse", interval)
  }

  static func mean(_ values: [Double]) -> Double { values.reduce(0, +) / Double(max(values.count, 1)) }
  static func format(_ value: Double) -> String { CSVTable.number(value) }
  static func pad(_ text: String, _ width: Int) -> String {
    String(repeating: " ", count: max(0, width - text.count)) + text
  }
}

extension String {
  func padding(_ width: Int) -> String { self + String(repeating: " ", count: max(0, width - count)) }
}
