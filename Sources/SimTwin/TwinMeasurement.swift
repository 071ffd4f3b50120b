import SimKernel

/// What a log measures directly, used as data rather than searched for: the server's refusals
/// (which requests failed, with which error, how often) and the retry-after they carried. A
/// retry-after the log prints (a finding's `Retry after 20.5 seconds`), or else the wait from a
/// refused export to the next, sets the twin's retry-after with its spread; the refusals say
/// which throttle the fit searches (a device's for CKError 7, the container's for CKError 6).
/// A failure the model has no parameter for is named in a note.
public struct TwinMeasurement: Sendable {
  /// Each error of the failed work in the window, with how often it came (`CKErrorDomain 7`).
  public var refusals: [(error: String, count: Int)] = []
  /// The retry-after measured: its median and lognormal spread, how many values, and from what.
  public var retryAfter: (median: Double, sigma: Double, count: Int, from: String)?
  /// The scenario key the measured retry-after sets, and the throttle the fit searches.
  public var retryAfterPath: String?
  public var throttle: TwinParameter?
  public var notes: [String] = []

  /// Fewer refusals than this and no throttle is fitted.
  public static let minimumRefusals = 3

  /// What `trace` (a window of a log) measures, with the log's `findings` inside its span.
  public init(trace: SyncTrace, findings: [SyncFinding]) {
    let (start, end) = (trace.start, trace.end)
    var counts: [String: Int] = [:]  // lookup only
    var order: [String] = []
    for activity in trace.activities where activity.finishedAt != nil && !activity.succeeded {
      let error = activity.error ?? "no error printed"
      if counts[error] == nil { order.append(error) }
      counts[error, default: 0] += 1
    }
    refusals = order.map { ($0, counts[$0]!) }
    let rateLimited = counts["CKErrorDomain 7", default: 0]
    let unavailable = counts["CKErrorDomain 6", default: 0]
    let throttled = max(rateLimited, unavailable)
    if throttled >= Self.minimumRefusals {
      let device = rateLimited >= unavailable
      throttle = device ? TwinParameter.deviceThrottle : TwinParameter.containerThrottle
      retryAfterPath = device ? "cloud.deviceThrottleRetryAfter" : "cloud.throttle.retryAfter"
      let code = device ? 7 : 6
      // The retry-after the log prints, else the wait from a refusal to the next export.
      let printed = findings.compactMap { finding -> Double? in
        guard let time = finding.time, time >= start, time < end, finding.code == code else { return nil }
        return finding.retryAfterSeconds
      }
      var waits: [Double] = []
      let acts = trace.activities
      for (index, activity) in acts.enumerated()
      where activity.work == .export && !activity.succeeded && activity.error == "CKErrorDomain \(code)" {
        guard let finished = activity.finishedAt,
          let next = acts[(index + 1)...].first(where: { $0.device == activity.device && $0.work == .export && $0.startedAt >= finished })
        else { continue }
        waits.append(Double(next.startedAt - finished) / 1e6)
      }
      let values = (printed.count >= Self.minimumRefusals ? printed : waits).filter { $0 > 0 }.sorted()
      if values.count >= Self.minimumRefusals {
        let median = TwinStatistics.quantile(values, 0.5)
        let p90 = TwinStatistics.quantile(values, 0.9)
        let sigma = p90 > median ? max(0.05, min(2, (p90 / median).logarithm / 1.2816)) : 0.05
        retryAfter = (median, sigma, values.count, printed.count >= Self.minimumRefusals ? "retry-afters the log prints" : "waits from a refusal to the next export")
      }
    }
    for (error, count) in refusals where error != "CKErrorDomain 7" && error != "CKErrorDomain 6" {
      notes.append(
        "the log shows \(count) failed requests with \(error): the twin has no parameter fitted for them (they are not in the twin)")
    }
    if throttled > 0 && throttled < Self.minimumRefusals {
      notes.append("the log shows \(throttled) refusals by the server's throttle: too few to fit it (\(Self.minimumRefusals) or more)")
    }
  }

  /// The measured retry-after as the scenario writes it.
  public var retryAfterJSON: String? {
    guard let retryAfter else { return nil }
    let p99 = retryAfter.median * (2.3263 * retryAfter.sigma).exponential
    return "{\"lognormal\": {\"median\": \"\(TwinParameter.decimal(retryAfter.median, digits: 6))s\", "
      + "\"p99\": \"\(TwinParameter.decimal(p99, digits: 6))s\"}}"
  }
}

extension Double {
  var logarithm: Double { DeterministicMath.log(self) }
  var exponential: Double { DeterministicMath.exp(self) }
}
