import SimKernel
import SimModel
import SimScenario

/// A whole fit: the log split into the part fitted and the part held back, the twin fitted to
/// the first, judged on the second, and written as a scenario.
public struct TwinFitRun: Sendable {
  /// Why a fit cannot be made; `problems` lists each (a base scenario's problems, devices the
  /// base lacks, or a log that identifies nothing).
  public struct Failure: Error, Sendable {
    public var problems: [String]
  }

  /// The base scenario's name (checked by the decoder to name a results folder).
  public var baseName: String
  public var estimate: TwinEstimate
  public var posterior: TwinFit.Posterior
  public var fit: TwinFit
  /// The twin: the base with the whole log replayed and each identified parameter's estimate.
  public var twin: JSONNode
  public var observed: LogSummaries
  public var held: LogSummaries?
  /// Wall-clock times of the log: its start, the split, its end (microseconds since 1970).
  public var start: Int64
  public var split: Int64
  public var end: Int64
  public var notes: [String]
  /// What `fit --assumptions` found: which influential parameters the log identified and which it
  /// left assumed, as lines for the console and the report (empty without it).
  public var assumptions: [String] = []
  /// What the log measured directly (the server's refusals and their retry-after).
  public var measurement: TwinMeasurement

  /// Fits `log` to `base` (a scenario's bytes), holding back the last `holdout` share of its time.
  public static func run(
    log: SyncLog, base bytes: [UInt8], file: String, holdout: Double, options: TwinFit.Options,
    parameters given: [TwinParameter]? = nil, progress: ((Int, Int) -> Void)? = nil
  ) -> Result<TwinFitRun, Failure> {
    let baseScenario: Scenario
    do {
      baseScenario = try ScenarioDecoder.decode(bytes, file: file, checkingSweep: false).0
    } catch {
      return .failure(Failure(problems: error.problems.map(\.description)))
    }
    let twin = TwinScenario(base: baseScenario.document, file: file, deviceNames: baseScenario.deviceNames)
    let missing = twin.missingDevices(log)
    guard missing.isEmpty else {
      return .failure(
        Failure(problems: [
          "\(file): the log's devices \(missing.map { "\"\(ScenarioProblem.printable($0))\"" }.joined(separator: ", ")) "
            + "are not in the base scenario's devices (\(baseScenario.deviceNames.joined(separator: ", "))); name "
            + "each device of the log in \"devices\""
        ]))
    }
    guard let logSpan = log.span, logSpan.end > logSpan.start else {
      return .failure(Failure(problems: ["the log has no time span: it needs events at two times at least"]))
    }
    // Windows hold [start, end): the log's last event is inside its end.
    let span = (start: logSpan.start, end: logSpan.end + 1)
    var notes: [String] = []
    let unlogged = baseScenario.deviceNames.filter { name in !log.devices.contains { $0.name == name } }
    if !unlogged.isEmpty {
      notes.append("the base's devices \(unlogged.joined(separator: ", ")) are not in the log: they run idle in the twin")
    }
    notes += ClockSkew.findings(SyncTrace(log)).map { ClockSkew.remark($0, devices: log.devices) }
    let split = holdout > 0 ? span.start + Int64(Double(span.end - span.start) * (1 - holdout)) : span.end
    // The part fitted, traced once: its summaries, and what it measures.
    let fittedTrace = trace(log, from: span.start, to: split)
    let observed = LogSummaries(fittedTrace)
    guard observed.values.contains(where: { $0 != nil }) else {
      return .failure(
        Failure(problems: [
          "the log identifies nothing: none of its summaries has \(LogSummaries.minimumCount) observations or more "
            + "in the part fitted (saves with their exports, pushes, imports; docs/event-log.md)"
        ]))
    }
    // The structure the log shows: the server's refusals and their measured retry-after.
    let measurement = TwinMeasurement(trace: fittedTrace, findings: log.findings)
    notes += measurement.notes
    var parameters = given ?? TwinParameter.all
    if given == nil, let throttle = measurement.throttle { parameters.append(throttle) }
    var measured: [(String, String)] = []
    if let path = measurement.retryAfterPath, let json = measurement.retryAfterJSON { measured.append((path, json)) }
    func decoded(_ from: Int64, _ to: Int64) -> Result<WorldSpec, Failure> {
      switch twin.document(log, from: from, to: to, values: measured) {
      case .failure(let mismatch): return .failure(Failure(problems: [mismatch.message + " (" + mismatch.hint + ")"]))
      case .success(let node):
        do {
          return .success(try ScenarioDecoder.decode(Array(node.serialized().utf8), file: file, checkingSweep: false).0.spec)
        } catch {
          return .failure(Failure(problems: error.problems.map(\.description)))
        }
      }
    }
    let trainSpec: WorldSpec
    switch decoded(span.start, split) {
    case .success(let spec): trainSpec = spec
    case .failure(let failure): return .failure(failure)
    }
    var fit = TwinFit(
      parameters: parameters, spec: trainSpec, names: baseScenario.deviceNames, epoch: span.start, observed: observed,
      lens: LogLens(log.events), options: options)
    // The checkpoint: where the share of the part fitted's events has been logged (a log whose
    // events bunch at its start, as a bulk import's do, is looked at early in its time).
    if options.earlyShare > 0 && options.earlyShare < 1 {
      let times = log.events.map(\.time).filter { $0 >= span.start && $0 < split }.sorted()
      if let last = times.last {
        let end = min(times[Int(Double(times.count - 1) * options.earlyShare)] + 1, last)
        fit.earlyLook = TwinFit.EarlyLook(end: end, observed: summaries(log, from: span.start, to: end))
      }
    }
    let posterior = fit.run(progress: progress)
    var estimate = TwinEstimate(fit: fit, posterior: posterior)
    estimate.add(
      part: "fit", observed: observed,
      twin: fit.predict(posterior, spec: trainSpec, epoch: span.start, draws: options.predictiveDraws, salt: "fit"))
    estimate.checkFitted()
    var held: LogSummaries?
    if split < span.end {
      let heldSummaries = summaries(log, from: split, to: span.end)
      held = heldSummaries
      switch decoded(span.start, span.end) {
      case .failure(let failure): return .failure(failure)
      case .success(let wholeSpec):
        estimate.add(
          part: "holdout", observed: heldSummaries,
          twin: fit.predict(
            posterior, spec: wholeSpec, epoch: span.start, draws: options.predictiveDraws, salt: "holdout",
            window: (split, span.end)))
      }
    }
    var values: [(String, String)] = measured
    var description = "The twin of a sync log (\(log.linesRead) lines, \(log.devices.count) devices), fitted by "
      + "syncsim fit (ABC-SMC, \(posterior.worlds) worlds). 90 % intervals:"
    for parameter in estimate.parameters {
      let sigma = parameter.parameter.sigma(in: trainSpec)
      if parameter.identified {
        values.append((parameter.parameter.path, parameter.parameter.json(parameter.estimate, sigma: sigma)))
        description += " \(parameter.parameter.path) \(TwinParameter.decimal(parameter.estimate, digits: 3)) "
          + "[\(TwinParameter.decimal(parameter.low, digits: 3)), \(TwinParameter.decimal(parameter.high, digits: 3))];"
      } else {
        description += " \(parameter.parameter.path) not identified (the base's value kept);"
      }
    }
    if let retry = measurement.retryAfter, let path = measurement.retryAfterPath {
      description += " \(path) measured: median \(TwinParameter.decimal(retry.median, digits: 3)) s from \(retry.count) \(retry.from);"
    }
    values.append(("description", JSONNode.quote(description)))
    values.append(("name", JSONNode.quote(baseScenario.name + "-twin")))
    let whole: JSONNode
    switch twin.document(log, from: span.start, to: span.end, values: values) {
    case .success(let node): whole = node
    case .failure(let mismatch): return .failure(Failure(problems: [mismatch.message]))
    }
    return .success(
      TwinFitRun(
        baseName: baseScenario.name, estimate: estimate, posterior: posterior, fit: fit, twin: whole, observed: observed, held: held,
        start: span.start, split: split, end: span.end, notes: notes, measurement: measurement))
  }

  /// The summaries of the log's events in `[from, to)`.
  public static func summaries(_ log: SyncLog, from: Int64, to: Int64) -> LogSummaries {
    LogSummaries(trace(log, from: from, to: to))
  }

  /// The trace of the log's events in `[from, to)`.
  static func trace(_ log: SyncLog, from: Int64, to: Int64) -> SyncTrace {
    let window = log.window(from: from, to: to)
    return SyncTrace(events: window.events, devices: window.devices, span: (from, to))
  }
}
