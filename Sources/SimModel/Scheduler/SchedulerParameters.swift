import SimKernel

/// The system scheduler, dasd (spec §5).
public struct SchedulerParameters: Sendable {
  /// From submission to decision, seconds. [A] TN3163 example 0.38 s; research §12 lognormal median 0.3 s.
  public var decisionLatency = Distribution.lognormal(median: 0.3, p99: 0.6)
  /// From a signal (an activity of the group finishing, power or network changing) to the new
  /// decision, seconds. [A] TN3163: the group block cleared 89 ms after the export finished.
  public var reevaluationLatency = SimDuration(seconds: 0.089)
  /// From approval to the start of an export. [A] TN3163: +1.0 s.
  public var exportStartDelay = SimDuration(seconds: 1.0)
  /// From approval to the start of an import. [A] TN3163: +0.095 s.
  public var importStartDelay = SimDuration(seconds: 0.095)
  /// Duration of an export with nothing to export. [A] TN3163: 35 ms.
  public var emptyExportDuration = SimDuration(seconds: 0.035)
  /// At the latest, a waiting activity is re-evaluated after this long. [RE] 900 s (0x384).
  public var policyValidity = SimDuration(seconds: 900.0)
  /// The policies, evaluated in this order; the first refusal names the blocking policy.
  public var policies: [any SchedulerPolicy] = SchedulerParameters.defaultPolicies

  /// spec §5's default set: group, rate limit, low power, network (single-device account off).
  public static var defaultPolicies: [any SchedulerPolicy] {
    PolicyRegistry.standard.defaultPolicies
  }

  public init() {}
}
