import Foundation
import SimTestSupport
import Testing

/// Issue 58, item 5: a figure's words and x scale come from the scenario (`sweep.title`, a
/// factor's `label` and `scale`) or the command (`--title`, `--label`, `--x-scale`), not from
/// JSON paths; a log axis is offered for 1–64, and a scale that cannot hold the values is refused.
@Suite struct FigureLabelTests {
  /// Quickstart with a sweep over edits an hour, 1 to 64, labelled and on a log scale.
  static let labelledSweep = """
    {
      "version": 1,
      "name": "labelled",
      "duration": "2h",
      "devices": [{"name": "iphone"}, {"name": "ipad"}],
      "workloads": [{"devices": "all", "editsPerHour": 10}],
      "sweep": {
        "title": "Latency against the edit rate",
        "factors": [
          {"path": "workloads[0].editsPerHour", "values": [1, 2, 4, 8, 16, 32, 64],
           "label": "edits per hour", "scale": "log"},
          {"path": "push.dropProbability", "values": [0, 0.5], "label": "push drop rate"}
        ],
        "seeds": [1]
      }
    }
    """

  /// Writes `text` (by default the labelled sweep) as a scenario file in `directory`; its path.
  func scenarioFile(in directory: String, _ text: String = Self.labelledSweep) throws -> String {
    let file = directory + "/labelled.json"
    try text.write(toFile: file, atomically: true, encoding: .utf8)
    return file
  }

  /// The tick labels of the first chart's x axis (below the plot: `y` 266).
  func xTicks(_ html: String) -> [String] {
    let chart = html.components(separatedBy: "<svg id=").dropFirst().first ?? ""
    return chart.components(separatedBy: "y=\"266.00\" class=\"tick\" text-anchor=\"middle\">").dropFirst().map {
      String($0.prefix { $0 != "<" })
    }
  }

  @Test func theScenarioGivesTitleLabelsAndALogScaleThroughTheDataPackage() throws {
    try withTemporaryDirectory { directory in
      let file = try scenarioFile(in: directory)
      let out = directory + "/out"
      let sweep = syncsim(["sweep", file, "--out", out])
      #expect(sweep.code == 0, "\(sweep.err)")
      let package = try String(contentsOfFile: out + "/datapackage.json", encoding: .utf8)
      #expect(package.contains("\"title\": \"Latency against the edit rate\""))
      #expect(package.contains("\"name\": \"workloads[0].editsPerHour\", \"title\": \"edits per hour\", \"type\": \"string\", \"axisScale\": \"log\""))
      #expect(syncsim(["report", out, "--metric", "latency.p50"]).code == 0)
      let html = try String(contentsOfFile: out + "/report.html", encoding: .utf8)
      #expect(html.contains("<h1>Latency against the edit rate</h1>"))
      #expect(html.contains("data-x-axis=\"log\""))
      // 1 to 64 spans less than two decades: the ticks are the values themselves.
      #expect(xTicks(html) == ["1", "2", "4", "8", "16", "32", "64"], "\(xTicks(html))")
      #expect(html.contains(">edits per hour (log scale)</text>"))
      #expect(html.contains("push drop rate=0.5") && !html.contains("push.dropProbability=0.5"))

      // The command's choices win over the scenario's.
      let linear = syncsim([
        "report", out, "--metric", "latency.p50", "--x-scale", "linear", "--title", "Figure 3",
        "--label", "workloads[0].editsPerHour=writes per hour", "--label", "latency.p50=median latency",
        "--out", directory + "/fig3.html",
      ])
      #expect(linear.code == 0, "\(linear.err)")
      let figure = try String(contentsOfFile: directory + "/fig3.html", encoding: .utf8)
      #expect(figure.contains("<h1>Figure 3</h1>") && figure.contains("data-x-axis=\"linear\""))
      #expect(figure.contains(">writes per hour</text>") && figure.contains("median latency (latency.p50)</h2>"))
      #expect(xTicks(figure) == ["0", "20", "40", "60"], "\(xTicks(figure))")
      let svg = try String(contentsOfFile: directory + "/fig3-latency_p50.svg", encoding: .utf8)
      #expect(svg.contains(">median latency</text>"))
    }
  }

  @Test func aScaleThatCannotHoldTheValuesIsRefused() throws {
    try withTemporaryDirectory { directory in
      let file = try scenarioFile(in: directory)
      let out = directory + "/out"
      #expect(syncsim(["sweep", file, "--out", out]).code == 0)
      // A drop rate of 0 cannot sit on a log axis.
      let zero = syncsim(["report", out, "--x", "push.dropProbability", "--x-scale", "log"])
      #expect(zero.code == 65 && zero.err.contains("a log x axis needs values above 0, and one is 0"), "\(zero.err)")
      let bad = syncsim(["report", out, "--x-scale", "logarithmic"])
      #expect(bad.code == 64 && bad.err.contains("--x-scale must be auto, linear or log"), "\(bad.err)")
      let unknown = syncsim(["report", out, "--label", "latency.p59=p59"])
      #expect(unknown.code == 65 && unknown.err.contains("no factor or metric \"latency.p59\""), "\(unknown.err)")
      #expect(unknown.err.contains("did you mean latency.p50?"), "\(unknown.err)")
      let median = syncsim(["report", out, "--metric", "latency.median"])
      #expect(median.code == 65 && median.err.contains("did you mean latency.p50?"), "\(median.err)")
      let factor = syncsim(["report", out, "--x", "push.dropProbabilty"])
      #expect(factor.code == 65 && factor.err.contains("did you mean push.dropProbability?"), "\(factor.err)")
      let malformed = syncsim(["report", out, "--label", "median"])
      #expect(malformed.code == 64 && malformed.err.contains("--label takes NAME=TEXT"), "\(malformed.err)")
      // A run's report has no x axis to choose.
      let run = directory + "/run"
      #expect(syncsim(["run", ReportTests.quickstart, "--out", run]).code == 0)
      let onRun = syncsim(["report", run, "--x-scale", "log"])
      #expect(onRun.code == 65 && onRun.err.contains("this folder holds a run"), "\(onRun.err)")
      #expect(syncsim(["report", run, "--title", "Quickstart, one day"]).code == 0)
      #expect(try String(contentsOfFile: run + "/report.html", encoding: .utf8).contains("<h1>Quickstart, one day</h1>"))
    }
  }

  @Test func theValidatorRefusesALogScaleOverZeroAndAnUnknownScale() throws {
    try withTemporaryDirectory { directory in
      let text = Self.labelledSweep
        .replacingOccurrences(of: "\"edits per hour\", \"scale\": \"log\"", with: "\"edits per hour\", \"scale\": \"lin\"")
        .replacingOccurrences(of: "\"push drop rate\"", with: "\"push drop rate\", \"scale\": \"log\"")
      let result = syncsim(["validate", try scenarioFile(in: directory, text)])
      #expect(result.code == 65)
      #expect(result.err.contains("sweep.factors[1].scale: a log scale needs positive numbers, and 0 is not one"), "\(result.err)")
      #expect(result.err.contains("sweep.factors[0].scale: unknown value \"lin\""), "\(result.err)")
    }
  }

  /// A hostile folder's labels are text: a title or label of markup is escaped in the page and
  /// its charts, never run.
  @Test func labelsFromAFolderAreEscaped() throws {
    try withTemporaryDirectory { directory in
      let hostile = Self.labelledSweep
        .replacingOccurrences(of: "Latency against the edit rate", with: "<img src=x onerror=alert(1)>")
        .replacingOccurrences(of: "\"edits per hour\"", with: "\"</text><script>alert(2)</script>\"")
      let file = try scenarioFile(in: directory, hostile)
      #expect(syncsim(["sweep", file, "--out", directory + "/out"]).code == 0)
      #expect(syncsim(["report", directory + "/out", "--metric", "latency.p50"]).code == 0)
      for name in ["report.html", "report-latency_p50.svg"] {
        let text = try String(contentsOfFile: directory + "/out/" + name, encoding: .utf8)
        #expect(!text.contains("<img") && !text.contains("<script"), "\(name)")
      }
      let page = try String(contentsOfFile: directory + "/out/report.html", encoding: .utf8)
      #expect(page.contains("&lt;img src=x onerror=alert(1)&gt;"))
    }
  }

  @Test func aMergeOfShardsKeepsTheLabels() throws {
    try withTemporaryDirectory { directory in
      let file = try scenarioFile(in: directory)
      for shard in 1...2 {
        #expect(syncsim(["sweep", file, "--shard", "\(shard)/2", "--out", directory + "/s\(shard)"]).code == 0)
      }
      #expect(syncsim(["sweep", file, "--out", directory + "/whole"]).code == 0)
      let merge = syncsim(["merge", directory + "/s1", directory + "/s2", "--out", directory + "/merged"])
      #expect(merge.code == 0, "\(merge.err)")
      let merged = try String(contentsOfFile: directory + "/merged/datapackage.json", encoding: .utf8)
      let whole = try String(contentsOfFile: directory + "/whole/datapackage.json", encoding: .utf8)
      #expect(merged == whole)
      #expect(merged.contains("\"axisScale\": \"log\""))
    }
  }
}
