import SimScenario

/// What a fit says of each parameter and each summary: estimates with intervals, whether the
/// log identified the parameter, and on the held-back part whether the twin predicted it.
public struct TwinEstimate: Sendable {
  public struct Parameter: Sendable {
    public var parameter: TwinParameter
    public var estimate: Double
    public var low: Double
    public var high: Double
    public var identified: Bool
    /// Why it is not identified (empty when it is).
    public var note: String
  }

  /// A summary, observed and as the twin's worlds give it (5 %, 50 %, 95 % of them).
  public struct Summary: Sendable {
    public var name: String
    public var part: String
    public var observed: Double?
    public var count: Int
    public var twinLow: Double?
    public var twinMedian: Double?
    public var twinHigh: Double?
    /// The twin's values, for the report's overlay.
    public var twinValues: [Double]
    /// Whether the observed value lies in the twin's 90 % predictive interval.
    public var covered: Bool? {
      guard let observed, let twinLow, let twinHigh else { return nil }
      return observed >= twinLow && observed <= twinHigh
    }
    /// The twin's median's error: relative for times, absolute for shares.
    public var medianError: Double? {
      guard let observed, let twinMedian else { return nil }
      let share = LogSummaries.definitions[LogSummaries.index(name)].isShare
      return share ? twinMedian - observed : observed > 0 ? (twinMedian - observed) / observed : nil
    }
  }

  public var parameters: [Parameter] = []
  public var summaries: [Summary] = []
  /// Parameters the log sees only as a sum (a Core Data log without dasd lines sees save →
  /// export start, the decision's latency plus the start's delay): the sum, its interval, and
  /// whether it is identified; its parts are reported as not.
  public var sums: [Sum] = []
  /// Summaries of the fitted part the twin cannot reproduce, each with the structure most likely
  /// responsible: the parameters those summaries inform bent to fit them, and are not identified.
  public var misfits: [Misfit] = []

  public struct Sum: Sendable {
    public var paths: [String]
    public var estimate: Double
    public var low: Double
    public var high: Double
    public var identified: Bool
    public var note: String
    public var name: String { paths.joined(separator: " + ") }
  }

  public struct Misfit: Sendable {
    public var summary: String
    public var observed: Double
    public var twinLow: Double
    public var twinHigh: Double
    public var sentence: String
  }

  /// A posterior whose 90 % interval covers more than this share of the prior's (on the
  /// prior's scale) is reported as not identified: the log did not move it.
  public static let identifiedWidth = 0.75

  public init(fit: TwinFit, posterior: TwinFit.Posterior) {
    let weights = posterior.particles.map(\.weight)
    for (index, parameter) in fit.parameters.enumerated() {
      let units = posterior.particles.map { $0.units[index] }
      var lowUnit = TwinStatistics.weightedQuantile(units, weights, 0.05)
      var highUnit = TwinStatistics.weightedQuantile(units, weights, 0.95)
      // A posterior piled against a bound of its prior (no push dropped) has its central
      // interval stop short of the bound: one that comes within a quarter of its width of it
      // reaches it.
      if lowUnit < (highUnit - lowUnit) / 4 { lowUnit = 0 }
      if 1 - highUnit < (highUnit - lowUnit) / 4 { highUnit = 1 }
      let informing = parameter.informedBy.filter { fit.observed.value($0) != nil }
      var note = ""
      if informing.isEmpty {
        note = "the log has none of " + parameter.informedBy.joined(separator: ", ")
      } else if highUnit - lowUnit > Self.identifiedWidth * 0.9 {
        note = "its 90 % interval spans \(Int(((highUnit - lowUnit) * 100).rounded())) % of the prior's range"
      }
      parameters.append(
        Parameter(
          parameter: parameter, estimate: parameter.value(atUnit: TwinStatistics.weightedQuantile(units, weights, 0.5)),
          low: parameter.value(atUnit: lowUnit), high: parameter.value(atUnit: highUnit), identified: note.isEmpty,
          note: note))
    }
    addSums(fit: fit, posterior: posterior)
  }

  /// The pairs a log may see only as their sum, and the summary whose absence says so.
  static let sumPairs: [(paths: [String], unless: String, why: String)] = [
    (["scheduler.decisionLatency", "scheduler.exportStartDelay"], "decision.p50",
     "the log has no dasd lines: it sees save → export start, the decision's latency and the start's delay together"),
    (["push.fanoutLatency", "push.deliveryLatency"], "pushHandling.p50",
     "the log has no apsd lines: it sees commit → the app's push handler, the server's fan-out and the device's delivery together"),
  ]

  mutating func addSums(fit: TwinFit, posterior: TwinFit.Posterior) {
    let weights = posterior.particles.map(\.weight)
    for pair in Self.sumPairs where fit.observed.value(pair.unless) == nil {
      let indices = pair.paths.compactMap { path in fit.parameters.firstIndex { $0.path == path } }
      guard indices.count == pair.paths.count else { continue }
      let values = posterior.particles.map { particle in
        indices.reduce(0.0) { $0 + fit.parameters[$1].value(atUnit: particle.units[$1]) }
      }
      let low = TwinStatistics.weightedQuantile(values, weights, 0.05)
      let high = TwinStatistics.weightedQuantile(values, weights, 0.95)
      let priorLow = indices.reduce(0.0) { $0 + fit.parameters[$1].low }
      let priorHigh = indices.reduce(0.0) { $0 + fit.parameters[$1].high }
      let width = (max(high, 1e-9) / max(low, 1e-9)).logarithm / (priorHigh / priorLow).logarithm
      let identified = width <= Self.identifiedWidth * 0.9
      sums.append(
        Sum(
          paths: pair.paths, estimate: TwinStatistics.weightedQuantile(values, weights, 0.5), low: low, high: high,
          identified: identified,
          note: identified ? "" : "its 90 % interval spans \(Int((min(1, width) * 100).rounded())) % of the prior's range"))
      for index in parameters.indices where pair.paths.contains(parameters[index].parameter.path) {
        parameters[index].identified = false
        parameters[index].note = "only the sum \(pair.paths.joined(separator: " + ")) is seen: " + pair.why
      }
    }
  }

  /// What each summary's misfit most likely says of the twin's structure.
  static let structures: [String: String] = [
    "pushShare": "free the push budget (push.backgroundBudgetPerHour), or the log was taken with the debugger attached (debuggerAttached: true on the device): the twin holds pushes the app got",
    "pushShare.background": "free the push budget (push.backgroundBudgetPerHour), or the log was taken with the debugger attached (debuggerAttached: true on the device): the twin holds pushes to the app in the background that the app got",
    "pushDelay.p50": "pushes reach the other device sooner or later than the twin's fan-out and budget allow (push.fanoutLatency, push.backgroundBudgetPerHour)",
    "exportWait.p50": "exports start later or sooner than the twin's scheduler makes them: Low Power Mode, the network or app states the log did not record, or the server's throttle",
    "exportWait.p90": "the slowest exports wait longer than the twin's: a throttle (the server's or dasd's rate limit) the twin lacks, or app states the log did not record",
    "decision.p50": "dasd decides later or sooner than the twin's scheduler (scheduler.decisionLatency)",
    "exportDuration.p50": "exports take longer or shorter than the twin's requests: the network (network.latency) or the records' sizes",
    "importDuration.p50": "imports take longer or shorter than the twin's requests: the network or the records' sizes",
    "importPerRecord.p50": "records apply slower or faster than the twin's cloud.applyTimePerRecord",
    "pushHandling.p50": "apsd hands pushes to the app later or sooner: the app's state when pushes came",
    "pushToImport.p50": "imports start later or sooner after a push than the twin's: the import's start delay, or an app not running",
    "retryWait.p50": "the waits after a refused export differ from the twin's retry-after: the server's throttle",
    "exportFailedShare": "the server refuses a different share of exports than the twin's throttle: which requests fail, and why, differs (a throttle, a fault the twin lacks)",
    "latency.p50": "rows arrive sooner or later than the twin's pipeline carries them: see the stages' summaries",
    "latency.p90": "the slowest rows arrive later or sooner than the twin's: a budget, a throttle or app states the log did not record",
    "visibleShare": "rows never become visible in a share the twin does not give: a store stopped or an account unavailable (the log's findings), which the twin does not have",
  ]

  /// Marks the fitted part's summaries the twin cannot reproduce, and un-identifies the
  /// parameters they inform: a parameter that bent to fit what the model cannot produce is a
  /// misfit, not an estimate. A summary is a misfit when the log's value lies outside the
  /// twin's 90 % band widened by a quarter of its width (the band rests on 100 worlds).
  public mutating func checkFitted() {
    for summary in summaries where summary.part == "fit" {
      guard let observed = summary.observed, let low = summary.twinLow, let high = summary.twinHigh else { continue }
      let share = LogSummaries.definitions[LogSummaries.index(summary.name)].isShare
      let t = { (value: Double) in share ? value : (value + 1e-3).logarithm }
      let margin = (t(high) - t(low)) / 4 + (share ? 0.02 : 0.05)
      guard t(observed) < t(low) - margin || t(observed) > t(high) + margin else { continue }
      let definition = LogSummaries.definitions[LogSummaries.index(summary.name)]
      let shown = { (value: Double) in share ? "\(Int((value * 100).rounded())) %" : DurationText.display(seconds: value) }
      let sentence = "\(definition.meaning): the log \(shown(observed)), the twin's worlds \(shown(low))–\(shown(high)). "
        + (Self.structures[summary.name] ?? "a behaviour the twin does not have")
      misfits.append(Misfit(summary: summary.name, observed: observed, twinLow: low, twinHigh: high, sentence: sentence))
    }
    let missed = Set(misfits.map(\.summary))  // membership only
    for index in parameters.indices {
      let bent = parameters[index].parameter.informedBy.filter { missed.contains($0) }
      guard !bent.isEmpty, parameters[index].identified else { continue }
      parameters[index].identified = false
      parameters[index].note = "bent to fit \(bent.joined(separator: ", ")), which the twin cannot reproduce (a misfit)"
    }
  }

  /// Adds each summary of `part`: observed, and across `twin` (the worlds' summaries).
  public mutating func add(part: String, observed: LogSummaries, twin: [[Double?]]) {
    for (index, definition) in LogSummaries.definitions.enumerated() {
      let values = twin.compactMap { $0[index] }.sorted()
      summaries.append(
        Summary(
          name: definition.name, part: part, observed: observed.values[index], count: observed.counts[index],
          twinLow: values.isEmpty ? nil : TwinStatistics.quantile(values, 0.05),
          twinMedian: values.isEmpty ? nil : TwinStatistics.quantile(values, 0.5),
          twinHigh: values.isEmpty ? nil : TwinStatistics.quantile(values, 0.95), twinValues: values))
    }
  }

  /// The held-back summaries with an observed value and a prediction, and how many were covered.
  public func coverage(part: String) -> (covered: Int, total: Int) {
    let judged = summaries.filter { $0.part == part && $0.covered != nil }
    return (judged.filter { $0.covered == true }.count, judged.count)
  }
}
