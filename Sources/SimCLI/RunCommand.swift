import Foundation
import SimExperiments
import SimKernel
import SimMetrics
import SimScenario
import SimTwin

/// `syncsim run SCENARIO.json [--seed N] [--duration D] [--out DIR] [--trace]`.
struct RunCommand {
  static let usage = """
    usage: syncsim run SCENARIO.json [--seed N] [--duration D] [--out DIR] [--trace] [--accept-large]
                       [--jobs N] [--batch-devices N] [--one-kernel] [--shard I/N] [--shards N]
                       [--checkpoint-seconds S] [--event-log] [--assumptions]

    Runs a scenario, prints a summary and writes CSV results into DIR
    (default Results/<scenario name>/): summary.csv, latency.csv, activities.csv,
    timeline.csv, and trace.csv with --trace. Exits 1 if an expectation fails.

      --seed N        override the scenario's seed
      --duration D    override the simulated duration ("30m", "24h", "7d" or seconds)
      --out DIR       where to write the CSV files
      --trace         also write every processed event to trace.csv
      --accept-large  run even when the estimate (memory, files) is over its limit
      --jobs N        threads for the independent parts of the world (default: the cores);
                      results are the same for any N
      --batch-devices N
                      devices per batch of parts handed to a thread (default 512);
                      results are the same for any N
      --one-kernel    run the whole world on one kernel even when its accounts are
                      independent (a check: the same metrics, other ids and fingerprint)
      --shard I/N     run only the I-th of N shares of the world's independent parts, and
                      write run-shard.txt beside the files; `syncsim merge` adds all N
                      up into the files of the unsharded run (docs/cluster-sweeps.md).
                      Without it, a job array's task variables choose it (Slurm's
                      SLURM_ARRAY_TASK_*; JOB_COMPLETION_INDEX or AWS_BATCH_JOB_ARRAY_INDEX
                      with --shards N)
      --shards N      the number of shards, for engines that set only an index
      --checkpoint-seconds S
                      a shard records its finished parts in DIR.resume/ at most every S
                      seconds of wall time (default 5; 0: after every part); a shard
                      killed and started again goes on from there, with the same results
      --event-log     also write the logs a real app would have left (docs/event-log.md):
                      event-log.ndjson (SyncSim's event log, every device) and
                      unified-DEVICE.log (each device's unified log as `log show` prints
                      it), from the world run on one kernel; at most 1000 devices
      --assumptions   after the summary, each headline metric's span over the assumptions:
                      every [assumed] parameter the scenario leaves at its default, alone at
                      each end of its plausible range (2k + 1 worlds more, printed only;
                      `syncsim sensitivity` measures them together)
    """

  /// What the command line asked for.
  struct Options {
    var file: String
    var seed: UInt64?
    var duration: SimDuration?
    var out: String?
    var trace: Bool
    var acceptLarge = false
    var jobs = PartitionedRunner.defaultJobs
    var batchDevices = PartitionedRunner.defaultBatchDevices
    var oneKernel = false
    var shard: RunShard?
    /// What chose the shard: `--shard`, or a job engine's variables (`ShardEnvironment`).
    var shardOrigin: String?
    /// Write the run's event log and unified logs beside its results.
    var eventLog = false
    /// Print the headline metrics' span over the assumptions (`AssumptionBand`).
    var assumptions = false
    /// How often a shard records its progress (`RunShardJournal`), in wall-clock seconds.
    var checkpointSeconds = 5.0
    /// The command line without what differs from shard to shard (`--shard`, `--shards`,
    /// `--out`, ...): a shard's `run-shard.txt` keeps it, and `merge` prints it for the shards it
    /// lacks.
    var commonCommand = ""
  }

  static func run(_ arguments: [String], console: Console) throws(UsageError) -> ExitCode {
    var args = ArgumentList(arguments)
    if args.flag("help") {
      console.print(usage)
      return .success
    }
    var options = try parse(&args)
    options.commonCommand = SweepCommandLine.commonCommand(arguments, command: "run")
    guard let loaded = load(options, console: console) else { return .dataError }
    let code = execute(loaded.scenario, options, console: console)
    if options.assumptions && code != .cannotCreate {
      let lines = AssumptionBand.lines(
        file: options.file, bytes: loaded.bytes, scenario: loaded.scenario, seed: options.seed,
        duration: options.duration, jobs: options.jobs)
      for line in lines { console.print(line) }
    }
    return code
  }

  /// Reads the options; a malformed one is a usage error.
  static func parse(
    _ args: inout ArgumentList, environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws(UsageError) -> Options {
    let seedText = try args.option("seed")
    let durationText = try args.option("duration")
    let out = try args.option("out").map { path throws(UsageError) in try OutputPath.folder(path, option: "--out") }
    let trace = args.flag("trace")
    let acceptLarge = args.flag("accept-large")
    let jobsText = try args.option("jobs")
    let batchText = try args.option("batch-devices")
    let oneKernel = args.flag("one-kernel")
    let eventLog = args.flag("event-log")
    let assumptions = args.flag("assumptions")
    let checkpointText = try args.option("checkpoint-seconds")
    let shardChoice = try ShardEnvironment.resolve(
      flag: try args.option("shard"), shards: try args.option("shards"), environment: environment)
    let files = try args.positionals()
    guard files.count == 1 else {
      throw UsageError(files.isEmpty ? "run needs a scenario file" : "run takes one scenario file")
    }
    var options = Options(file: files[0], out: out, trace: trace, acceptLarge: acceptLarge)
    options.oneKernel = oneKernel
    options.eventLog = eventLog
    options.assumptions = assumptions
    if let shardChoice {
      guard !eventLog else { throw UsageError("--event-log needs the whole world: it cannot go with --shard") }
      guard !assumptions else { throw UsageError("--assumptions runs the whole world again: it cannot go with --shard") }
      let shard = try shardOption(shardChoice.text)
      guard !oneKernel else { throw UsageError("--shard runs parts apart: it cannot go with --one-kernel") }
      options.shard = shard
      options.shardOrigin = shardChoice.origin
    }
    if let checkpointText {
      guard let seconds = Double(checkpointText), seconds >= 0, seconds <= 86_400 else {
        throw UsageError("--checkpoint-seconds must be a number of seconds from 0 to 86400, such as 5")
      }
      guard options.shard != nil else { throw UsageError("--checkpoint-seconds is for a shard (--shard I/N)") }
      options.checkpointSeconds = seconds
    }
    if let jobs = try ArgumentList.integer(jobsText, option: "jobs", in: 1...1024) { options.jobs = jobs }
    if let batch = try ArgumentList.integer(batchText, option: "batch-devices", in: 1...100_000_000) {
      options.batchDevices = batch
    }
    if let seedText {
      guard let value = UInt64(seedText) else {
        throw UsageError("--seed must be a whole number from 0 to \(UInt64.max)")
      }
      options.seed = value
    }
    if let durationText {
      guard let value = DurationText.parse(durationText), value > .zero, value <= .days(3650),
        let seconds = DurationText.seconds(durationText), seconds >= 1e-9
      else {
        throw UsageError("--duration must be a positive duration of at least 1ns, such as 30m, 24h or 7d")
      }
      options.duration = value
    }
    return options
  }

  /// `--shard I/N` read (`run` and `validate`).
  static func shardOption(_ text: String) throws(UsageError) -> RunShard {
    guard let shard = RunShard(text: text) else {
      throw UsageError("--shard must be I/N with 1 ≤ I ≤ N ≤ 1000000, such as 2/10")
    }
    return shard
  }

  /// Loads and validates the scenario, reporting every problem; nil when it has an error.
  static func load(_ options: Options, console: Console) -> (scenario: Scenario, bytes: [UInt8])? {
    let loaded = ScenarioFile.load(options.file, acceptLarge: options.acceptLarge, shard: options.shard)
    var problems = loaded.problems
    // A longer --duration is estimated again: `quickstart --duration 3650d` is another run. Accepted
    // over the limits, it stops at the accepted limit of its own length. So is a traced run, whose
    // trace.csv holds every event.
    let askedEstimate = (options.duration != nil || options.trace ? loaded.scenario : nil).map {
      RunEstimate(ScenarioRunner.asRun($0, seed: nil, duration: options.duration, trace: options.trace))
    }
    if let askedEstimate, !options.acceptLarge { problems += askedEstimate.problems(file: options.file) }
    for problem in problems { console.error(problem.description) }
    guard var scenario = loaded.scenario, !problems.contains(where: { $0.severity == .error }) else {
      console.error("\(problems.count) problem\(problems.count == 1 ? "" : "s") found; nothing was run")
      return nil
    }
    if let askedEstimate, options.acceptLarge { scenario.spec.maxEvents = askedEstimate.acceptedEventLimit }
    if options.eventLog && scenario.spec.devices.count > SimulatedLog.maxDevices {
      console.error(
        "\(options.file): --event-log writes a file per device: at most \(SimulatedLog.maxDevices) devices, "
          + "this world has \(scenario.spec.devices.count) (run a smaller world, or without --event-log)")
      return nil
    }
    if let shard = options.shard, let problem = RunShard.problem(scenario, count: shard.count, trace: options.trace) {
      console.error("\(options.file): \(problem)")
      return nil
    }
    return (scenario, loaded.bytes)
  }

  /// Runs the scenario, writes its files and prints its summary.
  static func execute(_ scenario: Scenario, _ options: Options, console: Console) -> ExitCode {
    let clock = ContinuousClock()
    let started = clock.now
    let directory = options.out ?? "Results/\(scenario.name)"
    if let shard = options.shard,
      let kept = RunShardResume.finished(
        scenario, shard: shard, seed: options.seed, duration: options.duration, trace: options.trace,
        directory: directory, version: SyncSimCommand.version, console: console)
    {
      RunShardJournal.removeStaleLock(in: directory)
      console.print(kept)
      return .success
    }
    // The set is staged before the run, so that rows written part by part as the run goes (a
    // fleet's latency.csv) go straight to their files; a failure removes the staging folder. A
    // shard stages in its journal, which a failure keeps, to be resumed.
    let journal = options.shard.flatMap { openJournal(scenario, $0, options, directory: directory, console: console) }
    let staging: ResultSetWriter.Staging
    do {
      staging = try journal?.staging ?? ResultSetWriter.stage(directory)
    } catch {
      console.error("error: cannot write results to \(directory): \(OutputPath.describe(error))")
      return .cannotCreate
    }
    let files = ResultSetWriter.OpenFiles(tracksContent: journal != nil)
    files.continued = journal?.resumed?.files ?? []
    var streams: [CSVStream] = []
    var lastCheckpoint = started
    let interval = Duration.milliseconds(Int64(options.checkpointSeconds * 1000))
    let checkpoint = journal.map { journal in
      { (progress: () -> RunProgress?) in
        let now = clock.now
        guard lastCheckpoint.duration(to: now) >= interval else { return }
        lastCheckpoint = now
        guard let progress = progress(), let entries = files.synced(streams) else { return }
        journal.checkpoint(progress, entries: entries)
      }
    }
    let report = ScenarioRunner.run(
      scenario, seed: options.seed, duration: options.duration, trace: options.trace, jobs: options.jobs,
      batchDevices: options.batchDevices, partitioned: !options.oneKernel,
      spill: { name, columns in
        let stream = files.stream(name, columns: columns, in: staging)
        streams.append(stream)
        return stream
      },
      shard: options.shard, progress: progressLine(scenario.name, console, clock, started),
      resume: journal?.resumed?.progress, checkpoint: checkpoint)
    let wall = started.duration(to: clock.now)
    if console.errIsTerminal && wall > .seconds(2) { console.errorRaw("\r\u{1B}[K") }
    do {
      try files.closeAll(streams)
      var results = report.resultFiles(version: SyncSimCommand.version, includeTrace: options.trace)
      if options.eventLog {
        var spec = scenario.spec
        if let seed = options.seed { spec.seed = seed }
        if let duration = options.duration { spec.duration = duration }
        let log = SimulatedLog.run(spec, names: scenario.deviceNames)
        results += SimulatedLog.files(log).map { ResultFile(name: $0.name, text: $0.text) }
      }
      // A shard's manifest of its per-row files, read back from the staging folder once they are
      // written (run-shard.txt comes last), so that `merge` finds a file cut short or edited.
      // A journal counted each file's lines, bytes and digest as it wrote them (no second read).
      if let index = results.firstIndex(where: { $0.name == RunShardFile.name }) {
        let shardFile = results[index]
        let rowFiles = results.map(\.name).filter { $0.hasSuffix(".csv") && $0 != "summary.csv" }
        let folder = staging.folder
        let counted = files.tracksContent ? files.entries : nil
        let command = options.commonCommand.isEmpty ? "" : "command \(options.commonCommand)\n"
        results[index] = ResultFile(name: RunShardFile.name) {
          let manifest: String
          if let counted, Set(counted.map(\.name)) == Set(rowFiles) {
            manifest = rowFiles.compactMap { name in counted.first { $0.name == name } }.map { $0.line + "\n" }.joined()
          } else {
            manifest = RunShardFile.manifest(of: rowFiles, in: folder)
          }
          return SelfDigest.signed(shardFile.renderedText() + command + manifest)
        }
      }
      journal?.prepareCommit()
      try ResultSetWriter.commit(results, staging)
      journal?.finishCommit()
    } catch {
      // A journal keeps the parts its last checkpoint counts, for the shard run again.
      if let journal {
        console.error("note: \(journal.folder) is kept: run the shard again to go on from its last checkpoint")
      } else {
        ResultSetWriter.removeFolder(staging.folder)
      }
      console.error("error: cannot write results to \(directory): \(OutputPath.describe(error))")
      return .cannotCreate
    }
    RunSummaryPrinter.print(report, wall: wall, directory: directory, console: console)
    if let resumed = journal?.resumed, let shard = report.shard {
      console.print(
        "resumed      \(resumed.progress.partsDone) of the shard's \(shard.parts.count) parts were finished "
          + "(\(journal!.folder)); ran the other \(shard.parts.count - resumed.progress.partsDone)")
    }
    if let shard = options.shard, let origin = options.shardOrigin, !origin.hasPrefix("--shard") {
      console.print("shard        \(shard.index)/\(shard.count), chosen by \(origin)")
    }
    // A run cut short at the event limit did not simulate what was asked: its results are whole
    // files, but of a shorter run, and a script must not take them for the real thing.
    if report.outcome.stopReason.isEventLimit {
      console.error("error: the run stopped at the event limit before its end; its results cover only part of it")
      return .failure
    }
    return report.allExpectationsMet ? .success : .failure
  }

  /// The journal a shard stages in (`RunShardJournal`), resuming the run it holds where that is
  /// this one; nil where there can be none (the shard then stages as any run does).
  static func openJournal(
    _ scenario: Scenario, _ shard: RunShard, _ options: Options, directory: String, console: Console
  ) -> RunShardJournal? {
    let asked = ScenarioRunner.asRun(scenario, seed: options.seed, duration: options.duration, trace: options.trace)
    let hash = ScenarioResolver.hash(ScenarioResolver.resolve(asked, duration: options.duration))
    let identity = RunShardJournal.identity(
      scenario: asked.name, scenarioHash: hash, seed: asked.spec.seed, shard: shard, version: SyncSimCommand.version)
    return RunShardJournal.open(
      directory: directory, identity: identity, files: scenario.outputs.compactMap { PartRows.files[$0] },
      console: console)
  }

  /// The progress line on stderr for runs longer than two seconds, when stderr is a terminal.
  static func progressLine(
    _ name: String, _ console: Console, _ clock: ContinuousClock, _ started: ContinuousClock.Instant
  ) -> ((SimTime, SimTime) -> Void)? {
    guard console.errIsTerminal else { return nil }
    var lastProgress = started
    return { reached, end in
      let now = clock.now
      guard started.duration(to: now) > .seconds(2), lastProgress.duration(to: now) > .milliseconds(200) else {
        return
      }
      lastProgress = now
      let percent = end.nanoseconds > 0 ? Int(reached.nanoseconds * 100 / end.nanoseconds) : 100
      let simulated = DurationText.format(SimDuration(nanoseconds: end.nanoseconds))
      console.errorRaw("\r\(name): \(percent)% of \(simulated) simulated")
    }
  }
}
