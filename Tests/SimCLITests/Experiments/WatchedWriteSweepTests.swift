import Foundation
import SimCLI
import SimMetrics
import SimTestSupport
import Testing

/// "When does this edit arrive?" from a sweep (issue 73 item 8): a watched timeline edit's
/// latency is a metric `sweep`, `compare` and `report` carry like any other, and each point's
/// value is what running that point alone gives.
@Suite struct WatchedWriteSweepTests {
  /// The iPad is offline from 5 min until a swept time; the iPhone's edit at 10 min is watched.
  static let scenario = #"""
    {
      "version": 1, "name": "watched", "duration": "2h",
      "devices": [{"name": "iphone"}, {"name": "ipad"}],
      "timeline": [
        {"at": "5m", "devices": "ipad", "action": "goOffline"},
        {"at": "20m", "devices": "ipad", "action": "goOnline"},
        {"at": "10m", "devices": "iphone", "action": {"edit": "insert"}, "watch": "photo"}
      ]
    }
    """#

  /// sweep-summary.csv's mean of `metric` at each point.
  static func means(_ directory: String, _ metric: String) throws -> [Double] {
    let text = try String(contentsOfFile: directory + "/sweep-summary.csv", encoding: .utf8)
    let lines = text.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false) }
    let (metricColumn, meanColumn) = (lines[0].firstIndex(of: "metric")!, lines[0].firstIndex(of: "mean")!)
    return lines.dropFirst().filter { $0[metricColumn] == metric }.compactMap { Double($0[meanColumn]) }
  }

  @Test func theWatchedEditsLatencyFollowsTheSweptOutageAndEachPointAlone() throws {
    try withTemporaryDirectory { directory in
      let file = directory + "/watched.json"
      try Self.scenario.write(toFile: file, atomically: true, encoding: .utf8)
      let sweep = directory + "/sweep"
      let swept = syncsim(
        "sweep", file, "--set", "timeline[1].at=20m,40m", "--seeds", "1..3", "--out", sweep, "--metric",
        "watch.photo.latency")
      #expect(swept.code == 0, "\(swept.err)")
      // The screen table shows the named metric.
      #expect(swept.out.contains("watch.photo.latency"))
      let latency = try Self.means(sweep, "watch.photo.latency")
      #expect(latency.count == 2)
      // The iPad is back at 20 min and 40 min: the edit at 10 min arrives after 10 and 30 min.
      #expect(latency[0] >= 600 && latency[0] < 900, "\(latency)")
      #expect(latency[1] >= 1800 && latency[1] < 2100, "\(latency)")
      #expect(try Self.means(sweep, "watch.photo.editedAt") == [600, 600])
      // Point 1 run alone, seed 1: the same latency as its first replication in sweep.csv.
      let alone = syncsim("run", sweep + "/points/point-0001/scenario.json", "--seed", "1", "--out", directory + "/alone")
      #expect(alone.code == 0, "\(alone.err)")
      let summary = try String(contentsOfFile: directory + "/alone/summary.csv", encoding: .utf8)
        .split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false) }
      let column = try #require(summary[0].firstIndex(of: "watch.photo.latency"))
      // sweep.csv: scenario, point, replication, seed, the factor, metric, value, ...
      let rows = try String(contentsOfFile: sweep + "/sweep.csv", encoding: .utf8).split(separator: "\n")
        .filter { $0.contains(",watch.photo.latency,") }
      let sweptValue = rows.first { $0.hasPrefix("watched,1,0,") }.flatMap { Double($0.split(separator: ",")[6]) }
      #expect(Double(summary[1][column]) == sweptValue)
      // compare: point 1 against point 0 shows the watched latency as worse.
      let compared = syncsim("compare", sweep, "--baseline-point", "0", "--format", "csv")
      let line = compared.out.split(separator: "\n").first { $0.contains("watch.photo.latency") }
      #expect(line?.contains("worse") == true, "\(compared.out)")
      // report: the metric draws as a chart of its own.
      let report = syncsim("report", sweep, "--metric", "watch.photo.latency")
      #expect(report.code == 0, "\(report.err)")
      let page = try String(contentsOfFile: sweep + "/report.html", encoding: .utf8)
      #expect(page.contains("<h2>watch.photo.latency</h2>"))
      // A watch the scenario does not have is refused before anything runs.
      let unknown = syncsim("sweep", file, "--metric", "watch.video.latency", "--out", directory + "/none")
      #expect(unknown.code == 64)
      #expect(unknown.err.contains("the scenario watches no write as watch.video.latency"))
      #expect(!FileManager.default.fileExists(atPath: directory + "/none"))
    }
  }
}
