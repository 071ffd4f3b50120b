import Foundation
import SimKernel
import SimMetrics
import SimModel
import SimScenario
import Testing

/// One write's arrival as metrics of its own (issue 73 item 8): `watch.<name>.*` agree with the
/// watched write's rows in latency.csv, survive partitioning and a shard's tally, and refuse what
/// cannot name one write.
@Suite struct WriteWatchTests {
  /// Two accounts (two parts), three devices; the iPhone edits at 30 min (watched as "photo"),
  /// the iPad's last write is watched as "ipadLast", and "never" watches a device that makes no
  /// write after 3 h.
  static let world = #"""
    {
      "version": 1, "name": "watch", "seed": 5, "duration": "4h", "accounts": 2,
      "devices": [
        {"name": "iphone", "account": 0}, {"name": "ipad", "account": 0},
        {"name": "mac", "account": 0}, {"name": "other", "account": 1}, {"name": "other2", "account": 1}
      ],
      "workloads": [{"devices": ["ipad", "other"], "editsPerHour": 6}],
      "timeline": [
        {"at": "30m", "devices": "iphone", "action": {"edit": "insert"}, "watch": "photo"}
      ],
      "watch": {"ipadLast": {"device": "ipad", "last": true}, "never": {"device": "iphone", "at": "3h"}},
      "expect": [{"metric": "watch.photo.latency", "max": "2h"}]
    }
    """#

  static func decode(_ text: String) throws -> Scenario {
    try ScenarioDecoder.decode(Array(text.utf8), file: "w.json").0
  }

  /// latency.csv's rows as column → value maps.
  static func latencyRows(_ report: RunReport) -> [[String: String]] {
    let text = report.files(version: "test", includeTrace: false).first { $0.name == "latency.csv" }!.text
    let lines = text.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
    return lines.dropFirst().map { Dictionary(uniqueKeysWithValues: zip(lines[0], $0)) }
  }

  @Test func theWatchedEditsMetricsAreItsRowsInLatencyCSV() throws {
    let scenario = try Self.decode(Self.world)
    #expect(scenario.watches.map(\.name) == ["ipadLast", "never", "photo"])
    let report = ScenarioRunner.run(scenario)
    let rows = Self.latencyRows(report)
    // The photo: the iPhone's only write, at 1,800 s; its rows are the iPad's and the Mac's.
    let photo = rows.filter { $0["writer"] == "iphone" }
    #expect(photo.count == 2)
    #expect(photo.allSatisfy { Double($0["editedAt"]!) == 1800 })
    let latencies = photo.compactMap { Double($0["latency"]!) }
    #expect(latencies.count == 2)
    let summary = report.summary
    #expect(summary.value("watch.photo.editedAt") == 1800)
    #expect(summary.value("watch.photo.visibleOn") == 2)
    #expect(abs(summary.value("watch.photo.latency")! - latencies.max()!) < 1e-9)
    #expect(abs(summary.value("watch.photo.firstVisible")! - latencies.min()!) < 1e-9)
    #expect(summary.value("watch.photo.latency")! > summary.value("watch.photo.firstVisible")!)
    // The iPad's last write: the latest editedAt among its rows.
    let ipad = rows.filter { $0["writer"] == "ipad" }
    let lastEdit = ipad.map { Double($0["editedAt"]!)! }.max()!
    #expect(summary.value("watch.ipadLast.editedAt") == lastEdit)
    let lastRows = ipad.filter { Double($0["editedAt"]!) == lastEdit }
    #expect(summary.value("watch.ipadLast.visibleOn") == Double(lastRows.filter { $0["outcome"] == "visible" }.count))
    // No such write: every metric of the watch is empty.
    for field in RunSummary.watchFields { #expect(summary.value("watch.never.\(field)") == nil) }
    #expect(report.expectations.count == 1 && report.expectations[0].passed)
    // The columns come after the catalog's, in name order, before the expectations' counts.
    let header = report.files(version: "test", includeTrace: false).first { $0.name == "summary.csv" }!.text
      .split(separator: "\n")[0]
    #expect(header.contains(",events,watch.ipadLast.latency,"))
    #expect(header.hasSuffix("watch.photo.visibleOn,watch.photo.editedAt,expectationsMet,expectationsFailed"))
  }

  @Test func partsOneKernelAndAShardsTallyAgree() throws {
    let scenario = try Self.decode(Self.world)
    let parts = ScenarioRunner.run(scenario, jobs: 2).summary
    let whole = ScenarioRunner.run(scenario, partitioned: false).summary
    for name in ["photo", "ipadLast", "never"] {
      for field in RunSummary.watchFields {
        #expect(parts.value("watch.\(name).\(field)") == whole.value("watch.\(name).\(field)"), "\(name).\(field)")
      }
    }
    // A shard's tally keeps the arrivals: its text reads back to the same summary.
    let report = ScenarioRunner.run(scenario, shard: RunShard(index: 1, count: 2))
    let tally = try #require(report.shard?.tally)
    let back = try #require(SummaryTally(text: TallyText(tally.text)))
    #expect(RunSummary(tally: back).values == RunSummary(tally: tally).values)
    #expect(RunSummary(tally: back).value("watch.photo.latency") == parts.value("watch.photo.latency"))
  }

  /// Rows of sweep.csv, its shards and compare sort by this: the catalog's order, then watched
  /// writes by name and field, then a policy outside the registry as the catalog orders a
  /// policy's three, then the rest by name.
  @Test func metricsSortInCatalogOrderThenWatchesThenOtherPolicies() {
    let names = [
      "latency.p50", "latency.p95", "converged", "events", "watch.a.latency", "watch.a.firstVisible",
      "watch.a.visibleOn", "watch.a.editedAt", "watch.b.latency", "blocked.mine.count", "blocked.mine.total",
      "blocked.mine.longest", "blocked.other.count", "zzz",
    ]
    #expect(names.reversed().sorted { RunSummary.sortKey($0) < RunSummary.sortKey($1) } == names)
  }

  @Test func whatCannotNameOneWriteIsRefusedWithItsPath() {
    func problems(_ text: String) -> [String] {
      do {
        _ = try Self.decode(text)
        return []
      } catch let error as ScenarioProblems {
        return error.problems.filter { $0.severity == .error }.map { "\($0.path): \($0.message)" }
      } catch { return ["\(error)"] }
    }
    let base = #"{"version": 1, "devices": [{"name": "a"}, {"name": "b", "count": 2}], "#
    let twoDevices = problems(base + #""timeline": [{"at": "1m", "devices": "b", "action": {"edit": "insert"}, "watch": "x"}]}"#)
    #expect(twoDevices.contains { $0.hasPrefix("timeline[0].watch: a watched edit must name one device") })
    let notAnEdit = problems(base + #""timeline": [{"at": "1m", "devices": "a", "action": "goOffline", "watch": "x"}]}"#)
    #expect(notAnEdit.contains { $0.hasPrefix("timeline[0].watch: only an edit") })
    let badName = problems(base + #""watch": {"a b": {"device": "a", "last": true}}}"#)
    #expect(badName.contains { $0.hasPrefix("watch.a b: \"a b\" cannot name") })
    let both = problems(base + #""watch": {"x": {"device": "a", "last": true, "at": "1m"}}}"#)
    #expect(both.contains { $0.contains("not both") })
    let group = problems(base + #""watch": {"x": {"device": "b", "last": true}}}"#)
    #expect(group.contains { $0.hasPrefix("watch.x.device: \"b\" is not one device") })
    let twice = problems(
      base + #""timeline": [{"at": "1m", "devices": "a", "action": {"edit": "insert"}, "watch": "x"}], "#
        + #""watch": {"x": {"device": "a", "last": true}}}"#)
    #expect(twice.contains { $0.contains("named twice") })
    let unknown = problems(base + #""expect": [{"metric": "watch.y.latency", "max": "1m"}]}"#)
    #expect(unknown.contains { $0.hasPrefix("expect[0].metric: unknown metric") })
  }
}
