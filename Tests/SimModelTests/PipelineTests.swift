import SimKernel
import SimModel
import SimScenario
import Testing

@Suite struct PipelineTests {
  @Test func foregroundPrivatePairSeesWritesWithinSecondsAndUnderAMinute() {
    let (recorder, outcome) = TestWorlds.run(TestWorlds.privatePair(editsPerHour: 20, hours: 6))
    let rows = recorder.latencyRows()
    let latencies = rows.compactMap(\.latency)
    print("rows", rows.count, "visible", latencies.count, "p50", latencies.percentile(0.5), "p95", latencies.percentile(0.95), "max", latencies.max()!, "events", outcome.processedEvents, outcome.converged)
    #expect(latencies.count >= 150)
    // MODEL §11.1: median of a few seconds, p95 under a minute.
    #expect(latencies.percentile(0.5) < .seconds(10))
    #expect(latencies.percentile(0.5) > .seconds(1))
    #expect(latencies.percentile(0.95) < .seconds(60))
  }
}
