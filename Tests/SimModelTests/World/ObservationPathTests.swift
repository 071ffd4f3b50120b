import SimKernel
import SimMetrics
import SimModel
import Testing

/// The model hands its commonest observations to a sink as calls (`ObservationSink`'s
/// requirements); a sink that implements `observe(_:)` alone receives them as values, and a
/// recorder fed either way records the same.
@Suite struct ObservationPathTests {
  @Test func aSinkOfObserveAloneReceivesEveryObservationAsAValue() {
    let spec = TestWorlds.privatePair(count: 2, editsPerHour: 30, hours: 2, seed: 3)
    let direct = MetricsRecorder(policyNames: spec.scheduler.policies.map(\.name))
    let directOutcome = WorldRunner.run(spec, sink: direct)
    // `runLogged` feeds its recorder through a sink that implements `observe(_:)` only.
    let (log, throughValues, outcome) = runLogged(spec)
    var counts = (requested: 0, finished: 0, edited: 0, committed: 0, visible: 0, push: 0)
    for observation in log.observations {
      switch observation {
      case .activityRequested: counts.requested += 1
      case .activityFinished: counts.finished += 1
      case .edited: counts.edited += 1
      case .committed: counts.committed += 1
      case .visible: counts.visible += 1
      case .push: counts.push += 1
      default: break
      }
    }
    #expect(counts.requested == direct.activities.count && counts.requested > 20)
    #expect(counts.edited == direct.writeCount && counts.edited > 20)
    #expect(counts.finished > 0 && counts.committed > 0 && counts.visible > 0 && counts.push > 0)
    #expect(throughValues.activities.count == direct.activities.count)
    #expect(throughValues.writeCount == direct.writeCount)
    #expect(throughValues.counters.pushes == direct.counters.pushes)
    #expect(
      throughValues.digest.combined(with: outcome.fingerprint).value
        == direct.digest.combined(with: directOutcome.fingerprint).value)
  }
}
