import Foundation
import SimMetrics
import SimScenario
import SimTestSupport
import Testing

/// Issue 58, item 3 (in part): a sweep answers on screen: a line per point with its factors'
/// values, runs and the chosen metrics (mean and 95 % interval, durations as `run` prints them),
/// censored metrics showing n/runs; `--metric` chooses, with a did-you-mean for a wrong name.
@Suite struct SweepScreenTests {
  @Test func aSweepPrintsItsPointsWithIntervals() throws {
    try withTemporaryDirectory { directory in
      let result = syncsim([
        "sweep", packageRoot + "/Scenarios/push-drop-sweep.json", "--set", "duration=2h", "--out", directory + "/s",
      ])
      #expect(result.code == 0)
      let lines = result.out.split(separator: "\n").map(String.init)
      let header = try #require(lines.first { $0.hasPrefix("point ") }, "\(result.out)")
      #expect(header.contains("push.dropProbability") && header.contains("latency.p50") && header.contains("converged"))
      // Point 0's p50 as sweep-summary.csv has it, displayed as `run` displays durations.
      let summary = try #require(
        CSVTable.parse(try String(contentsOfFile: directory + "/s/sweep-summary.csv", encoding: .utf8)))
      let metric = try #require(summary.columns.firstIndex(of: "metric"))
      let mean = try #require(summary.columns.firstIndex(of: "mean"))
      let row = try #require(summary.rows.first { $0[1] == "0" && $0[metric] == "latency.p50" })
      let shown = DurationText.display(seconds: try #require(Double(row[mean])))
      let pointLines = lines.filter { $0.first?.isNumber == true }
      #expect(pointLines.count == 4, "\(result.out)")
      #expect(pointLines[0].contains(shown + " ["), "\(pointLines[0]) lacks \(shown)")
    }
  }

  @Test func chosenMetricsAndCensoredOnes() throws {
    withTemporaryDirectory { directory in
      // A suspended iPad: no run converges, so convergenceTime has no value in any of them.
      let result = syncsim([
        "sweep", packageRoot + "/Scenarios/quickstart.json", "--set", "devices[1].appState=\"suspended\"",
        "--set", "duration=2h", "--seeds", "1..4", "--metric", "convergenceTime", "--metric", "writes",
        "--out", directory + "/s",
      ])
      #expect(result.code == 0)
      #expect(result.out.contains("convergenceTime") && result.out.contains("no value n=0/4"), "\(result.out)")
      #expect(!result.out.contains("latency.p95"), "only the chosen metrics")
      let wrong = syncsim(["sweep", "x.json", "--metric", "latncy.p50"])
      #expect(wrong.code == 64 && wrong.err.contains("did you mean latency.p50?"), "\(wrong.err)")
    }
  }
}
