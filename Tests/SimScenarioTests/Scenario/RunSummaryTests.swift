import SimMetrics
import SimScenario
import Testing

@Suite struct RunSummaryTests {
  /// The summary streams the rows it never keeps; its counts must match the rows a report builds.
  @Test func theSummaryCountsTheSameRowsTheReportBuilds() throws {
    let scenario = try ScenarioDecoder.decode(
      Array(
        #"{"version": 1, "duration": "3h", "devices": [{"name": "a"}, {"name": "b"}, {"name": "c"}], "workloads": [{"devices": "all", "editsPerHour": 20}]}"#
          .utf8),
      file: "s.json"
    ).0
    let report = ScenarioRunner.run(scenario)
    let rows = report.rows
    #expect(rows.count > 300)
    #expect(report.summary.value("rows") == Double(rows.count))
    let visible = rows.filter { $0.outcome == .visible }
    #expect(report.summary.value("rowsVisible") == Double(visible.count))
    let meanUpload = visible.reduce(0.0) { $0 + Double($1.stages.upload.nanoseconds) } / Double(visible.count) / 1e9
    #expect(abs(report.summary.value("stage.upload.mean")! - meanUpload) < 1e-9)
  }
}
