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
    // The class attribute lists `cls` among its classes (a censored mean is "mean censored").
    for piece in html.components(separatedBy: "class=\"").dropFirst() {
      let classes = piece.prefix { $0 != "\"" }.split(separator: " ")
      guard classes.contains(Substring(cls)), let tagEnd = piece.firstIndex(of: ">") else { continue }
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
      // The same page, its charts' files named after it.
      let again = try String(contentsOfFile: directory + "/again.html", encoding: .utf8)
      #expect(again.replacingOccurrences(of: "<code>again-", with: "<code>report-") == html)
      // Self-contained: no script, nothing fetched.
      for forbidden in ["<script", "src=", "href=", "@import", "url("] {
        #expect(!html.contains(forbidden), "\(forbidden)")
      }

      let summary = try table(directory + "/summary.csv")
      let row = summary.rows[0]
      for name in ["p50", "p95", "p99"] {
        let seconds = try #require(summary.number(row, "latency." + name))
        #expect(
          html.contains("<text id=\"label-\(name)\"") && html.contains(">\(name) \(SVG.duration(seconds))</text>"))
        #expect(
          html.contains("id=\"marker-\(name)\"")
            && html.contains("data-seconds=\"\(summary.text(row, "latency." + name))\""))
      }
      // The first stage bar is all observers, from summary.csv's stage means.
      let stages = attributes(html, cls: "stage", "data-stage"),
        seconds = attributes(html, cls: "stage", "data-seconds")
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
      let slowest = try #require(
        visible.max {
          (latency.number($0, "latency")!, -Int(latency.text($0, "write"))!) < (
            latency.number($1, "latency")!, -Int(latency.text($1, "write"))!
          )
        })
      #expect(html.contains("<svg id=\"write-journey\" data-write=\"\(latency.text(slowest, "write"))\""))
      let segments = attributes(html, cls: "segment", "data-stage")
      let journeyRows = latency.rows.filter { latency.text($0, "write") == latency.text(slowest, "write") }
      let nonZero = journeyRows.flatMap { row in RunPage.stageNames.filter { (latency.number(row, $0) ?? 0) > 0 } }
      #expect(segments == nonZero)
      // Each timeline lane's spans are states.csv's changes.
      let states = try table(directory + "/states.csv")
      #expect(attributes(html, cls: "app", "data-state").count == states.rows.count)
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

  /// One chart per metric against the numeric factor, placed by value (not as categories), the
  /// other factor as colour, each chart also a standalone SVG file.
  @Test func aSweepsReportDrawsEachMetricOnANumericAxisWithTheOtherFactorsAsColour() throws {
    try withTemporaryDirectory { directory in
      let sweep = ["sweep", Self.quickstart, "--set", "push.dropProbability=0,0.1,0.5", "--set", "duration=1h,2h"]
      #expect(syncsim(sweep + ["--seeds", "1..3", "--out", directory]).code == 0)
      let result = syncsim(["report", directory, "--metric", "latency.p95", "--metric", "converged"])
      #expect(result.code == 0)
      // The two metrics' charts, then the per-point stage bars and latency distribution.
      #expect(result.out.contains("and 4 chart .svg files beside it"))
      let html = try String(contentsOfFile: directory + "/report.html", encoding: .utf8)
      let summary = try table(directory + "/sweep-summary.csv")
      // Every point of each metric once (one chart per metric, not one per factor).
      let means = attributes(html, cls: "mean", "data-mean")
      let expected = ["latency.p95", "converged"].flatMap { metric in
        summary.rows.filter { summary.text($0, "metric") == metric && !summary.text($0, "mean").isEmpty }
          .map { summary.text($0, "mean") }
      }
      #expect(means.sorted() == expected.sorted())
      #expect(html.contains("<svg id=\"chart-latency_p95\" data-x-axis=\"linear\" data-y-unit=\""))
      #expect(html.contains("<svg id=\"chart-converged\" data-x-axis=\"linear\" data-y-unit=\"\""))
      // Placed by value: 0.1 sits a fifth of the way from 0 to 0.5.
      let xs = attributes(html, cls: "mean", "data-x"),
        cxs = attributes(html, cls: "mean", "cx").compactMap(Double.init)
      let at = { (label: String) in cxs[try #require(xs.firstIndex(of: label))] }
      let (x0, x1, x5) = (try at("0"), try at("0.1"), try at("0.5"))
      #expect(abs((x1 - x0) / (x5 - x0) - 0.2) < 0.001)
      // The other factor as colour, one legend entry per value, and lines with bands.
      #expect(html.contains(">duration=1h</text>") && html.contains(">duration=2h</text>"))
      #expect(html.components(separatedBy: "class=\"series\"").count - 1 == 4)
      #expect(html.contains("class=\"band\""))
      #expect(html.contains("@media (prefers-color-scheme: dark)"))
      let svg = try String(contentsOfFile: directory + "/report-latency_p95.svg", encoding: .utf8)
      #expect(
        svg.hasPrefix(
          "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"chart-latency_p95\""
        ))
      #expect(svg.contains("<style>") && svg.hasSuffix("</svg>\n"))
      #expect(syncsim(["report", directory, "--metric", "nosuch"]).code == 65)
      #expect(syncsim(["report", directory, "--x", "nosuch"]).err.contains("no factor \"nosuch\""))
    }
  }

  /// Per point, the stage means as stacked bars and the latency quantiles as a distribution
  /// (issue 73, item 11): each segment and each quantile is sweep-summary.csv's mean.
  @Test func aSweepsReportShowsEachPointsStagesAndLatencyDistribution() throws {
    try withTemporaryDirectory { directory in
      let sweep = ["sweep", Self.quickstart, "--set", "push.dropProbability=0,0.5", "--seeds", "1..2", "--out", directory]
      #expect(syncsim(sweep).code == 0)
      #expect(syncsim(["report", directory]).code == 0)
      let html = try String(contentsOfFile: directory + "/report.html", encoding: .utf8)
      let summary = try table(directory + "/sweep-summary.csv")
      let mean = { (point: String, metric: String) in
        summary.rows.first { summary.text($0, "point") == point && summary.text($0, "metric") == metric }
          .flatMap { summary.number($0, "mean") }
      }
      #expect(html.contains("<h2>Where the time goes, per point</h2>"))
      #expect(html.contains("<h2>Latency distribution, per point</h2>"))
      let (points, stages, seconds) = (
        attributes(html, cls: "stage", "data-point"), attributes(html, cls: "stage", "data-stage"),
        attributes(html, cls: "stage", "data-seconds").compactMap(Double.init)
      )
      #expect(Set(points) == ["0", "1"])
      for (index, point) in points.enumerated() {
        let expected = try #require(mean(point, "stage.\(stages[index]).mean"))
        #expect(abs(seconds[index] - expected) <= expected * 1e-3, "\(point) \(stages[index])")
      }
      // Dropped pushes wait for a poll: point 1's notify is the longer, and its bar too.
      let notify = { (point: String) in zip(points, zip(stages, seconds)).first { $0.0 == point && $0.1.0 == "notify" }?.1.1 }
      #expect(try #require(notify("1")) > #require(notify("0")))
      // Quantiles: p50 … max of each point, in order, each the summary's mean.
      let quantilePoints = attributes(html, cls: "quantile", "data-point")
      let quantileSeconds = attributes(html, cls: "quantile", "data-seconds").compactMap(Double.init)
      #expect(quantilePoints == ["0", "0", "0", "0", "0", "1", "1", "1", "1", "1"])
      for (index, point) in quantilePoints.enumerated() {
        let metric = ["latency.p50", "latency.p90", "latency.p95", "latency.p99", "latency.max"][index % 5]
        let expected = try #require(mean(point, metric))
        #expect(abs(quantileSeconds[index] - expected) <= expected * 1e-3, "\(point) \(metric)")
      }
      #expect(zip(quantileSeconds, quantileSeconds.dropFirst()).enumerated().allSatisfy { $0.offset % 5 == 4 || $0.element.0 <= $0.element.1 })
      #expect(FileManager.default.fileExists(atPath: directory + "/report-stages-per-point.svg"))
      #expect(FileManager.default.fileExists(atPath: directory + "/report-latency-distribution.svg"))
    }
  }

  @Test func axesReadNumbersAndDurationsAndGoLogarithmicAcrossDecades() throws {
    // Durations on a linear axis tick in one unit, at the swept values when few (issue 73:
    // 5,000 s and 10,000 s read "83.33 min" and "2.778 h").
    let swept = try XAxis(labels: ["0s", "5000s", "10000s"])
    #expect(swept.kind == .linear && swept.ticks.map(\.label) == ["0", "1.389 h", "2.778 h"])
    let many = try XAxis(labels: (0...10).map { "\($0 * 1000)s" })
    #expect(many.ticks.map(\.label) == ["0", "1 h", "2 h"])
    let durations = try XAxis(labels: ["100ms", "1s", "10s", "100s"])
    #expect(durations.kind == .log && durations.isDuration)
    #expect(durations.ticks.map(\.label) == ["100 ms", "1 s", "10 s", "100 s"])
    let numbers = try XAxis(labels: ["0", "0.25", "1"])
    #expect(numbers.kind == .linear && numbers.values == [0, 0.25, 1])
    #expect(try XAxis(labels: ["a", "b"]).kind == .categories)
    #expect(try XAxis(labels: ["5"]).kind == .categories)
    let hours = YAxis(high: 150_000, isDuration: true)
    #expect(hours.unitName == "h" && hours.label(36_000) == "10 h" && hours.top >= 150_000)
    #expect(YAxis(high: 90, isDuration: true).label(30) == "30 s")
    #expect(YAxis(high: 900, isDuration: true).label(300) == "5 min")
    // An all-zero metric (issue 58, item 5): 0 to 1, not ticks labelled 1e-09.
    for isDuration in [false, true] {
      let zero = YAxis(high: 0, isDuration: isDuration)
      #expect(zero.top == 1 && zero.ticks.allSatisfy { $0 == 0 || $0 >= 0.1 }, "\(zero.ticks)")
      #expect(zero.ticks.map(zero.label).allSatisfy { !$0.contains("e-") }, "\(zero.ticks.map(zero.label))")
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

/// Issue 58, item 1: censored data is drawn as such. The fixture's sweep has a series with no
/// value at any point (Low Power Mode on: no visible row in 6 of 6 runs) and points where 1 and
/// 2 of 6 runs had a value (whose means are of the fastest runs only).
@Suite struct CensoredChartTests {
  @Test func aCensoredSweepShowsNOfRunsTheEmptySeriesAndLowerBounds() throws {
    try withTemporaryDirectory { directory in
      let fixture = packageRoot + "/Tests/Fixtures/censored-sweep.json"
      let sweep = syncsim(["sweep", fixture, "--seeds", "1..6", "--out", directory])
      #expect(sweep.code == 0, "\(sweep.err)")
      #expect(sweep.out.contains("no value n=0/6") && sweep.out.contains("n=1/6"), "\(sweep.out)")
      #expect(syncsim(["report", directory, "--metric", "latency.p50", "--metric", "latency.kaplanMeierP50"]).code == 0)
      let html = try String(contentsOfFile: directory + "/report.html", encoding: .utf8)
      let start = try #require(html.range(of: "<svg id=\"chart-latency_p50\""))
      let chart = html[start.lowerBound...]
      let p50 = String(chart[..<(chart.range(of: "</svg>")?.lowerBound ?? chart.endIndex)])
      // The empty series: an × at each of its 4 points, labelled 0/6, and named in the legend.
      #expect(p50.components(separatedBy: "class=\"no-value\"").count - 1 == 4, "\(p50)")
      #expect(p50.components(separatedBy: "data-n=\"0/6\"").count - 1 == 4)
      #expect(p50.contains("devices[1].power.lowPowerMode=true (no value: no visible row)"))
      // The two censored points: hollow, labelled n/runs.
      #expect(p50.contains("class=\"mean censored lower-bound\"") && p50.contains(">1/6</text>") && p50.contains(">2/6</text>"))
      // No line through them: the Low Power Mode off series' one line joins 8 and 24 only.
      let lines = p50.components(separatedBy: "<polyline class=\"series\"").dropFirst()
      #expect(lines.count == 1)
      let points = lines.first.flatMap { $0.components(separatedBy: "points=\"").dropFirst().first }
      #expect(points.map { $0.prefix { $0 != "\"" }.split(separator: " ").count } == 2, "\(lines)")
      // Every latency point is a lower bound here (rows were never visible in every run).
      #expect(p50.components(separatedBy: "class=\"lower-bound-arrow\"").count - 1 == 4)
      // The statistic that survives censoring: the Kaplan–Meier median is above the plain one
      // where rows were censored (8 sessions a day), and empty where most rows never showed.
      let summary = try #require(CSVTable.parse(try String(contentsOfFile: directory + "/sweep-summary.csv", encoding: .utf8)))
      let column = { (name: String) in summary.columns.firstIndex(of: name)! }
      let mean = { (point: String, metric: String) in
        summary.rows.first { $0[column("point")] == point && $0[column("metric")] == metric }.flatMap { Double($0[column("mean")]) }
      }
      let (plain, kaplanMeier) = (try #require(mean("4", "latency.p50")), try #require(mean("4", "latency.kaplanMeierP50")))
      #expect(kaplanMeier > plain, "\(kaplanMeier) vs \(plain)")
      #expect(mean("5", "latency.kaplanMeierP50") == nil)
    }
  }
}

/// Issue 58, item 4: the report's device strip is drawn from every state change (`states.csv`),
/// not from `timeline.csv`'s samples, which miss a session shorter than their interval.
@Suite struct DeviceStripTests {
  @Test func anIPadOpenedThreeTimesShowsThreeForegroundSpans() throws {
    try withTemporaryDirectory { directory in
      // A day, so timeline.csv samples every 7.2 min; the iPad is opened for 30 s three times.
      let run = try ScenarioRun(
        #"""
        {"version": 1, "name": "three-opens", "duration": "24h",
         "devices": [{"name": "iphone"}, {"name": "ipad", "appState": "suspended"}],
         "workloads": [{"devices": "iphone", "editsPerHour": 1}],
         "timeline": [{"at": "1h10m", "devices": "ipad", "action": "activate"},
                      {"at": "1h10m30s", "devices": "ipad", "action": "background"},
                      {"at": "9h10m", "devices": "ipad", "action": "activate"},
                      {"at": "9h10m30s", "devices": "ipad", "action": "background"},
                      {"at": "17h10m", "devices": "ipad", "action": "activate"},
                      {"at": "17h10m30s", "devices": "ipad", "action": "background"}]}
        """#, named: "three", in: directory)
      #expect(run.code == 0, "\(run.err)")
      let samples = try run.table("timeline.csv").rows.filter { $0["device"] == "ipad" && $0["app"] == "foreground" }
      #expect(samples.count < 3, "the samples miss them: \(samples.count)")
      let changes = try run.table("states.csv").rows.filter { $0["device"] == "ipad" && $0["app"] == "foreground" }
      #expect(changes.compactMap { $0.number("time") } == [4200, 33000, 61800])
      #expect(syncsim(["report", run.folder]).code == 0)
      let html = try String(contentsOfFile: run.folder + "/report.html", encoding: .utf8)
      #expect(html.components(separatedBy: "data-device=\"ipad\" data-state=\"foreground\"").count - 1 == 3)
      #expect(html.contains("App state at every change (states.csv)"))
    }
  }

  /// The battery drawn in each lane from timeline.csv (issue 73, item 12): the library's
  /// overnight drain from 80 %.
  @Test func aDrainingBatteryIsALineInItsDevicesLane() throws {
    try withTemporaryDirectory { directory in
      let folder = directory + "/night"
      #expect(syncsim(["run", packageRoot + "/Scenarios/critical-battery-overnight.json", "--out", folder]).code == 0)
      #expect(syncsim(["report", folder]).code == 0)
      let html = try String(contentsOfFile: folder + "/report.html", encoding: .utf8)
      #expect(html.contains("<polyline class=\"battery\" data-device=\"iphone\""))
      #expect(html.contains("its battery level from timeline.csv"))
    }
  }

  /// The rest of item 12: the scenario's timeline actions marked on their lanes, the battery
  /// levels the policies act at dotted on the battery's scale, and one time frame (the time of
  /// day, as on the axes) in the journey's caption. The Low Power Mode night starts at 22:00.
  @Test func timelineActionsAndBatteryThresholdsAreOnTheStripInTheAxesTimeFrame() throws {
    try withTemporaryDirectory { directory in
      let folder = directory + "/night"
      #expect(syncsim(["run", packageRoot + "/Scenarios/client-low-power-night.json", "--out", folder]).code == 0)
      #expect(syncsim(["report", folder]).code == 0)
      let html = try String(contentsOfFile: folder + "/report.html", encoding: .utf8)
      // 22:30 background and lowPower (iPad), 23:00 and 23:30 edits (iPhone), 07:00 activate and
      // 07:30 plug (iPad): seconds after the 22:00 start.
      let actions = zip(
        ReportTests().attributes(html, cls: "action", "data-action"), ReportTests().attributes(html, cls: "action", "data-seconds")
      ).map { "\($0) \($1)" }
      #expect(actions == ["background 1800", "lowPower 1800", "edit 3600", "edit 5400", "activate 32400", "plug 34200"])
      #expect(ReportTests().attributes(html, cls: "action", "data-device") == ["ipad", "ipad", "iphone", "iphone", "ipad", "ipad"])
      #expect(html.contains("activate on ipad at 07:00, 9.00 h into the run"))
      // The default policies' levels: Low Power Mode's 30 % and criticalBattery's 20 %, in each lane.
      #expect(ReportTests().attributes(html, cls: "threshold", "data-percent").sorted() == ["20", "20", "30", "30"])
      #expect(html.contains("the battery levels below which a policy holds background work (lowPowerMode 30 %, criticalBattery 20 %)"))
      // The journey's caption in the axes' frame: a time of day, then the offset.
      let caption = try #require(html.range(of: "edited on iphone at ").map { html[$0.upperBound...].prefix(40) })
      #expect(caption.hasPrefix("23:30, 90.00 min into the run") || caption.hasPrefix("23:00, 60.00 min into the run"), "\(caption)")
      // A run without a start keeps offsets alone.
      let quick = directory + "/quick"
      #expect(syncsim(["run", ReportTests.quickstart, "--out", quick]).code == 0)
      #expect(syncsim(["report", quick]).code == 0)
      let plain = try String(contentsOfFile: quick + "/report.html", encoding: .utf8)
      let edited = try #require(plain.range(of: "edited on ").map { String(plain[$0.upperBound...].prefix(60)) })
      let moment = try #require(edited.components(separatedBy: " at ").dropFirst().first)
      let offset = try #require(moment.components(separatedBy: " into the run: one bar per observer").first)
      #expect(offset != moment && !offset.contains(":") && offset.hasSuffix(" min"), "\(edited)")
    }
  }
}

/// Issue 58, item 5: figures a paper can use.
@Suite struct PaperFigureTests {
  @Test func categoriesAreDodgedPointsWithNoLineAndChartsAreNamedAfterTheirPage() throws {
    try withTemporaryDirectory { directory in
      let sweep = syncsim([
        "sweep", ReportTests.quickstart, "--set", "devices[1].savePolicy=immediate,onBackground", "--set",
        "push.dropProbability=0,0.5", "--seeds", "1..2", "--out", directory,
      ])
      #expect(sweep.code == 0, "\(sweep.err)")
      #expect(syncsim(["report", directory, "--x", "devices[1].savePolicy", "--metric", "latency.p50"]).code == 0)
      let html = try String(contentsOfFile: directory + "/report.html", encoding: .utf8)
      #expect(html.contains("data-x-axis=\"categories\""))
      // No order between categories: no line or band joins them.
      #expect(!html.contains("<polyline class=\"series\"") && !html.contains("class=\"band\""))
      // The two series' points in one slot stand apart.
      let xs = ReportTests().attributes(html, cls: "mean", "cx")
      #expect(xs.count == 4 && Set(xs).count == 4, "\(xs)")
      // A second page keeps its own charts: fig-*.svg beside report-*.svg.
      #expect(syncsim(["report", directory, "--metric", "latency.p50", "--out", directory + "/fig.html"]).code == 0)
      let files = try FileManager.default.contentsOfDirectory(atPath: directory)
      #expect(files.contains("report-latency_p50.svg") && files.contains("fig-latency_p50.svg"))
      #expect(try String(contentsOfFile: directory + "/fig.html", encoding: .utf8).contains("fig-latency_p50.svg"))
    }
  }

  @Test func aZippedFactorIsNotARedundantLegend() throws {
    try withTemporaryDirectory { directory in
      let sweep = syncsim([
        "sweep", ReportTests.quickstart, "--set", "push.dropProbability=0,0.3,0.6", "--set",
        "workloads[0].editsPerHour=10,20,30", "--zip", "push.dropProbability,workloads[0].editsPerHour",
        "--seeds", "1..2", "--out", directory,
      ])
      #expect(sweep.code == 0, "\(sweep.err)")
      #expect(syncsim(["report", directory, "--metric", "latency.p50"]).code == 0)
      // The metric's chart (the per-point charts below it name each point by all its factors).
      let chart = try String(contentsOfFile: directory + "/report-latency_p50.svg", encoding: .utf8)
      // Before: three series of one point each, "workloads[0].editsPerHour=10" … in a legend.
      #expect(!chart.contains("editsPerHour=10") && chart.components(separatedBy: "<polyline class=\"series\"").count == 2)
    }
  }

  @Test func aRunsChartsAreFilesOfTheirOwn() throws {
    try withTemporaryDirectory { directory in
      #expect(syncsim(["run", ReportTests.quickstart, "--out", directory]).code == 0)
      let result = syncsim(["report", directory])
      #expect(result.out.contains("and 5 chart .svg files beside it"), "\(result.out)")
      for chart in ["latency-cdf", "stage-bars", "blocked-over-time", "device-timeline", "write-journey"] {
        let svg = try String(contentsOfFile: directory + "/report-\(chart).svg", encoding: .utf8)
        #expect(svg.hasPrefix("<?xml") && svg.contains("xmlns=\"http://www.w3.org/2000/svg\" id=\"\(chart)\""))
      }
    }
  }
}
