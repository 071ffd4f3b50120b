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
        note = "its posterior spans \(Int(((highUnit - lowUnit) / 0.9 * 100).rounded())) % of the prior's range"
      }
      parameters.append(
        Parameter(
          parameter: parameter, estimate: parameter.value(atUnit: TwinStatistics.weightedQuantile(units, weights, 0.5)),
          low: parameter.value(atUnit: lowUnit), high: parameter.value(atUnit: highUnit), identified: note.isEmpty,
          note: note))
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
