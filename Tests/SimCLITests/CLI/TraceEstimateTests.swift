import Foundation
import SimTestSupport
import Testing

@testable import SimScenario

/// `trace.csv` (`run --trace`: every processed event) is estimated, in bytes and in the memory
/// that holds the events until the run ends. It was not counted, so a long traced run met no
/// limit.
@Suite struct TraceEstimateTests {
  @Test func traceCsvIsEstimatedFromItsRows() throws {
    let scenario = try decodedScenario(ReportTests.quickstart, file: "quickstart.json") { $0["duration"] = "2d" }
    let traced = ScenarioRunner.asRun(scenario, seed: nil, duration: nil, trace: true)
    let plain = RunEstimate(scenario)
    let estimate = RunEstimate(traced)
    #expect(estimate.traced && !plain.traced)
    #expect(estimate.memoryBytes - plain.memoryBytes == RunEstimate.Cost.bytesPerTracedEvent * estimate.events)
    let report = ScenarioRunner.run(scenario, trace: true)
    let written = Double(
      try #require(report.resultFiles(version: "test", includeTrace: true).first { $0.name == "trace.csv" })
        .renderedText().utf8.count)
    // A row as estimated against a row as written (one per processed event), and the file's
    // estimate against the file (its events are estimated high, as every run's are).
    let perRow = written / Double(report.outcome.processedEvents + 1)
    let estimatedPerRow = RunEstimate.Cost.traceRowBytes(traced.spec, name: traced.name)
    #expect(abs(estimatedPerRow / perRow - 1) < 0.15, "\(estimatedPerRow) estimated, \(perRow) written")
    let estimated = estimate.outputBytes - plain.outputBytes
    #expect(written > 100_000, "\(written)")
    #expect(estimated >= written && estimated < 2 * written, "estimated \(estimated), written \(written)")
  }

  /// Two public authors for 200 days: within every limit untraced; traced, its trace.csv would be
  /// about 2.8 GB, so `run --trace` refuses it before it starts, names --trace and writes nothing.
  @Test func aTracedRunOverTheFileLimitIsRefused() throws {
    try withTemporaryDirectory { directory in
      let file = directory + "/authors.json"
      let text = authorsScenarioText(duration: "200d", editsPerHour: 600)
      try text.write(toFile: file, atomically: true, encoding: .utf8)
      #expect(syncsim("validate", file).code == 0)
      let out = directory + "/out"
      let refused = syncsim("run", file, "--trace", "--out", out)
      #expect(refused.code == 65, "\(refused.err)")
      #expect(refused.err.contains("of files") && refused.err.contains("run without --trace"), "\(refused.err)")
      #expect(!FileManager.default.fileExists(atPath: out))
    }
  }
}
