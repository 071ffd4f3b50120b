import SimKernel
import SimMetrics
import SimModel

/// The result of checking one expectation.
public struct ExpectationResult: Sendable {
  public var expectation: Expectation
  public var actual: Double?
  public var passed: Bool

  /// e.g. `latency.p95 ≤ 60s: got 75.3s (failed)`.
  public var description: String {
    let info = RunSummary.metric(named: expectation.metric)
    let isDuration = info?.isDuration ?? false
    let symbol = ["max": "≤", "min": "≥", "equals": "="][expectation.comparison.rawValue]!
    let expected = Self.format(expectation.value, isDuration)
    let got = actual.map { Self.format($0, isDuration) } ?? "undefined"
    return "\(expectation.metric) \(symbol) \(expected): got \(got)" + (passed ? "" : " (failed)")
  }

  static func format(_ value: Double, _ isDuration: Bool) -> String {
    isDuration ? DurationText.display(SimDuration(seconds: value)) : CSVTable.number(value)
  }
}

/// One finished run of a scenario, with everything its files and summary need.
public struct RunReport {
  public var scenario: Scenario
  public var seed: UInt64
  /// The whole run: events summed over its parts, converged if every part is, ended when the
  /// first part to stop early stopped (else at the duration).
  public var outcome: RunOutcome
  public var summary: RunSummary
  public var expectations: [ExpectationResult]
  /// The scenario with every default filled in (`resolved.json`).
  public var resolved: JSONNode
  /// The hash of the resolved scenario's canonical form (provenance; `ScenarioResolver`).
  public var scenarioHash: String
  /// The run's independent parts, in part order (one for a world whose accounts are coupled),
  /// kept when a result file needs their rows (a run that writes only its summary keeps none).
  public let parts: [RunPart]
  /// Every part's fingerprint, in part order.
  public let partFingerprints: [TrajectoryFingerprint]
  /// Why the world's accounts ran as one part, if they have to (`WorldPartitioning`).
  public var coupling: String?
  /// The files whose rows come part by part, with this run's names and ids.
  public let partRows: PartRows
  /// The per-row files written part by part while the run went (`run(spill:)`).
  public var spilled: Set<String>
  /// With `audit`, how many row identities were checked in every part and the first failures
  /// (`MetricsRecorder.auditRows`); nil otherwise.
  public var audit: (checks: Int, failures: [String])?
  /// For a shard of the run (`RunShard`): which, its parts, the world's part count, its tally
  /// (what `merge` adds up) and the writes and activities its parts made (its rows' ids start at
  /// 0; `merge` shifts them by the shards before).
  public var shard:
    (shard: RunShard, parts: Range<Int>, partCount: Int, tally: SummaryTally, writes: Int, activities: Int)?
  /// Where every row's time went, summed over the parts by cause (`MetricsRecorder.causeTotals`),
  /// for a run that wrote its rows part by part and so kept no recorder; nil otherwise (read the
  /// parts' recorders).
  public var causeTotals: [(name: String, nanoseconds: Int128)]?

  /// The run's cause totals: the parts' recorders', or those summed as the parts went; nil when
  /// the run kept neither (it wrote no latency.csv).
  public func allCauseTotals() -> [(name: String, nanoseconds: Int128)]? {
    if let causeTotals { return causeTotals }
    guard !parts.isEmpty, parts.allSatisfy({ $0.recorder != nil }) else { return nil }
    var fold = CauseTotalsFold()
    for part in parts { fold.add(part.recorder!.causeTotals()) }
    return fold.totals
  }

  /// The first part's recorder (the only one of a world of one part). - Precondition: kept
  /// (the scenario asks for a file beside the summary).
  public var recorder: MetricsRecorder { parts[0].recorder! }

  /// Every (write, other device) row, computed on each access, with the whole world's ids (the
  /// report keeps none: a large run has millions).
  public var rows: [LatencyRow] {
    var rows: [LatencyRow] = []
    for part in parts { part.recorder?.forEachLatencyRow { rows.append(part.global($0)) } }
    return rows
  }

  /// The run's fingerprint: the trajectory of processed events and every observation the model
  /// emitted (so a change in any counter or result row changes it), as 16 hex digits. A run of
  /// several parts folds the parts' fingerprints in part order.
  public var fingerprint: String { Self.fingerprint(partFingerprints).hex }

  /// The fingerprints of a run's parts, folded in order (one part's is its own).
  public static func fingerprint(_ parts: [TrajectoryFingerprint]) -> TrajectoryFingerprint {
    var fold = FingerprintFold()
    for part in parts { fold.add(part) }
    return fold.value
  }

  public var allExpectationsMet: Bool { expectations.allSatisfy(\.passed) }
}

/// Runs scenarios: the one entry point the commands and tests use.
public enum ScenarioRunner {
  /// `scenario` with the run's overrides of its seed, duration and tracing applied: what `run`
  /// runs, and what its `scenarioHash` is the hash of (`ScenarioResolver.hash(resolve(_:duration:))`).
  public static func asRun(_ scenario: Scenario, seed: UInt64?, duration: SimDuration?, trace: Bool) -> Scenario {
    var scenario = scenario
    if let seed { scenario.spec.seed = seed }
    if let duration { scenario.spec.duration = duration }
    scenario.spec.traceEvents = trace
    return scenario
  }

  /// Runs `scenario`, optionally overriding its seed, duration or tracing.
  ///
  /// A world whose accounts share nothing runs as independent parts (`WorldPartitioning`) on
  /// `jobs` threads, handed out in batches of at most `batchDevices` devices (smaller towards the
  /// end); neither changes any result. `partitioned: false` runs the whole world on one kernel
  /// (for tests that compare).
  ///
  /// With `spill`, the files whose rows come part by part (`PartRows.files`) are written as the
  /// parts finish, into the streams `spill` opens (by file name and columns), and each part is let
  /// go: memory then holds the live parts, not the run's history. Only when every per-row file the
  /// run writes can be (`timeline.csv` and `trace.csv` need every part at once); the report's
  /// `spilled` names the files written so. The caller finishes the streams. `summaryOnly` keeps
  /// no part whatever files the scenario asks for (a sweep writes none of them).
  ///
  /// With `resume`, the run goes on after the parts `resume` counts (a shard's, killed mid-run),
  /// its totals and ids following theirs: its report is the one the uninterrupted run makes, and
  /// `spill`'s streams continue the files those parts wrote. `checkpoint` is called after each
  /// part's rows are handed to the streams, with what the run has got to so far (computed only
  /// when asked for). Both only for runs that keep no parts' recorders (a shard always spills).
  public static func run(
    _ scenario: Scenario, seed: UInt64? = nil, duration: SimDuration? = nil, trace: Bool = false,
    jobs: Int = 1, batchDevices: Int = PartitionedRunner.defaultBatchDevices, partitioned: Bool = true,
    spill: ((String, [String]) -> CSVStream)? = nil, summaryOnly: Bool = false, audit: Bool = false,
    shard: RunShard? = nil, progress: ((SimTime, SimTime) -> Void)? = nil, resume: RunProgress? = nil,
    checkpoint: ((() -> RunProgress?) -> Void)? = nil
  ) -> RunReport {
    let scenario = asRun(scenario, seed: seed, duration: duration, trace: trace)
    let spec = scenario.spec
    let partitioning = partitioned ? WorldPartitioning(spec) : WorldPartitioning(whole: spec)
    let needsRecorders = !summaryOnly && (trace || scenario.outputs.contains { $0 != "summary" })
    let spillable = !trace && PartRows.comeAllPartByPart(scenario.outputs)
    let spilledFiles =
      spill != nil && spillable && needsRecorders ? scenario.outputs.compactMap { PartRows.files[$0] } : []
    let keepsRecorders = needsRecorders && spilledFiles.isEmpty
    let keepsPushLog = audit || scenario.outputs.contains("latency")
    let writesLatency = scenario.outputs.contains("latency")
    let keepsTimeline = needsRecorders && scenario.outputs.contains("timeline")
    let audits = AuditTally()
    // A recorder no file reads is done with its tally: its tables go to the next part's.
    let reusesTables = !needsRecorders
    let tables = RecorderTablePool()
    let ids = PartIDs(spec, window: scenario.shardWindow)
    precondition(resume == nil || !keepsRecorders, "a resumed run must write its rows as it goes")
    let merger =
      resume.map { RunMerger(resuming: $0, partCount: partitioning.count) }
      ?? RunMerger(partCount: partitioning.count, keepsParts: keepsRecorders)
    // The whole world's causes, for every part alike: a timeline action's cause may be in one
    // part's timeline only, and the parts' tallies merge column by column.
    let reportedCauses = spec.reportedCauses
    let rowWriter = PartRows(
      scenario: scenario, seed: scenario.spec.seed, policyNames: spec.scheduler.policies.map(\.name) + reportedCauses.map(\.name),
      storeStarts: ids.firstStore)
    let streams = UncheckedBox(spilledFiles.map { name in (name, spill!(name, rowWriter.columns(of: name))) })
    let end = SimTime(spec.duration)
    let partCount = partitioning.count
    // The shard, its parts and the world's part count. A scenario holding one shard's devices
    // (`ShardWindow`) runs all of them: its parts are the shard's.
    let window = scenario.shardWindow
    let plan: (shard: RunShard, parts: Range<Int>, partCount: Int)? =
      window.map { ($0.shard, $0.parts, $0.partCount) } ?? shard.map { ($0, $0.parts(of: partCount), partCount) }
    // The parts this run simulates: the shard's (or all), after those `resume` counts.
    let ownParts = (window == nil ? plan?.parts : nil) ?? 0..<partitioning.count
    let runParts = (ownParts.lowerBound + (resume?.partsDone ?? 0))..<ownParts.upperBound
    let reporter = progress.map { UncheckedBox($0) }
    let checkpointer = checkpoint.map { UncheckedBox($0) }
    // Parts that hold their recorders until their rows are written are handed out in small
    // batches and held a few dozen at a time (writing rows is slower than simulating them).
    let spilling = !spilledFiles.isEmpty
    PartitionedRunner.run(
      spec, partitioning: partitioning, parts: runParts, jobs: jobs,
      batchDevices: spilling ? min(batchDevices, 32) : batchDevices,
      waitingLimit: spilling ? 64 : .max
    ) {
      index, partSpec in
      let recorder = MetricsRecorder(
        policyNames: partSpec.scheduler.policies.map(\.name), reportedErrors: partSpec.reportedErrors,
        reportedCauses: reportedCauses,
        tables: reusesTables ? tables.take() : nil)
      recorder.pushDeliveryLatency = partSpec.push.deliveryLatency
      recorder.keepsPushLog = keepsPushLog
      recorder.keepsTimeline = keepsTimeline
      recorder.initialAppStates = partSpec.devices.map(\.initialAppState)
      let outcome = WorldRunner.run(partSpec, sink: recorder, progress: partCount == 1 ? reporter?.value : nil)
      if audit { audits.add(recorder.auditRows(limit: 5), part: index, of: partCount) }
      // A part whose rows are written as it goes keeps no recorder: its causes are summed now,
      // for the run's `waits` line.
      let causes = keepsPushLog && spilling && writesLatency ? recorder.causeTotals() : nil
      let devices = partitioning.devices(ofPart: index)
      let map = ids.map(devices: devices, part: partSpec)
      // A world of one part (coupled accounts) has the cores to itself for its rows.
      let tally = SummaryTally(
        recorder: recorder, events: outcome.processedEvents, threads: partCount == 1 ? jobs : 1,
        watches: scenario.watches.map { partCount == 1 ? $0 : $0.inPart(devices: devices) })
      let (writeCount, activityCount) = (Int32(recorder.writeCount), Int32(recorder.activities.count))
      if reusesTables { tables.give(recorder.takeTables()) }
      return RunPart(
        outcome: outcome,
        tally: tally, fingerprint: recorder.digest.combined(with: outcome.fingerprint),
        recorder: needsRecorders ? recorder : nil,
        devices: Array(devices), stores: map.stores, zones: map.zones, writeCount: writeCount,
        activityCount: activityCount, causeTotals: causes)
    } consume: { index, part in
      let part = merger.add(part)
      for (name, stream) in streams.value {
        var stream = stream
        rowWriter.rows(of: name, part: part, into: &stream)
      }
      if partCount > 1, let reporter {
        reporter.value(SimTime(nanoseconds: end.nanoseconds / Int64(partCount) * Int64(index + 1)), end)
      }
      checkpointer?.value {
        merger.progress(
          partsDone: index + 1 - ownParts.lowerBound, partsInRun: ownParts.count,
          partsInWorld: plan?.partCount ?? partCount)
      }
    }
    let tally = merger.tally!
    let parts = merger.parts
    let outcome = merger.outcome!
    let summary = RunSummary(tally: tally)
    // A shard holds part of the world: its expectations are evaluated by `merge`, on the whole.
    let results = plan == nil ? evaluate(scenario.expectations, summary) : []
    let resolved = ScenarioResolver.resolve(scenario, duration: duration)
    return RunReport(
      scenario: scenario, seed: scenario.spec.seed, outcome: outcome, summary: summary,
      expectations: results, resolved: resolved, scenarioHash: ScenarioResolver.hash(resolved), parts: parts,
      partFingerprints: merger.fingerprints, coupling: partitioning.coupling, partRows: rowWriter,
      spilled: Set(spilledFiles), audit: audit ? audits.result : nil,
      shard: plan.map {
        ($0.shard, $0.parts, $0.partCount, tally, Int(merger.writeCount), Int(merger.activityCount))
      }, causeTotals: merger.causes?.totals)
  }
}

extension ScenarioRunner {
  /// Each expectation checked against the run's summary.
  static func evaluate(_ expectations: [Expectation], _ summary: RunSummary) -> [ExpectationResult] {
    expectations.map { expectation in
      let actual = summary.value(expectation.metric)
      let passed: Bool
      if let actual {
        switch expectation.comparison {
        case .max: passed = actual <= expectation.value + 1e-9
        case .min: passed = actual >= expectation.value - 1e-9
        case .equals: passed = abs(actual - expectation.value) <= 1e-9
        }
      } else {
        passed = false
      }
      return ExpectationResult(expectation: expectation, actual: actual, passed: passed)
    }
  }
}

extension StopReason {
  public var isEventLimit: Bool { if case .reachedEventLimit = self { true } else { false } }
}

/// A value handed to worker threads that only one of them uses at a time (a progress reporter or
/// the row streams, called by the one thread consuming results in part order, or by the one
/// thread of a single part).
final class UncheckedBox<Value>: @unchecked Sendable {
  let value: Value
  init(_ value: Value) { self.value = value }
}
