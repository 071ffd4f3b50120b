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
  public var outcome: RunOutcome
  public var summary: RunSummary
  /// Every (write, other device) row, computed on each access (the report keeps none: a large
  /// run has millions).
  public var rows: [LatencyRow] { recorder.latencyRows() }
  public var expectations: [ExpectationResult]
  /// The scenario with every default filled in (`resolved.json`).
  public var resolved: JSONNode
  /// The hash of the resolved scenario's canonical form (provenance; `ScenarioResolver`).
  public var scenarioHash: String
  public let recorder: MetricsRecorder

  /// The run's fingerprint: the trajectory of processed events and every observation the model
  /// emitted (so a change in any counter or result row changes it), as 16 hex digits.
  public var fingerprint: String { recorder.digest.combined(with: outcome.fingerprint).hex }

  public var allExpectationsMet: Bool { expectations.allSatisfy(\.passed) }
}

/// Runs scenarios: the one entry point the commands and tests use.
public enum ScenarioRunner {
  /// Runs `scenario`, optionally overriding its seed, duration or tracing.
  public static func run(
    _ scenario: Scenario, seed: UInt64? = nil, duration: SimDuration? = nil, trace: Bool = false,
    progress: ((SimTime, SimTime) -> Void)? = nil
  ) -> RunReport {
    var scenario = scenario
    if let seed { scenario.spec.seed = seed }
    if let duration { scenario.spec.duration = duration }
    scenario.spec.traceEvents = trace
    let recorder = MetricsRecorder(policyNames: scenario.spec.scheduler.policies.map(\.name))
    recorder.pushDeliveryLatency = SimDuration(seconds: scenario.spec.push.deliveryLatencySeconds)
    recorder.keepsPushLog = scenario.outputs.contains("latency")
    let outcome = WorldRunner.run(scenario.spec, sink: recorder, progress: progress)
    let summary = RunSummary(recorder: recorder, events: outcome.processedEvents)
    let results = scenario.expectations.map { expectation in
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
    let resolved = ScenarioResolver.resolve(scenario, duration: duration)
    return RunReport(
      scenario: scenario, seed: scenario.spec.seed, outcome: outcome, summary: summary,
      expectations: results, resolved: resolved, scenarioHash: ScenarioResolver.hash(resolved), recorder: recorder)
  }
}
