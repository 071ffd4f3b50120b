import Foundation
import SimExperiments
import SimKernel
import SimMetrics
import SimReport
import SimScenario

/// `syncsim sensitivity`: which assumption the answer hangs on. Screens the parameters over their
/// plausible ranges (`PlausibleRange`) and ranks them by how far each moves each metric.
struct SensitivityCommand {
  static let usage = """
    usage: syncsim sensitivity SCENARIO.json [--metric M]... [--only assumed|all|KEY]... [--method morris|oat]
                               [--trajectories N] [--seeds 1..3] [--jobs N] [--out DIR] [--accept-large]
                               [--shard I/N | --merge SHARD_DIR...] [--versus B.json]

    Screens the model's parameters over their plausible ranges (docs/parameters.md, "plausible
    range") and says which of them the scenario's answer depends on. Every screening runs the
    scenario as written and each parameter alone at each end of its range (one at a time); Morris's
    method adds N walks through the ranges that move one parameter at a time from random points,
    whose changes of each metric (elementary effects) are summarised as μ* (their mean absolute
    size, in the metric's unit across the whole range) and σ (their spread: large when the effect
    depends on the other parameters). Each point runs under every seed, the same seeds at every
    point; its value is the mean. Runs spread over --jobs threads; the bytes do not depend on it.
    A killed screening started again runs only the runs it lacks (DIR.resume/ keeps them).
    Writes into DIR (default Results/<name>-sensitivity/):
      sensitivity.csv         per metric and parameter: rank, source, range, muStar, mu, sigma,
                              the metric at the range's low and high ends, and as written
      sensitivity-points.csv  every point: its role, each parameter's value, each metric's mean
      sensitivity.html        a tornado chart and the table per metric

      --metric M          a metric to screen (repeatable; default latency.p50 and latency.p95)
      --only assumed      the keys tagged [assumed] that the scenario leaves at their default (default)
      --only all          every key with a plausible range, sourced spreads and alternatives too
      --only KEY          this key, whatever the scenario sets (repeatable; a device key applies to
                          every devices[] entry): push.fanoutLatency, power.battery
      --method morris     Morris's elementary effects (default); oat: one at a time only, the
                          cheap choice (2k + 1 points; μ* is then |at high − at low|)
      --trajectories N    Morris's walks (default 10): (k + 1) × N points more
      --seeds 1..3        replications (a range or a list); default the scenario's seed
      --shard I/N         run only runs I, I+N, I+2N, … (run k = point × seeds + replication) and
                          write sensitivity-runs.csv and shard.txt into DIR, for a cluster's array job
      --versus B.json     screen the difference B − A instead: both scenarios at every point (the
                          same parameters, levels and seeds); says whether the difference keeps its
                          sign under every assumption tried, and which assumption moves it most
      --merge DIR         (repeatable) the N shard folders of this screening, run with the same
                          scenario and options: writes what the unsharded screening writes, byte
                          for byte; a folder of another screening, an edited file or a missing
                          shard is refused

    A twin that `fit` wrote (twin.json with its fit.csv beside it) is screened over what the log
    left open: the parameters the fit identified over their 90 % intervals, with the assumed keys.
    """

  struct Options {
    var file: String
    var metrics = ["latency.p50", "latency.p95"]
    var scope = SensitivitySelection.Scope.assumed
    var method = SensitivityDesign.Method.morris
    var trajectories = 10
    var seeds: [UInt64]?
    var jobs: Int
    var out: String?
    var acceptLarge = false
    var shard: (index: Int, count: Int)?
    var merge: [String] = []
    var versus: String?
  }

  static func run(_ arguments: [String], console: Console) throws(UsageError) -> ExitCode {
    var args = ArgumentList(arguments)
    if args.flag("help") {
      console.print(usage)
      return .success
    }
    let options = try parse(&args)
    return execute(options, console: console)
  }

  static func parse(_ args: inout ArgumentList) throws(UsageError) -> Options {
    let metrics = try args.options("metric")
    let only = try args.options("only")
    let methodText = try args.option("method")
    let trajectoriesText = try args.option("trajectories")
    let seedsText = try args.option("seeds")
    let jobsText = try args.option("jobs")
    let out = try args.option("out").map { path throws(UsageError) in try OutputPath.folder(path, option: "--out") }
    let acceptLarge = args.flag("accept-large")
    let shardText = try args.option("shard")
    let merge = try args.options("merge")
    let versus = try args.option("versus")
    let files = try args.positionals()
    guard files.count == 1 else {
      throw UsageError(
        files.isEmpty ? "sensitivity needs a scenario file" : "sensitivity takes one scenario file, got \(files.count)")
    }
    let jobs = try ArgumentList.integer(jobsText, option: "jobs", in: 1...256) ?? ProcessInfo.processInfo.activeProcessorCount
    var options = Options(file: files[0], jobs: jobs, out: out, acceptLarge: acceptLarge)
    options.shard = try shardText.map { text throws(UsageError) in try SweepCommand.parseShard(text) }
    options.merge = merge
    options.versus = versus
    if versus != nil && (options.shard != nil || !merge.isEmpty) {
      throw UsageError("--versus runs both scenarios whole: it cannot go with --shard or --merge")
    }
    if options.shard != nil && !merge.isEmpty { throw UsageError("--shard runs one shard and --merge adds them up: not both") }
    try SweepCommand.checkMetrics(metrics)
    if !metrics.isEmpty { options.metrics = metrics }
    if only == ["all"] {
      options.scope = .all
    } else if !only.isEmpty && only != ["assumed"] {
      if only.contains("all") || only.contains("assumed") {
        throw UsageError("--only takes assumed, all, or keys; not a mix of them")
      }
      options.scope = .keys(only)
    }
    if let methodText {
      guard let method = SensitivityDesign.Method(rawValue: methodText) else {
        throw UsageError("--method takes morris or oat, got \(methodText)")
      }
      options.method = method
    }
    options.trajectories = try ArgumentList.integer(trajectoriesText, option: "trajectories", in: 1...1000) ?? 10
    if let seedsText {
      guard let seeds = SweepPlan.parseSeeds(seedsText) else {
        throw UsageError("--seeds takes a range (1..30) or a list (1,2,5), got \(seedsText)")
      }
      options.seeds = seeds
    }
    return options
  }

  static func execute(_ options: Options, console: Console) -> ExitCode {
    let loaded = ScenarioFile.load(options.file, acceptLarge: options.acceptLarge)
    for problem in loaded.problems { console.error(problem.description) }
    guard let scenario = loaded.scenario, let document = try? JSONParser.parse(loaded.bytes) else {
      return .dataError
    }
    let fitted = fittedIntervals(besides: options.file)
    let selection = SensitivitySelection(
      options.scope, scenario: scenario, document: document, file: options.file, fitted: fitted)
    let screened = selection.factors.filter { $0.source.hasPrefix("[fit]") }.map(\.name)
    if !fitted.isEmpty {
      let unscreened = fitted.map(\.path).filter { !screened.contains($0) }
      console.print(
        "fitted       the fit (fit.csv beside the scenario) identified \(fitted.count); screened over their 90 % "
          + "intervals: \(screened.isEmpty ? "none" : screened.joined(separator: ", "))"
          + (unscreened.isEmpty ? "" : "; not screened (a sum, or no key): \(unscreened.joined(separator: ", "))"))
    }
    guard selection.problems.isEmpty else {
      for problem in selection.problems { console.error("error: --only \(problem)") }
      return .usage
    }
    guard !selection.factors.isEmpty else {
      console.error("error: no parameter to screen in \(options.file): every key with a range is set by the scenario or does nothing in it")
      console.error("hint: name keys with --only KEY, or --only all for the sourced spreads too")
      return .dataError
    }
    let seeds = options.seeds ?? [scenario.spec.seed]
    let design = SensitivityDesign(
      method: options.method, factorCount: selection.factors.count, trajectories: options.trajectories,
      seed: scenario.spec.seed)
    let runner = SensitivityRunner(
      document: document, file: options.file, factors: selection.factors, design: design, seeds: seeds,
      metrics: options.metrics)
    let scenarioCount = options.versus == nil ? 1 : 2
    let estimate = Estimate(
      scenario, points: design.points.count * scenarioCount, runs: runner.runCount * scenarioCount, jobs: options.jobs)
    if estimate.memoryBytes > RunEstimate.Limits.memoryBytes && !options.acceptLarge {
      console.error(
        "error: \(options.file): the screening would need about \(RunEstimate.bytes(estimate.memoryBytes)) of memory "
          + "(\(estimate.description)), over the limit of \(RunEstimate.bytes(RunEstimate.Limits.memoryBytes))")
      console.error("hint: fewer trajectories or seeds, --method oat, or --accept-large to run it anyway")
      return .dataError
    }
    console.print("estimate \(estimate.description)")
    let scenarios: [Scenario]
    switch runner.resolveAll(acceptLarge: options.acceptLarge) {
    case .success(let decoded): scenarios = decoded
    case .failure(let error):
      for problem in error.problems { console.error(problem.description) }
      console.error("\(error.problems.count) problem\(error.problems.count == 1 ? "" : "s") found; nothing was run")
      return .dataError
    }
    if let versus = options.versus {
      let side = SensitivityVersus.Side(selection: selection, design: design, runner: runner, scenarios: scenarios)
      return SensitivityVersus.execute(options, versus: versus, a: side, console: console)
    }
    let clock = ContinuousClock()
    let started = clock.now
    let common = SensitivityShard.commonManifest(
      bytes: loaded.bytes, method: options.method, trajectories: options.trajectories, runner: runner)
    let directory = options.out ?? "Results/\(scenario.name)-sensitivity"
    let shardLine = options.shard.map { "shard \($0.index) of \($0.count)\n" } ?? "whole\n"
    let journal = SweepJournal(
      out: directory, manifest: shardLine + common, columns: ["run", "point", "replication"] + options.metrics)
    if let shard = options.shard {
      let runs = SensitivityShard.runs(of: shard, total: runner.runCount)
      let values = journaled(runs, runner: runner, scenarios: scenarios, journal: journal, options, console: console)
      let files = SensitivityShard.files(
        shard: shard, runs: runs, values: values, metrics: options.metrics, common: common)
      do { try ResultSetWriter.write(files, to: directory, kind: .sensitivity) } catch {
        console.error("error: cannot write results to \(directory): \(OutputPath.describe(error))")
        return .cannotCreate
      }
      journal.finish()
      console.print(
        "sensitivity \(scenario.name): shard \(shard.index)/\(shard.count), \(runs.count) of \(runner.runCount) runs, wall "
          + String(format: "%.2f", started.duration(to: clock.now).secondsValue) + " s")
      console.print("results \(directory)/ (add the shards up with the same command and --merge DIR...)")
      return .success
    }
    let values: [[Double?]]
    if options.merge.isEmpty {
      let runs = journaled(
        Array(0..<runner.runCount), runner: runner, scenarios: scenarios, journal: journal, options, console: console)
      values = runner.means(of: runs)
    } else {
      let merged = SensitivityShard.merged(
        options.merge, common: common, total: runner.runCount, metrics: options.metrics.count)
      guard merged.problems.isEmpty else {
        for problem in merged.problems { console.error("error: \(problem)") }
        let count = merged.problems.count
        console.error("\(count) problem\(count == 1 ? "" : "s") found; nothing was written")
        return .dataError
      }
      values = runner.means(of: merged.runs)
    }
    let table = SensitivityTable(factors: selection.factors, design: design, metrics: options.metrics, values: values)
    let designText = describe(options, design: design, factors: selection.factors.count, seeds: seeds.count)
    let files = [
      ResultFile(name: "sensitivity.csv", text: table.csv.text),
      ResultFile(name: "sensitivity-points.csv", text: pointsTable(runner, values: values).text),
      ResultFile(name: "sensitivity.html", text: page(table, title: "Sensitivity of \(scenario.name)", design: designText).html()),
    ]
    do { try ResultSetWriter.write(files, to: directory, kind: .sensitivity) } catch {
      console.error("error: cannot write results to \(directory): \(OutputPath.describe(error))")
      return .cannotCreate
    }
    journal.finish()
    let wallSeconds = started.duration(to: clock.now).secondsValue
    console.print(
      "sensitivity \(scenario.name): \(designText) on \(options.jobs) thread\(options.jobs == 1 ? "" : "s"), wall "
        + String(format: "%.2f", wallSeconds) + " s")
    for metric in table.metrics {
      console.print(words(metric, factors: selection.factors))
      if !fitted.isEmpty { console.print(identified(metric, factors: selection.factors)) }
    }
    if !selection.skipped.isEmpty {
      let list = selection.skipped.map { "\($0.name) (\($0.why))" }.joined(separator: ", ")
      console.print("left as the scenario has them: \(list)")
    }
    console.print("results \(directory)/")
    return .success
  }

  /// Runs `runs`, keeping each finished one in `journal` (`DIR.resume/`, as a sweep does) and
  /// running only those a killed attempt of the same screening did not finish; returns every
  /// run's metrics in the order of `runs`. A kept figure reads back exactly (shortest form).
  static func journaled(
    _ runs: [Int], runner: SensitivityRunner, scenarios: [Scenario], journal: SweepJournal, _ options: Options,
    console: Console
  ) -> [[Double?]] {
    let seeds = runner.seeds.count
    var kept = journal.finishedRuns()
    if let note = kept.note { console.error(note) }
    let width = 3 + runner.metrics.count
    kept.rows = kept.rows.filter { index, rows in
      guard rows.count == 1, rows[0].count == width else { return false }
      return rows[0][1] == String(index / seeds) && rows[0][2] == String(index % seeds)
    }
    var keeping = true
    do { try journal.open() } catch {
      keeping = false
      console.error("warning: cannot keep finished runs in \(journal.folder): a killed screening will start over")
    }
    let remaining = runs.filter { kept.rows[$0] == nil }
    let clock = ContinuousClock()
    var record: (@Sendable (Int, [Double?]) -> Void)?
    if keeping {
      record = { run, values in
        let figures: [String] = values.map { value in value.map { String($0) } ?? "" }
        journal.record(run: run, rows: [[String(run), String(run / seeds), String(run % seeds)] + figures])
      }
    }
    let values = runner.execute(
      remaining, scenarios: scenarios, jobs: options.jobs,
      progress: SweepCommand.progressLine("screening", console, clock, clock.now), finished: record)
    if console.errIsTerminal { console.errorRaw("\r\u{1B}[K") }
    var byRun: [Int: [Double?]] = [:]  // lookup only
    for (run, row) in zip(remaining, values) { byRun[run] = row }
    for (run, rows) in kept.rows { byRun[run] = rows[0].dropFirst(3).map { Double($0) } }
    return runs.map { byRun[$0] ?? [] }
  }

  /// What a screening costs, worked out before its points are decoded: its points held decoded
  /// and each world's run as `RunEstimate` sees it (`SweepEstimate`'s costs: a screening holds
  /// its points as a sweep does, and less per run), the runs spread over the threads.
  struct Estimate {
    var runs: Int
    var memoryBytes: Double
    var seconds: Double
    var jobs: Int

    init(_ scenario: Scenario, points: Int, runs: Int, jobs: Int) {
      let base = RunEstimate(scenario)
      self.runs = runs
      self.jobs = jobs
      memoryBytes =
        SweepEstimate(base: base, points: points, runs: runs, documentBytes: 0, jobs: jobs).memoryBytes
      seconds = max(0, base.seconds - base.fileSeconds) * Double(runs) / Double(max(1, min(jobs, runs)))
    }

    /// "~501 worlds, at most 3.1 s on 2 threads, 61 MB of memory".
    var description: String {
      "~\(RunEstimate.count(Double(runs))) worlds, at most \(RunEstimate.duration(seconds)) on \(jobs) "
        + "thread\(jobs == 1 ? "" : "s"), \(RunEstimate.bytes(memoryBytes)) of memory"
    }
  }

  /// The parameters a fit identified, from the `fit.csv` beside a twin that `fit` wrote (none
  /// when there is no such file, or it is not a fit's).
  static func fittedIntervals(besides file: String) -> [SensitivitySelection.Fitted] {
    let folder = (file as NSString).deletingLastPathComponent
    guard let csv = MappedCSV(path: (folder.isEmpty ? "." : folder) + "/fit.csv") else { return [] }
    let wanted = ["parameter", "estimate", "low", "high", "identified"]
    let columns = wanted.compactMap { csv.columns.firstIndex(of: $0) }
    guard columns.count == wanted.count else { return [] }
    var cursor = csv.cursor()
    var malformed = false
    var result: [SensitivitySelection.Fitted] = []
    while let fields = cursor.next(malformed: &malformed) {
      guard !malformed, fields[columns[4]] == "1", let estimate = Double(fields[columns[1]]),
        let low = Double(fields[columns[2]]), let high = Double(fields[columns[3]])
      else { continue }
      result.append(.init(path: fields[columns[0]], estimate: estimate, low: low, high: high))
    }
    return result
  }

  /// "Morris, 10 trajectories of 24 parameters and each alone at its ends, × 1 seed: 299 worlds".
  static func describe(_ options: Options, design: SensitivityDesign, factors: Int, seeds: Int) -> String {
    let parameters = "\(factors) parameter\(factors == 1 ? "" : "s")"
    let what =
      design.method == .morris
      ? "Morris, \(options.trajectories) trajector\(options.trajectories == 1 ? "y" : "ies") of \(parameters) and each "
        + "alone at its ends"
      : "one at a time, \(parameters) each alone at its ends"
    return "\(what), × \(seeds) seed\(seeds == 1 ? "" : "s"): \(design.points.count * seeds) worlds"
  }

  /// The answer in words: "latency.p95 32.4 s as written; under the assumptions it spans 18 s to
  /// 71 s; most of that is push.fanoutLatency [assumed] (μ* 14.2 s), then …".
  static func words(_ metric: SensitivityTable.Metric, factors: [SensitivityFactor]) -> String {
    let figure = { (value: Double?) in SensitivityPage.figureText(value, unit: metric.unit) }
    var line = "\(metric.name) \(figure(metric.base)) as written"
    guard let lowest = metric.lowest, let highest = metric.highest else {
      return line + "; undefined at every point of the screening"
    }
    line += "; under the assumptions it spans \(figure(lowest)) to \(figure(highest))"
    // A parameter whose μ* is under a hundredth of the largest moves the metric by rounding only.
    let largest = metric.rows.first?.muStar ?? 0
    let moving = metric.rows.filter { ($0.muStar ?? 0) > 0 && ($0.muStar ?? 0) >= largest / 100 }
    guard let first = moving.first else { return line + "; no parameter moves it" }
    let named = { (row: SensitivityTable.Row) in
      "\(factors[row.factor].name) \(tag(factors[row.factor].source)) (μ* \(figure(row.muStar)))"
    }
    line += "; most of that is \(named(first))"
    let next = moving.dropFirst().prefix(2).map(named)
    if !next.isEmpty { line += ", then " + next.joined(separator: ", ") }
    return line
  }

  /// For a twin: which of a metric's five most influential parameters the log identified, and
  /// which it left at their assumed value (the ones to measure next).
  static func identified(_ metric: SensitivityTable.Metric, factors: [SensitivityFactor]) -> String {
    let top = metric.rows.prefix(5).filter { ($0.muStar ?? 0) > 0 }.map { factors[$0.factor] }
    let fitted = top.filter { $0.source.hasPrefix("[fit]") }.map(\.name)
    let assumed = top.filter { !$0.source.hasPrefix("[fit]") }.map(\.name)
    let list = { (names: [String]) in names.isEmpty ? "none" : names.joined(separator: ", ") }
    return "  of its \(top.count) most influential, the log identified \(list(fitted)); left at their assumed value: "
      + list(assumed)
  }

  /// A source's tag: "[assumed]" when any part of the value is, else its first ("[A]", "[C]").
  static func tag(_ source: String) -> String {
    if source.hasPrefix("[fit]") { return "[fit]" }
    if source.contains("[assumed]") { return "[assumed]" }
    guard let open = source.firstIndex(of: "["), let close = source[open...].firstIndex(of: "]") else { return "" }
    return String(source[open...close])
  }

  /// `sensitivity-points.csv`: each point's role, its parameters' values (empty where left as
  /// written) and its metrics' means over the seeds.
  static func pointsTable(_ runner: SensitivityRunner, values: [[Double?]]) -> CSVTable {
    var table = CSVTable(columns: ["point", "role", "trajectory"] + runner.factors.map(\.name) + runner.metrics)
    for (point, levels) in runner.design.points.enumerated() {
      let (role, trajectory): (String, String)
      switch runner.design.roles[point] {
      case .base: (role, trajectory) = ("asWritten", "")
      case .low: (role, trajectory) = ("low", "")
      case .high: (role, trajectory) = ("high", "")
      case .trajectory(let index): (role, trajectory) = ("morris", String(index + 1))
      }
      let settings = runner.factors.indices.map { index in levels[index].map { runner.factors[index].label(at: $0) } ?? "" }
      let figures = values[point].map { $0.map { SensitivityTable.number($0) } ?? "" }
      table.append([String(point), role, trajectory] + settings + figures)
    }
    return table
  }

  static func page(_ table: SensitivityTable, title: String, design: String) -> SensitivityPage {
    let charts = table.metrics.map { metric in
      SensitivityPage.Chart(
        metric: metric.name, unit: metric.unit, base: metric.base, lowest: metric.lowest, highest: metric.highest,
        bars: metric.rows.map { row in
          let factor = table.factors[row.factor]
          return SensitivityPage.Bar(
            parameter: factor.name, source: tag(factor.source), range: SensitivityTable.rangeText(factor),
            muStar: row.muStar, sigma: row.sigma, atLow: row.atLow, atHigh: row.atHigh)
        })
    }
    return SensitivityPage(title: title, design: design, charts: charts)
  }
}
