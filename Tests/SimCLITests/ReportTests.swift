import Foundation
import SimMetrics
import SimTestSupport
import Testing

@testable import SimCLI
@testable import SimReport

/// `syncsim report`: the numbers drawn come from the folder's CSV files, the page is
/// self-contained and the same bytes every time, and bad requests are refused.
@Suite struct ReportTests {
  static let quickstart = packageRoot + "/Scenarios/quickstart.json"

  func table(_ path: String) throws -> ReportTable {
    try #require(ReportTable.read((path as NSString).deletingLastPathComponent, (path as NSString).lastPathComponent))
  }

  /// The values of `attribute` on elements whose class is `cls`, in page order.
  func attributes(_ html: String, cls: String, _ attribute: String) -> [String] {
    var values: [String] = []
    for piece in html.components(separatedBy: "class=\"\(cls)\"").dropFirst() {
      guard let tagEnd = piece.firstIndex(of: ">") else { continue }
      let tag = piece[..<tagEnd]
      guard let range = tag.range(of: " \(attribute)=\"") else { continue }
      values.append(String(tag[range.upperBound...].prefix { $0 != "\"" }))
    }
    return values
  }

  @Test func aRunsReportDrawsTheNumbersOfItsCSVFilesSelfContainedAndDeterministic() throws {
    try withTemporaryDirectory { directory in
      #expect(syncsim(["run", Self.quickstart, "--out", directory]).code == 0)
      #expect(syncsim(["report", directory]).code == 0)
      let html = try String(contentsOfFile: directory + "/report.html", encoding: .utf8)
      #expect(syncsim(["report", directory, "--out", directory + "/again.html"]).code == 0)
      #expect(try String(contentsOfFile: directory + "/again.html", encoding: .utf8) == html)
      // Self-contained: no script, nothing fetched.
      for forbidden in ["<script", "src=", "href=", "@import", "url("] { #expect(!html.contains(forbidden), "\(forbidden)") }

      let summary = try table(directory + "/summary.csv")
      let row = summary.rows[0]
      for name in ["p50", "p95", "p99"] {
        let seconds = try #require(summary.number(row, "latency." + name))
        #expect(html.contains("<text id=\"label-\(name)\"") && html.contains(">\(name) \(SVG.duration(seconds))</text>"))
        #expect(html.contains("id=\"marker-\(name)\"") && html.contains("data-seconds=\"\(summary.text(row, "latency." + name))\""))
      }
      // The first stage bar is all observers, from summary.csv's stage means.
      let stages = attributes(html, cls: "stage", "data-stage"), seconds = attributes(html, cls: "stage", "data-seconds")
      let expected = RunPage.stageNames.filter { (summary.number(row, "stage.\($0).mean") ?? 0) > 0 }
      #expect(Array(stages.prefix(expected.count)) == expected)
      for (stage, value) in zip(expected, seconds) {
        #expect(value == SVG.number(summary.number(row, "stage.\(stage).mean")!))
      }
      // One CDF per observer group, as many visible rows as latency.csv has.
      let latency = try table(directory + "/latency.csv")
      let visible = latency.rows.filter { latency.text($0, "outcome") == "visible" }
      #expect(attributes(html, cls: "cdf", "data-group") == ["iphone", "ipad"])
      #expect(html.contains("(\(visible.filter { latency.text($0, "observer") == "iphone" }.count) rows)"))
      // The journey is the slowest write's, a segment per non-zero stage of each observer's row.
      let slowest = try #require(visible.max { (latency.number($0, "latency")!, -Int(latency.text($0, "write"))!) < (latency.number($1, "latency")!, -Int(latency.text($1, "write"))!) })
      #expect(html.contains("<svg id=\"write-journey\" data-write=\"\(latency.text(slowest, "write"))\""))
      let segments = attributes(html, cls: "segment", "data-stage")
      let journeyRows = latency.rows.filter { latency.text($0, "write") == latency.text(slowest, "write") }
      let nonZero = journeyRows.flatMap { row in RunPage.stageNames.filter { (latency.number(row, $0) ?? 0) > 0 } }
      #expect(segments == nonZero)
      // Each timeline lane's samples are timeline.csv's.
      let timeline = try table(directory + "/timeline.csv")
      #expect(attributes(html, cls: "app", "data-state").count == timeline.rows.count)
    }
  }

  @Test func writeChoosesTheJourneyAndBadRequestsAreRefused() throws {
    try withTemporaryDirectory { directory in
      #expect(syncsim(["run", Self.quickstart, "--out", directory]).code == 0)
      #expect(syncsim(["report", directory, "--write", "3"]).code == 0)
      let html = try String(contentsOfFile: directory + "/report.html", encoding: .utf8)
      #expect(html.contains("data-write=\"3\""))
      let missing = syncsim(["report", directory, "--write", "99999"])
      #expect(missing.code == 65 && missing.err.contains("write 99999 has no rows in latency.csv"))
      #expect(syncsim(["report", directory, "--write", "x"]).code == 64)
      #expect(syncsim(["report", directory + "/nosuch"]).code == 65)
      let empty = directory + "/empty"
      try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
      let refused = syncsim(["report", empty])
      #expect(refused.code == 65 && refused.err.contains("no summary.csv"))
      #expect(!FileManager.default.fileExists(atPath: empty + "/report.html"))
    }
  }

  @Test func aSweepsReportPlotsEachMetricAgainstEachFactorWithItsIntervals() throws {
    try withTemporaryDirectory { directory in
      let sweep = ["sweep", Self.quickstart, "--set", "push.dropProbability=0,0.5", "--set", "duration=2h"]
      #expect(syncsim(sweep + ["--seeds", "1..3", "--out", directory]).code == 0)
      #expect(syncsim(["report", directory, "--metric", "latency.p95", "--metric", "converged"]).code == 0)
      let html = try String(contentsOfFile: directory + "/report.html", encoding: .utf8)
      let summary = try table(directory + "/sweep-summary.csv")
      let means = attributes(html, cls: "mean", "data-mean")
      let expected = ["latency.p95", "converged"].flatMap { metric in
        // One panel per factor (two here), each with every point of the metric.
        Array(repeating: summary.rows.filter { summary.text($0, "metric") == metric }.map { summary.text($0, "mean") }, count: 2)
          .flatMap { $0 }
      }
      #expect(means == expected)
      #expect(html.contains("id=\"panel-latency_p95-push_dropProbability\""))
      #expect(syncsim(["report", directory, "--metric", "nosuch"]).code == 65)
    }
  }

  @Test func handEditedFilesWithNonsenseNumbersAreDrawnNotTrapped() throws {
    try withTemporaryDirectory { directory in
      #expect(syncsim(["run", Self.quickstart, "--out", directory]).code == 0)
      for name in ["latency.csv", "activities.csv", "timeline.csv", "summary.csv"] {
        let path = directory + "/" + name
        var lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
        let nonsense = ["nan", "inf", "-inf", "1e308", "-5", "", "x", String(repeating: "9", count: 30)]
        for index in 1..<lines.count {
          var fields = lines[index].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
          for column in 2..<fields.count where (index * 31 + column * 17) % 3 == 0 {
            fields[column] = nonsense[(index + column) % nonsense.count]
          }
          lines[index] = fields.joined(separator: ",")
        }
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
      }
      let result = syncsim(["report", directory])
      #expect(result.code == 0, "\(result.err)")
      #expect(FileManager.default.fileExists(atPath: directory + "/report.html"))
    }
  }
}
