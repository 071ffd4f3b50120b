import Foundation
import SimExperiments
import SimKernel
import SimMetrics
import SimScenario

/// `syncsim sweep`: every point × replication of a parameter sweep, in parallel.
struct SweepCommand {
  static let usage = """
    usage: syncsim sweep SCENARIO.json [--set PATH=V1,V2,...]... [--zip PATH,PATH]... [--exclude PATH=V,...]...
                         [--seeds 1..30] [--jobs N] [--out DIR] [--shard I/N] [--shards N]
                         [--metric M]... [--accept-large]

    Runs every point of the sweep (the scenario's `sweep` section, extended by --set) for every
    seed. Each run is single-threaded and deterministic; runs spread over --jobs threads
    (default: the core count). Writes into DIR (default Results/<name>-sweep/):
      sweep.csv          one row per (point, replication, metric), with the factor values
      sweep-summary.csv  per (point, metric): n, mean, sd and a 95 % t-interval
      points/point-NNNN/scenario.json   the resolved scenario of each point
    The bytes are the same whatever --jobs is.

      --set PATH=V1,V2   a factor: the JSON path and its values (JSON, or plain text)
      --zip P1,P2        these factors step together instead of being crossed
      --exclude P=V,...  skip combinations where every listed factor has that value
      --seeds 1..30      replications (a range or a list); default the scenario's seed
      --shard I/N        run only runs I, I+N, I+2N, … (1-based I; run k = point × seeds + replication);
                         combine shard folders with `syncsim merge`. Without it, a job array's task
                         variables choose it (Slurm's SLURM_ARRAY_TASK_*; JOB_COMPLETION_INDEX or
                         AWS_BATCH_JOB_ARRAY_INDEX with --shards N)
      --shards N         the number of shards, for engines that set only an index
      --metric M         a metric the table on screen shows (repeatable; default latency.p50,
                         latency.p95, converged); every metric is in sweep-summary.csv
      --accept-large     run points whose estimate (memory, files) is over its limit
    """

  /// What the command line asked for.
  struct Options {
    var file: String
    var sets: [String]
    var zips: [String]
    var excludes: [String]
    var seeds: String?
    var jobs: Int
    var out: String?
    var shard: (index: Int, count: Int)?
    var acceptLarge = false
    /// What chose the shard: `--shard`, or a job engine's variables (`ShardEnvironment`).
    var shardOrigin: String?
    /// The metrics the table on screen shows (`--metric`).
    var screenMetrics = SweepScreenTable.defaultMetrics
    /// The command line without what differs from shard to shard (`--shard`, `--shards`,
    /// `--out`, `--jobs`): `merge` prints it for the shards it lacks.
    var commonCommand = ""
  }

  /// A sweep ready to run: its scenario, plan and runner, and each point's resolved scenario.
  struct Prepared {
    var scenario: Scenario
    var plan: SweepPlan
    var runner: SweepRunner
    var scenarios: [Int: Scenario]

    /// The seeds of the sweep: its plan's, else the scenario's own.
    var seeds: [UInt64] { plan.seeds.isEmpty ? [scenario.spec.seed] : plan.seeds }
  }

  static func run(_ arguments: [String], console: Console) throws(UsageError) -> ExitCode {
    var args = ArgumentList(arguments)
    if args.flag("help") {
      console.print(usage)
      return .success
    }
    let options = try parse(&args, arguments: arguments)
    switch prepare(options, console: console) {
    case .success(let prepared): return execute(prepared, options, console: console)
    case .failure(let code): return code
    }
  }

  /// Reads the options; a malformed one is a usage error.
  static func parse(
    _ args: inout ArgumentList, arguments: [String] = [],
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws(UsageError) -> Options {
    let sets = try args.options("set")
    let zips = try args.options("zip")
    let excludes = try args.options("exclude")
    let seeds = try args.option("seeds")
    let jobsText = try args.option("jobs")
    let out = try args.option("out").map { path throws(UsageError) in try OutputPath.folder(path, option: "--out") }
    let shardChoice = try ShardEnvironment.resolve(
      flag: try args.option("shard"), shards: try args.option("shards"), environment: environment)
    let acceptLarge = args.flag("accept-large")
    let metrics = try args.options("metric")
    try checkMetrics(metrics)
    let files = try args.positionals()
    for (name, values) in [("set", sets), ("exclude", excludes)] {
      guard let bare = values.first(where: { !$0.contains("=") }) else { continue }
      let extra = files.count == 2 ? " (did you mean --\(name) \(bare)=\(files[1])?)" : ""
      throw UsageError("--\(name) takes PATH=VALUES joined by '=': got \"\(bare)\"\(extra)")
    }
    guard files.count == 1 else {
      throw UsageError(
        files.isEmpty ? "sweep needs a scenario file" : "sweep takes one scenario file, got \(files.count)")
    }
    let jobs = try ArgumentList.integer(jobsText, option: "jobs", in: 1...256) ?? ProcessInfo.processInfo.activeProcessorCount
    var options = Options(
      file: files[0], sets: sets, zips: zips, excludes: excludes, seeds: seeds, jobs: jobs, out: out,
      shard: try shardChoice.map { choice throws(UsageError) in try parseShard(choice.text) }, acceptLarge: acceptLarge)
    options.shardOrigin = shardChoice?.origin
    options.commonCommand = SweepCommandLine.commonCommand(arguments)
    if !metrics.isEmpty { options.screenMetrics = metrics }
    return options
  }

  /// Refuses a `--metric` that names no metric, with the nearest name.
  static func checkMetrics(_ metrics: [String]) throws(UsageError) {
    for metric in metrics where !metric.hasPrefix("blocked.") && RunSummary.metric(named: metric) == nil {
      let guess = suggestion(for: metric, among: RunSummary.metricNames).map { " (did you mean \($0)?)" } ?? ""
      throw UsageError("--metric: no metric named \(metric)\(guess); docs/metrics.md lists them")
    }
  }

  static func parseShard(_ text: String) throws(UsageError) -> (index: Int, count: Int) {
    let parts = text.split(separator: "/").compactMap { Int($0) }
    guard parts.count == 2, parts[1] >= 1, parts[0] >= 1, parts[0] <= parts[1] else {
      throw UsageError("--shard must be I/N with 1 ≤ I ≤ N")
    }
    return (parts[0], parts[1])
  }

  /// Loads the scenario, builds the plan and resolves every point; reports every problem and
  /// returns nil when there is any (nothing is run or written then).
  ///
  /// A malformed --set, --zip, --exclude or --seeds is a usage error (64); a value the scenario
  /// refuses at some point of the sweep is bad input (65).
  static func prepare(_ options: Options, console: Console) -> Result<Prepared, ExitCode> {
    let loaded = ScenarioFile.load(options.file, acceptLarge: options.acceptLarge)
    for problem in loaded.problems { console.error(problem.description) }
    guard let scenario = loaded.scenario, let document = try? JSONParser.parse(loaded.bytes) else {
      return .failure(.dataError)
    }
    let watched = scenario.watches.flatMap { RunSummary.watchMetrics($0.name).map(\.name) }
    if let unknown = options.screenMetrics.first(where: { $0.hasPrefix("watch.") && !watched.contains($0) }) {
      console.error(
        "--metric: the scenario watches no write as \(unknown)"
          + (watched.isEmpty ? "; name one with \"watch\" (docs/scenario-format.md)" : "; it has " + watched.joined(separator: ", ")))
      return .failure(.usage)
    }
    var problems: [ScenarioProblem] = []
    let plan = SweepCommandLine.plan(
      base: scenario.sweep ?? SweepPlan(), sets: options.sets, zips: options.zips, excludes: options.excludes,
      seeds: options.seeds, problems: &problems)
    guard problems.isEmpty else {
      for problem in problems { console.error(problem.description) }
      console.error("run 'syncsim sweep --help' for usage")
      return .failure(.usage)
    }
    let runner = SweepRunner(
      name: scenario.name, document: document, sourceBytes: loaded.bytes, file: options.file, plan: plan,
      acceptLarge: options.acceptLarge)
    // The sweep as a whole, before its points are decoded (which is where its memory goes).
    let estimate = SweepEstimate(scenario, document: document, plan: plan, shard: options.shard, jobs: options.jobs)
    if !options.acceptLarge, case let over = estimate.problems(file: options.file), !over.isEmpty {
      for problem in over { console.error(problem.description) }
      console.error("\(over.count) problem\(over.count == 1 ? "" : "s") found; nothing was run")
      return .failure(.dataError)
    }
    var scenarios: [Int: Scenario] = [:]
    if problems.isEmpty {
      switch runner.resolveAll() {
      case .success(let resolved): scenarios = resolved
      case .failure(let error): problems += error.problems
      }
    }
    guard problems.isEmpty else {
      for problem in problems { console.error(problem.description) }
      console.error("\(problems.count) problem\(problems.count == 1 ? "" : "s") found; nothing was run")
      return .failure(.dataError)
    }
    return .success(Prepared(scenario: scenario, plan: plan, runner: runner, scenarios: scenarios))
  }

  /// Runs the sweep (or its shard), writes its files and prints where they are. The runs a killed
  /// attempt finished are kept beside the folder (`SweepJournal`) and not run again.
  static func execute(_ prepared: Prepared, _ options: Options, console: Console) -> ExitCode {
    let name = prepared.scenario.name
    var runs = prepared.runner.runs(defaultSeed: prepared.scenario.spec.seed)
    let total = runs.count
    if let shard = options.shard { runs = runs.filter { $0.index % shard.count == shard.index - 1 } }
    let directory = options.out ?? "Results/\(name)-sweep"
    let plan = prepared.plan
    let factorNames = plan.factors.map(\.path)
    let journal = SweepJournal(
      out: directory, manifest: journalManifest(prepared, options, total: total),
      columns: SweepOutput.columns(factors: factorNames))
    var kept = journal.finishedRuns()
    if let note = kept.note { console.error(note) }
    // A kept run must be one of this shard's, at its point and replication.
    let byIndex = Dictionary(uniqueKeysWithValues: runs.map { ($0.index, $0) })
    kept.rows = kept.rows.filter { index, rows in
      guard let run = byIndex[index] else { return false }
      return rows[0][1] == String(run.point.index) && rows[0][2] == String(run.replication)
    }
    let remaining = runs.filter { kept.rows[$0.index] == nil }
    var keeping = true
    do { try journal.open() } catch {
      keeping = false
      console.error("warning: cannot keep finished runs in \(journal.folder) (\(OutputPath.describe(error))): a killed sweep will start over")
    }
    let clock = ContinuousClock()
    let started = clock.now
    let version = SyncSimCommand.version
    var keep: (@Sendable (SweepRunner.RunResult) -> Void)?
    if keeping {
      keep = { @Sendable result in
        journal.record(run: result.run.index, rows: SweepOutput.rows([result], plan: plan, name: name, version: version))
      }
    }
    let results = prepared.runner.execute(
      remaining, scenarios: prepared.scenarios, jobs: options.jobs,
      progress: progressLine(name, console, clock, started), finished: keep)
    if console.errIsTerminal { console.errorRaw("\r\u{1B}[K") }
    // Every run's rows in run order, kept or run now: what one uninterrupted sweep writes.
    var rowsByRun = kept.rows
    for result in results { rowsByRun[result.run.index] = SweepOutput.rows([result], plan: plan, name: name, version: version) }
    let rows = runs.flatMap { rowsByRun[$0.index] ?? [] }
    let summary: CSVTable?
    do {
      summary = try write(rows, runs: runs, total: total, prepared, options, to: directory)
    } catch {
      console.error("error: cannot write results to \(directory): \(OutputPath.describe(error))")
      return .cannotCreate
    }
    journal.finish()
    let wallSeconds = started.duration(to: clock.now).secondsValue
    let chosenBy = options.shardOrigin.flatMap { $0.hasPrefix("--shard") ? nil : ", chosen by \($0)" } ?? ""
    let shardNote = options.shard.map { " (shard \($0.index)/\($0.count)\(chosenBy): \(runs.count) of \(total))" } ?? ""
    let resumedNote = kept.rows.isEmpty ? "" : ", \(kept.rows.count) of them kept from the killed attempt"
    let seeds = max(1, prepared.plan.seeds.count)
    let threads = "\(options.jobs) thread\(options.jobs == 1 ? "" : "s")"
    console.print(
      "sweep \(name): \(prepared.plan.points().count) points × \(seeds) seeds = \(total) runs\(shardNote)\(resumedNote) on "
        + "\(threads), wall \(String(format: "%.2f", wallSeconds)) s")
    if let summary {
      for line in SweepScreenTable.lines(summary, factors: factorNames, metrics: options.screenMetrics) {
        console.print(line)
      }
    }
    console.print("results \(directory)/")
    return .success
  }

  /// What a kept run must belong to: the sweep (its shard manifest, with the scenario file's hash,
  /// factors and seeds) and the version that ran it.
  static func journalManifest(_ prepared: Prepared, _ options: Options, total: Int) -> String {
    shardManifest(prepared, shard: options.shard ?? (1, 1), total: total) + "version \(SyncSimCommand.version)\n"
  }

  /// `shard.txt` of this sweep's shard `shard` (`SweepCommandLine.manifest`).
  static func shardManifest(
    _ prepared: Prepared, shard: (index: Int, count: Int), total: Int, command: String = ""
  ) -> String {
    SweepCommandLine.manifest(
      shard: shard, total: total, factors: prepared.plan.factors.map(\.path), scenario: prepared.scenario.name,
      hash: prepared.runner.sourceHash, seeds: prepared.seeds, command: command)
  }

  /// The progress line on stderr, when stderr is a terminal.
  static func progressLine(
    _ name: String, _ console: Console, _ clock: ContinuousClock, _ started: ContinuousClock.Instant
  ) -> (@Sendable (Int, Int) -> Void)? {
    guard console.errIsTerminal else { return nil }
    return { done, all in
      let seconds = started.duration(to: clock.now).secondsValue
      let eta = done > 0 ? seconds / Double(done) * Double(all - done) : 0
      console.errorRaw("\r\(name): \(done)/\(all) runs, ETA \(Int(eta)) s   ")
    }
  }

  /// Writes `sweep.csv`, the summary (or a shard's manifest) and each run point's scenario.
  /// Returns the summary's table (nil for a shard, which writes none).
  @discardableResult
  static func write(
    _ rows: [[String]], runs: [SweepRunner.Run], total: Int, _ prepared: Prepared, _ options: Options,
    to directory: String
  ) throws -> CSVTable? {
    let plan = prepared.plan
    let factorNames = plan.factors.map(\.path)
    let table = SweepOutput.table(rows, factors: factorNames)
    var outputs: [(name: String, text: String)] = [("sweep.csv", table.text)]
    var summary: CSVTable?
    let points = plan.points()
    var pointFiles: [(name: String, text: String)] = []
    for point in Set(runs.map(\.point.index)).sorted() {
      let document =
        (try? prepared.runner.resolvedDocument(points[point]).get()) ?? prepared.runner.document.removingMember("sweep")
      let resolved = ScenarioResolver.file(
        ScenarioResolver.resolve(prepared.scenarios[point] ?? prepared.scenario), seeds: prepared.seeds,
        version: SyncSimCommand.version)
      let folder = "points/" + SweepCommandLine.folder(point) + "/"
      pointFiles.append((folder + "scenario.json", document.serialized() + "\n"))
      pointFiles.append((folder + "resolved.json", resolved))
    }
    if let shard = options.shard {
      // Every file the merge carries, with its length and digest, and the manifest's own digest
      // last (issue 71: an emptied or edited point scenario merged with exit 0).
      let listed = (outputs + pointFiles).map { SweepCommandLine.fileLine($0.name, $0.text) }.joined()
      let manifest = shardManifest(prepared, shard: shard, total: total, command: options.commonCommand) + listed
      outputs.append(("shard.txt", SelfDigest.signed(manifest)))
    } else {
      summary = SweepOutput.summary(of: table, factors: factorNames)
      outputs.append(("sweep-summary.csv", summary!.text))
    }
    var files = outputs.map { ResultFile(name: $0.name, text: $0.text) }
    files.append(
      ResultFile(
        name: "datapackage.json",
        text: SweepOutput.dataPackage(
          name: prepared.scenario.name, labels: SweepLabels(plan: plan), withSummary: options.shard == nil)))
    files += pointFiles.map { ResultFile(name: $0.name, text: $0.text) }
    // One set: the old sweep's files and points go with it, whole (a killed sweep left a mix).
    try ResultSetWriter.write(files, to: directory, kind: .sweep)
    return summary
  }
}

/// Turning command-line sweep options into a plan, and the shard manifest.
enum SweepCommandLine {
  static func folder(_ point: Int) -> String {
    let digits = String(point)
    return "point-" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
  }

  /// `shard.txt`: which shard this is, and what every shard of the same sweep shares (runs,
  /// factors, scenario and its file's hash, seeds), so that `merge` can refuse a mix.
  static func manifest(
    shard: (index: Int, count: Int), total: Int, factors: [String], scenario: String = "", hash: String = "",
    seeds: [UInt64] = [], command: String = ""
  ) -> String {
    "shard \(shard.index) of \(shard.count)\nruns \(total)\nfactors \(factors.joined(separator: ","))\n"
      + "scenario \(scenario)\nhash \(hash)\nseeds \(seeds.map(String.init).joined(separator: ","))\n"
      + (command.isEmpty ? "" : "command \(command)\n")
  }

  /// A shard manifest's line for a file it carries: `file NAME BYTES DIGEST` (FNV-1a, hex).
  static func fileLine(_ name: String, _ text: String) -> String {
    "file \(name) \(text.utf8.count) \(String(StableHash.fnv1a(text.utf8), radix: 16))\n"
  }

  /// `syncsim sweep` (or `command`) and its arguments, shell-quoted, without those that differ
  /// from shard to shard or change no result: what runs any shard once `--shard I/N --out DIR`
  /// is added.
  static func commonCommand(_ arguments: [String], command: String = "sweep") -> String {
    let dropped = ["--shard", "--shards", "--out", "--jobs", "--batch-devices", "--checkpoint-seconds"]
    var kept: [String] = []
    var index = 0
    while index < arguments.count {
      let argument = arguments[index]
      if dropped.contains(argument) {
        index += 2
        continue
      }
      if !dropped.contains(where: { argument.hasPrefix($0 + "=") }) { kept.append(argument) }
      index += 1
    }
    // A line of the manifest: an argument with a line break in it leaves the command out.
    guard !kept.contains(where: { $0.contains(where: \.isNewline) }) else { return "" }
    return (["syncsim", command] + kept.map(CheckCommand.shellQuoted)).joined(separator: " ")
  }

  /// Splits `v1,v2,...` at top-level commas (not inside quotes, brackets or braces).
  static func splitValues(_ text: String) -> [String] {
    var parts: [String] = []
    var current = ""
    var depth = 0
    var quoted = false
    for character in text {
      if character == "\"" { quoted.toggle() }
      if !quoted && (character == "[" || character == "{") { depth += 1 }
      if !quoted && (character == "]" || character == "}") { depth -= 1 }
      if character == "," && depth == 0 && !quoted {
        parts.append(current)
        current = ""
      } else {
        current.append(character)
      }
    }
    parts.append(current)
    return parts
  }

  /// A value as JSON if it parses, else as a string (so `--set duration=1h,2h` works).
  static func value(_ text: String) -> JSONNode {
    if let node = try? JSONParser.parse(Array(text.utf8)) { return node }
    return JSONNode(value: .string(text), line: 1, column: 1)
  }

  static func plan(
    base: SweepPlan, sets: [String], zips: [String], excludes: [String], seeds: String?,
    problems: inout [ScenarioProblem]
  ) -> SweepPlan {
    var plan = base
    for set in sets {
      guard let equals = set.firstIndex(of: "=") else {
        problems.append(ScenarioProblem(file: "command line", path: "--set \(set)", message: "expected PATH=V1,V2,..."))
        continue
      }
      let path = String(set[..<equals])
      guard let steps = JSONNode.parsePath(path) else {
        problems.append(
          ScenarioProblem(
            file: "command line", path: "--set \(path)", message: "\"\(path)\" is not a JSON path",
            hint: "for example push.dropProbability"))
        continue
      }
      let values = splitValues(String(set[set.index(after: equals)...])).map(value)
      plan.factors.removeAll { $0.path == path }
      plan.factors.append(SweepPlan.Factor(path: path, steps: steps, values: values, zipGroup: nil))
    }
    for (index, zip) in zips.enumerated() {
      let paths = zip.split(separator: ",").map(String.init)
      let members = plan.factors.indices.filter { paths.contains(plan.factors[$0].path) }
      if members.count != paths.count {
        problems.append(
          ScenarioProblem(
            file: "command line", path: "--zip \(zip)", message: "every zipped path must be a factor (--set it first)"))
        continue
      }
      let lengths = Set(members.map { plan.factors[$0].values.count })
      if lengths.count > 1 {
        problems.append(
          ScenarioProblem(
            file: "command line", path: "--zip \(zip)", message: "zipped factors need as many values each"))
      }
      for member in members { plan.factors[member].zipGroup = "cli\(index)" }
    }
    for exclude in excludes {
      var rule: [(path: String, value: String)] = []
      for pair in exclude.split(separator: ",") {
        guard let equals = pair.firstIndex(of: "=") else {
          problems.append(
            ScenarioProblem(file: "command line", path: "--exclude \(exclude)", message: "expected PATH=VALUE,..."))
          continue
        }
        let path = String(pair[..<equals])
        if !plan.factors.contains(where: { $0.path == path }) {
          problems.append(
            ScenarioProblem(
              file: "command line", path: "--exclude \(path)", message: "\"\(path)\" is not a factor of the sweep"))
        }
        rule.append((path, value(String(pair[pair.index(after: equals)...])).serialized()))
      }
      plan.excluded.append(rule)
    }
    if let seeds {
      if let parsed = SweepPlan.parseSeeds(seeds) {
        plan.seeds = parsed
      } else if let (low, high) = SweepPlan.seedRangeBounds(seeds), high - low >= SweepPlan.maxSeedRange {
        problems.append(
          ScenarioProblem(
            file: "command line", path: "--seeds \(seeds)",
            message: "\(high - low + 1) seeds, over the limit of \(SweepPlan.maxSeedRange) a sweep takes",
            hint: "give at most \(SweepPlan.maxSeedRange) seeds, e.g. \(low)..\(low + 29); docs/limits.md"))
      } else {
        problems.append(
          ScenarioProblem(
            file: "command line", path: "--seeds \(seeds)", message: "not a seed range", hint: "write 1..30 or 1,2,3"))
      }
    }
    if let problem = plan.sizeProblem() {
      problems.append(
        ScenarioProblem(file: "command line", path: "sweep", message: problem.message, hint: problem.hint))
    }
    return plan
  }
}
