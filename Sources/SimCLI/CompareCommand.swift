import Foundation
import SimExperiments
import SimMetrics
import SimScenario

/// `syncsim compare A/ B/`: per point and metric, B's mean minus A's with a 95 % Welch interval
/// and a verdict: better, worse, changed (for neutral counts) or no significant change.
struct CompareCommand {
  static let usage = """
    usage: syncsim compare A_DIR B_DIR [--all] [--force] [--fail-on VERDICTS] [--format F]
           syncsim compare SWEEP_DIR --baseline-point P [--all] [--fail-on VERDICTS] [--format F]

    Compares two sweeps (folders with sweep.csv) or two runs (folders with summary.csv). For each
    point and metric: the means, B − A with a 95 % Welch t-interval, Welch's p-value and its Holm
    adjustment across every metric and point tested (family-wise error 5 %), and a verdict: better,
    worse, changed (for neutral counts) only when the adjusted p-value is below 0.05; same when the
    values are equal. 0/1 metrics (converged) show Wilson intervals, within [0, 1]. Runs have one
    value each, so only equality can be judged. Lists metrics that differ; --all lists every one.
    With --baseline-point, one sweep's every other point is B against that point as A, with the
    same tests and Holm adjustment across all of them. Whether a difference survives the model's
    assumptions (each folder ran under one set of them) is for `syncsim sensitivity` of A.json
    versus B.json: both scenarios under every assumption tried (docs/sensitivity.md).

      --force            compare folders of different scenarios, factors or scenario hashes (refused
                         otherwise: exit 65)
      --fail-on VERDICTS exit 1 when any metric's verdict is one of VERDICTS (comma-separated:
                         worse, better, changed), e.g. --fail-on worse to gate CI on regressions
      --format F         text (default), csv, json or markdown (a table for CI job summaries);
                         each row has the change in % and the metric's unit
      --baseline-point P the point of SWEEP_DIR the others are compared with: its number, or
                         its factors' values (push.dropProbability=0, several joined by commas)
    """

  /// The verdicts `--fail-on` takes, and the output formats.
  static let verdictKinds = ["worse", "better", "changed"]
  static let formats = ["text", "csv", "json", "markdown"]

  static func run(_ arguments: [String], console: Console) throws(UsageError) -> ExitCode {
    var args = ArgumentList(arguments)
    if args.flag("help") {
      console.print(usage)
      return .success
    }
    let all = args.flag("all")
    let force = args.flag("force")
    let failOn = try (args.option("fail-on") ?? "").split(separator: ",").map { word throws(UsageError) -> String in
      let kind = String(word)
      guard verdictKinds.contains(kind) else {
        let guess = suggestion(for: kind, among: verdictKinds).map { " (did you mean \($0)?)" } ?? ""
        throw UsageError("--fail-on takes worse, better or changed, got \"\(kind)\"\(guess)")
      }
      return kind
    }
    let format = try args.option("format") ?? "text"
    guard formats.contains(format) else {
      let guess = suggestion(for: format, among: formats).map { " (did you mean \($0)?)" } ?? ""
      throw UsageError("--format takes text, csv, json or markdown, got \"\(format)\"\(guess)")
    }
    let baselinePoint = try args.option("baseline-point")
    let directories = try args.positionals()
    if let baselinePoint {
      guard directories.count == 1 else { throw UsageError("compare --baseline-point takes one sweep folder") }
      return against(baselinePoint, in: directories[0], all: all, failOn: failOn, format: format, console: console)
    }
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
    // The same name is not the same scenario: a point whose resolved scenario's hash differs
    // while its factors' values are the same was run from another file (or other defaults). A
    // point whose factors differ (drop 0 against 0.6) differs by them, as asked.
    let changedPoint = a.keys.lazy.map(\.point).first { point in
      a.hashes[point] != nil && b.hashes[point] != nil && a.hashes[point] != b.hashes[point]
        && a.labels[point] == b.labels[point]
    }
    if a.scenarios != b.scenarios || a.factors != b.factors || changedPoint != nil {
      var what =
        "A is \(a.scenarios.joined(separator: ", ")) with factors [\(a.factors.joined(separator: ", "))], "
        + "B is \(b.scenarios.joined(separator: ", ")) with factors [\(b.factors.joined(separator: ", "))]"
      if let point = changedPoint, a.scenarios == b.scenarios, a.factors == b.factors {
        what =
          "the scenario differs: point \(point)'s scenarioHash is \(a.hashes[point]!) in A and \(b.hashes[point]!) in B, "
          + "so the file or a default changed between the runs"
      }
      if !force {
        console.error(
          ScenarioProblem.printable("error: the folders hold different experiments (\(what)); --force compares them anyway"))
        return .dataError
      }
      console.error(ScenarioProblem.printable("warning: comparing different experiments (\(what))"))
    }
    return report(a, b, names: (directories[0], directories[1]), all: all, failOn: failOn, format: format, console: console)
  }

  /// Tests B against A and prints the result in `format`; exit 1 when `failOn` fails the gate.
  static func report(
    _ a: OrderedValues, _ b: OrderedValues, names: (a: String, b: String), all: Bool, failOn: [String], format: String,
    console: Console, header: String? = nil
  ) -> ExitCode {
    // A gate that cannot fail is a defect: with one run a point on either side no difference can
    // be tested, so every verdict would be "changed (single runs: no interval)" and exit 0.
    if !failOn.isEmpty, let side = [("A", a, names.a), ("B", b, names.b)].first(where: { $0.1.isSingleRuns }) {
      console.error(
        ScenarioProblem.printable(
          "error: --fail-on cannot judge \(side.2) (\(side.0)): it holds one run a point, so no change can be "
            + "tested; compare sweeps with replications on both sides (syncsim sweep SCENARIO --seeds 1..10), "
            + "or drop --fail-on to see the differences"))
      return .usage
    }
    let tested = tests(a, b)
    let failed = tested.filter { failOn.contains($0.kind) }
    // A gate never passes on data it could not see: a (point, metric) only one folder holds is a
    // failure of the gate, named, whatever the verdicts asked for.
    let missing = missingKeys(a, b)
    let gateFails = !failed.isEmpty || (!failOn.isEmpty && !missing.isEmpty)
    if !failOn.isEmpty && !missing.isEmpty {
      let names = missing.prefix(5).map { "\($0.key.metric) at point \($0.key.point) (missing in \($0.side))" }
      console.error(
        ScenarioProblem.printable(
          "compare: \(missing.count) metric\(missing.count == 1 ? "" : "s") missing from one folder, so --fail-on "
            + "cannot judge them: " + names.joined(separator: ", ") + (missing.count > 5 ? ", …" : "")))
    }
    if format != "text" {
      let shown = tested.filter { all || !($0.kind == "same" || $0.kind == "none") }
      console.print(Self.formatted(shown, a: a, b: b, format: format))
      return gateFails ? .failure : .success
    }
    let testCount = tested.filter { $0.raw != nil }.count
    if let header { console.print(ScenarioProblem.printable(header)) }
    if testCount == 0, let single = [("A", a), ("B", b)].first(where: { $0.1.isSingleRuns }) {
      // Not a silent fallback: say why nothing is tested and how to test it.
      console.print(
        "No tests: \(single.0) holds one run a point, so each B − A below is one difference, untested; "
          + "sweep both sides with --seeds (syncsim sweep SCENARIO --seeds 1..10) to test them")
    } else {
      console.print(
        "Welch tests of B − A; p-values Holm-adjusted across the \(testCount) tests (family-wise error 5 %)")
    }
    // A point is named by its number; its factors' values are listed once above the table (a
    // whole factor tuple made a 60-character first column).
    let pointLabel = { (point: String) in point }
    let points = Array(Set(tested.map(\.key.point))).sorted { (Int($0) ?? 0, $0) < (Int($1) ?? 0, $1) }
    for point in points {
      if let factors = a.labels[point] { console.print(ScenarioProblem.printable("point \(point): \(factors)")) }
    }
    let pointWidth = tested.map { ScenarioProblem.printable(pointLabel($0.key.point)).count }.max().map { max(5, $0) } ?? 5
    // A latency that is a lower bound (rows never visible, counted to the run's end) says so beside it.
    let censored = { (values: OrderedValues, point: String) -> Bool in
      guard let key = values.keys.first(where: { $0.point == point && $0.metric == "latency.isLowerBound" }) else { return false }
      return values[key]?.contains { $0 > 0 } ?? false
    }
    console.print(
      "point".padding(pointWidth) + "  metric                               A mean          B mean          B − A [95 % interval]"
        + "                p        p (Holm)  verdict")
    var shown = 0
    var hidden = 0
    for test in tested {
      // Durations as `run` prints them; other values as written.
      let isDuration = RunSummary.metric(named: test.key.metric)?.isDuration ?? false
      let mean = { (values: [Double]) in
        values.isEmpty ? "" : isDuration ? DurationText.display(seconds: Self.mean(values)) : Self.format(Self.mean(values))
      }
      let key = test.key
      let valuesA = a[key]!, valuesB = b[key]!
      let verdict = test.verdict
      if !all && !Self.headline.contains(key.metric)
        && (verdict.text.hasPrefix("no significant change") || verdict.text.hasPrefix("same"))
      {
        hidden += 1
        continue
      }

      shown += 1
      let label = pointLabel(key.point)
      // Fields read from the folders: printable, so no escape sequence reaches the terminal.
      console.print(
        ScenarioProblem.printable(label).padding(pointWidth) + "  " + ScenarioProblem.printable(key.metric).padding(34) + pad(mean(valuesA), 14) + "  "
          + pad(mean(valuesB), 14) + "  " + verdict.interval.padding(36) + " "
          + pad(test.raw.map(formatP) ?? "", 8) + " " + pad(test.adjusted.map(formatP) ?? "", 8) + "  "
          + ScenarioProblem.printable(verdict.text) + Self.changeText(test, a: valuesA, b: valuesB)
          + (key.metric.hasPrefix("latency.") && key.metric != "latency.isLowerBound"
            && (censored(a, key.point) || censored(b, key.point)) ? "  (a lower bound: rows never visible)" : ""))
    }
    if shown == 0 { console.print("no metric changed significantly") }
    if hidden > 0 {
      console.print("\(hidden) metric\(hidden == 1 ? "" : "s") with no significant change or the same value not shown (--all shows them)")
    }
    for entry in missing.prefix(all ? missing.count : 10) {
      console.print(
        ScenarioProblem.printable("\(entry.key.point.padding(5))  \(entry.key.metric.padding(34))  missing in \(entry.side)"))
    }
    if !failed.isEmpty {
      console.error(
        "compare: \(failed.count) metric\(failed.count == 1 ? "" : "s") \(failOn.joined(separator: " or ")): "
          + ScenarioProblem.printable(
            failed.prefix(5).map { "\($0.key.metric) at point \($0.key.point) (\($0.kind))" }.joined(separator: ", ")))
    }
    return gateFails ? .failure : .success
  }

  /// `compare SWEEP --baseline-point P`: every other point of one sweep as B against point P
  /// as A, metric by metric, with one Holm adjustment across them all.
  static func against(
    _ spec: String, in directory: String, all: Bool, failOn: [String], format: String, console: Console
  ) -> ExitCode {
    guard let sweep = values(directory), !sweep.factors.isEmpty || !sweep.labels.isEmpty else {
      console.error(
        "error: \(directory): no readable sweep.csv with factors in it (--baseline-point compares the points of one sweep)")
      return .dataError
    }
    var points: [String] = []
    for key in sweep.keys where !points.contains(key.point) { points.append(key.point) }
    let base: String
    switch baseline(spec, points: points, labels: sweep.labels) {
    case .success(let point): base = point
    case .failure(let problem):
      console.error(ScenarioProblem.printable("error: --baseline-point \(spec): \(problem.message)"))
      return .usage
    }
    var a = OrderedValues(), b = OrderedValues()
    a.labels = sweep.labels
    b.labels = sweep.labels
    for key in sweep.keys where key.point != base {
      let baseKey = Key(point: base, metric: key.metric, order: key.order)
      guard let baseValues = sweep[baseKey] else { continue }
      a.append(key, values: baseValues, runs: sweep.runCount(baseKey))
      b.append(key, values: sweep[key]!, runs: sweep.runCount(key))
    }
    let label = sweep.labels[base].map { " (\($0))" } ?? ""
    return report(
      a, b, names: ("point \(base) of \(directory)", directory), all: all, failOn: failOn, format: format,
      console: console, header: "B: each point of \(directory); A: its baseline point \(base)\(label)")
  }

  /// The point `spec` names: a point number, or factor values (`path=value`, several joined by
  /// commas) that exactly one point has.
  static func baseline(_ spec: String, points: [String], labels: [String: String]) -> Result<String, UsageError> {
    if points.contains(spec) { return .success(spec) }
    if Int(spec) != nil {
      return .failure(UsageError("no point \(spec) (the sweep's points are \(points.first ?? "")...\(points.last ?? ""))"))
    }
    let wanted = spec.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
    let matching = points.filter { point in
      let pairs = (labels[point] ?? "").components(separatedBy: ", ")
      return wanted.allSatisfy { pairs.contains($0) }
    }
    guard matching.count == 1 else {
      let examples = points.prefix(3).compactMap { labels[$0].map { "\"\($0)\"" } }.joined(separator: ", ")
      return .failure(
        UsageError(
          (matching.isEmpty ? "no point has these factor values" : "\(matching.count) points have these factor values")
            + "; name one point by its number or by every factor (e.g. \(examples))"))
    }
    return .success(matching[0])
  }

  /// `, +12.3 % (s)` after a verdict: B's mean against A's, in the metric's unit.
  static func changeText(_ test: Test, a: [Double], b: [Double]) -> String {
    guard let percent = percentChange(a, b) else { return "" }
    let unit = unit(of: test.key.metric)
    return "  " + String(format: "%+.1f %%", percent) + (unit.isEmpty ? "" : " (\(unit))")
  }

  /// (mean B − mean A) / |mean A| in %; nil when A's mean is 0 or either side has no value.
  static func percentChange(_ a: [Double], _ b: [Double]) -> Double? {
    guard !a.isEmpty, !b.isEmpty, mean(a) != 0 else { return nil }
    return (mean(b) - mean(a)) / abs(mean(a)) * 100
  }

  /// A metric's unit: `s` for durations, `ratio` for 0/1 proportions, empty for counts.
  static func unit(of metric: String) -> String {
    guard let info = RunSummary.metric(named: metric) else { return "" }
    return info.isDuration ? "s" : info.isProportion ? "ratio" : ""
  }

  /// The tests as CSV, JSON or a Markdown table: point, metric, unit, means, B − A, change in %,
  /// p-values and verdict.
  static func formatted(_ tests: [Test], a: OrderedValues, b: OrderedValues, format: String) -> String {
    let columns = ["point", "metric", "unit", "meanA", "meanB", "difference", "changePercent", "p", "pHolm", "verdict"]
    let rows: [[String]] = tests.map { test in
      let (valuesA, valuesB) = (a[test.key] ?? [], b[test.key] ?? [])
      let meanA = valuesA.isEmpty ? "" : Self.format(mean(valuesA))
      let meanB = valuesB.isEmpty ? "" : Self.format(mean(valuesB))
      let difference = valuesA.isEmpty || valuesB.isEmpty ? "" : Self.format(mean(valuesB) - mean(valuesA))
      let percent = percentChange(valuesA, valuesB).map { String(format: "%.2f", $0) } ?? ""
      return [
        test.key.point, test.key.metric, unit(of: test.key.metric), meanA, meanB, difference, percent,
        test.raw.map { Self.format($0) } ?? "", test.adjusted.map { Self.format($0) } ?? "", test.kind,
      ]
    }
    switch format {
    case "csv":
      var table = CSVTable(columns: columns)
      for row in rows { table.append(row) }
      return String(table.text.dropLast())
    case "json":
      let objects = rows.map { row in
        "  {"
          + zip(columns, row).map {
            "\"\($0)\": \(jsonValue($1, numeric: !["point", "metric", "unit", "verdict"].contains($0)))"
          }
          .joined(separator: ", ") + "}"
      }
      return "[\n" + objects.joined(separator: ",\n") + "\n]"
    default:
      let header =
        "| " + columns.joined(separator: " | ") + " |\n|" + columns.map { _ in "---" }.joined(separator: "|") + "|"
      // Point, metric and verdict come from the folders' files: escaped, so that a hostile field
      // can neither end the row nor start a heading, link, image or tag.
      let textual: Set<Int> = [0, 1, 2, 9]
      // A p-value under 0.0001 printed as written read "0": shown as a bound, as the text does.
      let pValues: Set<Int> = [7, 8]
      let body = rows.map { row in
        "| "
          + row.enumerated().map { column, field in
            if textual.contains(column) { return MarkdownText.inline(field) }
            if pValues.contains(column), let p = Double(field) { return p < 0.0001 ? "< 0.0001" : field }
            return field
          }
          .joined(separator: " | ") + " |"
      }
      return ([header] + (body.isEmpty ? ["| " + columns.map { _ in "" }.joined(separator: " | ") + " |"] : body))
        .joined(separator: "\n")
    }
  }

  /// A JSON value: a number as written (null when empty), or a string.
  static func jsonValue(_ text: String, numeric: Bool) -> String {
    if numeric { return text.isEmpty ? "null" : (Double(text).map { $0.isFinite } == true ? text : "null") }
    return JSONNode.quote(text)
  }

  /// One metric at one point, tested: Welch's raw p-value, its Holm adjustment across every
  /// test, and the verdict.
  struct Test {
    var key: Key
    var raw: Double?
    var adjusted: Double?
    var verdict: (text: String, interval: String)

    /// The verdict's kind: worse, better, changed, same, or none (no significant change).
    var kind: String {
      for word in ["worse", "better", "changed", "same"] where verdict.text.hasPrefix(word) { return word }
      return "none"
    }
  }

  /// Every (point, metric) both folders have, tested, in A's order.
  static func tests(_ a: OrderedValues, _ b: OrderedValues) -> [Test] {
    let keys = a.keys.filter { b.index(forKey: $0) != nil }
    let raw = keys.map { Statistics.welchPValue(a[$0]!, b[$0]!) }
    let adjustedTested = Statistics.holm(raw.compactMap { $0 })
    var next = 0
    return zip(keys, raw).map { key, p in
      var adjusted: Double?
      if p != nil {
        adjusted = adjustedTested[next]
        next += 1
      }
      var test = Test(
        key: key, raw: p, adjusted: adjusted,
        verdict: verdict(metric: key.metric, a[key]!, b[key]!, adjustedP: adjusted))
      if a.definedText(key) != nil || b.definedText(key) != nil {
        // Censored: the means are over the runs that had a value (converged), which the reader must see.
        let what = key.metric == "convergenceTime" ? "converged" : "defined"
        test.verdict.text +=
          " (\(what) in A \(a.definedText(key) ?? "all"), B \(b.definedText(key) ?? "all"); means over those runs)"
      }
      return test
    }
  }

  /// The (point, metric) pairs only one folder holds, A's first, each with the folder that lacks it.
  static func missingKeys(_ a: OrderedValues, _ b: OrderedValues) -> [(key: Key, side: String)] {
    a.keys.filter { b.index(forKey: $0) == nil }.map { ($0, "B") }
      + b.keys.filter { a.index(forKey: $0) == nil }.map { ($0, "A") }
  }

  static func formatP(_ p: Double) -> String { p < 0.0001 ? "<0.0001" : String(format: "%.4f", p) }

  struct Key: Hashable, Comparable {
    var point: String
    var metric: String
    var order: RunSummary.MetricSortKey
    static func < (a: Key, b: Key) -> Bool {
      (Int(a.point) ?? 0) != (Int(b.point) ?? 0) ? (Int(a.point) ?? 0) < (Int(b.point) ?? 0) : a.order < b.order
    }
  }

  /// Values per (point, metric), in a stable order.
  static func values(_ directory: String) -> OrderedValues? {
    // Columns by name: a file that lacks one is not a sweep.csv (`parse` keeps only full rows).
    if let text = try? String(contentsOfFile: directory + "/sweep.csv", encoding: .utf8),
      let table = CSVTable.parse(text),
      let pointColumn = table.columns.firstIndex(of: "point"),
      let metricColumn = table.columns.firstIndex(of: "metric"),
      let valueColumn = table.columns.firstIndex(of: "value")
    {
      var result = OrderedValues()
      let scenarioColumn = table.columns.firstIndex(of: "scenario")
      // The factors stand between `seed` and `metric`; a hand-edited file in another order has none.
      let seedColumn = table.columns.firstIndex(of: "seed") ?? 3
      let factorColumns = seedColumn < metricColumn ? (seedColumn + 1)..<metricColumn : metricColumn..<metricColumn
      result.factors = Array(table.columns[factorColumns])
      let hashColumn = table.columns.firstIndex(of: "scenarioHash")
      for row in table.rows {
        if let hashColumn, result.hashes[row[pointColumn]] == nil { result.hashes[row[pointColumn]] = row[hashColumn] }
        if let scenarioColumn, !result.scenarios.contains(row[scenarioColumn]) {
          result.scenarios.append(row[scenarioColumn])
        }
        if result.labels[row[pointColumn]] == nil && !result.factors.isEmpty {
          result.labels[row[pointColumn]] = zip(result.factors, row[factorColumns])
            .map { "\($0)=\($1)" }.joined(separator: ", ")
        }
        result.append(
          Key(point: row[pointColumn], metric: row[metricColumn], order: RunSummary.sortKey(row[metricColumn])),
          Double(row[valueColumn]))
      }
      return result
    }
    if let text = try? String(contentsOfFile: directory + "/summary.csv", encoding: .utf8),
      let table = CSVTable.parse(text)
    {
      var result = OrderedValues()
      if let scenarioColumn = table.columns.firstIndex(of: "scenario") {
        result.scenarios = Array(Set(table.rows.map { $0[scenarioColumn] })).sorted()
      }
      if let hashColumn = table.columns.firstIndex(of: "scenarioHash"), let row = table.rows.first {
        result.hashes["0"] = row[hashColumn]
      }
      for row in table.rows {
        for (column, name) in table.columns.enumerated() where RunSummary.metric(column: name) != nil {
          result.append(Key(point: "0", metric: name, order: RunSummary.sortKey(name)), Double(row[column]))
        }
      }
      return result
    }
    return nil
  }

  /// Keys in first-seen order with their values (no dictionary order reaches the output).
  struct OrderedValues {
    private(set) var keys: [Key] = []
    /// The scenarios and the sweep's factors the folder holds, and each point's factor values.
    var scenarios: [String] = []
    var factors: [String] = []
    var labels: [String: String] = [:]  // lookup only
    /// Each point's scenario hash (the resolved scenario's: `ScenarioResolver`).
    var hashes: [String: String] = [:]  // lookup only
    private var storage: [Key: [Double]] = [:]
    /// Runs per key, with or without a value (a run that never converged has no convergenceTime).
    private(set) var runs: [Key: Int] = [:]
    mutating func append(_ key: Key, _ value: Double?) {
      if storage[key] == nil {
        keys.append(key)
        storage[key] = []
      }
      runs[key, default: 0] += 1
      if let value { storage[key]!.append(value) }
    }
    /// Appends a key with all its values and its count of runs (with or without a value).
    mutating func append(_ key: Key, values: [Double], runs count: Int) {
      if storage[key] == nil { keys.append(key) }
      storage[key, default: []] += values
      runs[key, default: 0] += count
    }
    /// The number of runs of `key`, with or without a value.
    func runCount(_ key: Key) -> Int { runs[key] ?? 0 }
    subscript(_ key: Key) -> [Double]? { storage[key] }
    func index(forKey key: Key) -> Int? { storage[key] == nil ? nil : 0 }
    /// Whether every (point, metric) holds at most one run (a run's folder, or a sweep of one seed).
    var isSingleRuns: Bool { runs.values.allSatisfy { $0 <= 1 } }
    /// "k/n" when some runs had no value for the key (censored), else nil.
    func definedText(_ key: Key) -> String? {
      let n = runs[key] ?? 0, k = storage[key]?.count ?? 0
      return k < n ? "\(k)/\(n)" : nil
    }
  }

  /// The verdict on one metric at one point: `same` when the values are equal (never better or
  /// worse), else better/worse/changed only when the Holm-adjusted p-value is below 0.05.
  static func verdict(
    metric: String, _ a: [Double], _ b: [Double], adjustedP: Double?
  ) -> (
    text: String, interval: String
  ) {
    let direction = RunSummary.metric(named: metric)?.betterDirection ?? 0
    let isProportion = RunSummary.metric(named: metric)?.isProportion ?? false
    // A difference of durations as `run` prints durations (signed); others as written.
    let isDuration = RunSummary.metric(named: metric)?.isDuration == true
    let format: (Double) -> String =
      isDuration ? { ($0 < 0 ? "-" : $0 > 0 ? "+" : "") + DurationText.display(seconds: abs($0)) } : { Self.format($0) }
    if a.isEmpty || b.isEmpty {
      return (
        a.isEmpty && b.isEmpty ? "same (undefined in both)" : "changed (undefined in \(a.isEmpty ? "A" : "B"))", ""
      )
    }
    if a.sorted() == b.sorted() || mean(a) == mean(b) && Set(a).count <= 1 && Set(b).count <= 1 {
      return ("same", isProportion ? proportionText(a, b) : format(mean(b) - mean(a)))
    }
    guard let welch = Statistics.welch(a, b), let adjustedP else {
      return ("changed (single runs: no interval)", format(mean(b) - mean(a)))
    }
    // A duration's difference and its interval in one unit, the interval's (issue 73: "-47.9ms
    // [-39.1m, +39.1m]" read as three scales).
    let inUnit = isDuration ? Self.durationFormat(max(abs(welch.low), abs(welch.high), abs(welch.difference))) : format
    let interval =
      isProportion
      ? proportionText(a, b) : "\(inUnit(welch.difference)) [\(inUnit(welch.low)), \(inUnit(welch.high))]"
    if adjustedP >= 0.05 || welch.difference == 0 { return ("no significant change", interval) }
    if direction == 0 { return ("changed", interval) }
    let improved = (welch.difference < 0) == (direction < 0)
    return (improved ? "better" : "worse", interval)
  }

  /// For a 0/1 metric: each side's proportion with its Wilson interval.
  static func proportionText(_ a: [Double], _ b: [Double]) -> String {
    func one(_ values: [Double]) -> String {
      guard let w = Statistics.wilson(successes: values.reduce(0, +), n: values.count) else { return "?" }
      return "\(format(mean(values))) [\(format(w.low)), \(format(w.high))]"
    }
    return "A " + one(a) + " B " + one(b)
  }

  /// Signed durations in the one unit `largest` (seconds) reads best in: ms, s, m, h or d.
  static func durationFormat(_ largest: Double) -> (Double) -> String {
    let (scale, unit): (Double, String) =
      largest < 1 ? (0.001, "ms") : largest < 120 ? (1, "s") : largest < 7200 ? (60, "m") : largest < 172_800 ? (3600, "h") : (86_400, "d")
    return { value in
      let scaled = value / scale
      return (value < 0 ? "-" : value > 0 ? "+" : "") + String(format: "%.2f", abs(scaled)) + unit
    }
  }

  /// Metrics every text comparison shows, changed or not: an asked-for headline left out reads
  /// as "not measured" (issue 73).
  static let headline: Set<String> = ["latency.p50", "latency.p95", "rowsNotVisible"]  // membership only

  static func mean(_ values: [Double]) -> Double { values.reduce(0, +) / Double(max(values.count, 1)) }
  static func format(_ value: Double) -> String { CSVTable.number(value) }
  static func pad(_ text: String, _ width: Int) -> String {
    String(repeating: " ", count: max(0, width - text.count)) + text
  }
}

extension String {
  func padding(_ width: Int) -> String { self + String(repeating: " ", count: max(0, width - count)) }
}
