import Foundation
import SimTestSupport
import Testing

@testable import SimScenario

/// `objects.csv` (every store's every object at the end) is estimated: a public store's objects
/// times its stores. It was not counted at all (2 kB estimated, 35 MB written for 22 stores of a
/// 30-day public store), so the file limit could not stop it.
@Suite struct ObjectsFileEstimateTests {
  @Test func objectsCsvIsEstimatedWithinAFifth() throws {
    let devices =
      (0..<2).map { "{\"name\": \"author\($0)\", \"stores\": [\"public\"]}" }
      + (0..<5).map { "{\"name\": \"reader\($0)\", \"stores\": [\"public\"]}" }
    let text = """
      {"version": 1, "name": "objects", "seed": 3, "duration": "3d", "environment": "development",
       "polling": {"clock": "wallClock"}, "devices": [\(devices.joined(separator: ", "))],
       "workloads": [{"devices": ["author0", "author1"], "editsPerHour": 60, "insertShare": 0.4, "deleteShare": 0.1}],
       "outputs": ["summary", "objects"]}
      """
    let scenario = try ScenarioDecoder.decode(Array(text.utf8), file: "objects.json").0
    let withoutObjects = try ScenarioDecoder.decode(
      Array(text.replacingOccurrences(of: ", \"objects\"]", with: "]").utf8), file: "objects.json"
    ).0
    let estimated = RunEstimate(scenario).outputBytes - RunEstimate(withoutObjects).outputBytes
    let report = ScenarioRunner.run(scenario)
    let written = Double(
      try #require(report.resultFiles(version: "test", includeTrace: false).first { $0.name == "objects.csv" })
        .renderedText().utf8.count)
    #expect(written > 100_000, "\(written)")
    #expect(abs(estimated / written - 1) < 0.2, "estimated \(estimated), written \(written)")
  }
}
