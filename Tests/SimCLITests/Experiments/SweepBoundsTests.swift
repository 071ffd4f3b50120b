import Foundation
import SimTestSupport
import Testing

@testable import SimCLI
@testable import SimScenario

/// Sweep plans are counted before they are built, and validated in time that grows with their
/// values, not with their product (issue 39, item 7).
@Suite struct SweepBoundsTests {
  /// The quickstart scenario with a `sweep` section of `factors`.
  func scenario(factors: [(path: String, values: [String])], exclude: String = "") throws -> String {
    let text = try String(contentsOfFile: ReportTests.quickstart, encoding: .utf8)
    let list = factors.map { "{\"path\": \"\($0.path)\", \"values\": [\($0.values.joined(separator: ","))]}" }
    let sweep = "\"sweep\": {\"factors\": [\(list.joined(separator: ","))]\(exclude)},"
    return text.replacingOccurrences(of: "\"seed\": 1,", with: "\"seed\": 1, " + sweep)
  }

  @Test func twentyFiveTwoValuedFactorsAreRefusedByTheirCountBeforeAnyPointIsBuilt() throws {
    try withTemporaryDirectory { directory in
      let factors = (0..<25).map { ("description", ["\"a\($0)\"", "\"b\($0)\""]) }
      try scenario(factors: factors).write(toFile: directory + "/s.json", atomically: true, encoding: .utf8)
      let result = syncsim(["validate", directory + "/s.json"])
      #expect(result.code == 65)
      #expect(result.err.contains("sweep: 33554432 runs (33554432 combinations × 1 seeds) is over the limit of 100000"))
      var plan = SweepPlan()
      plan.factors = (0..<64).map {
        .init(
          path: "p\($0)", steps: [.key("p\($0)")],
          values: [JSONNode(value: .null, line: 0, column: 0), JSONNode(value: .bool(true), line: 0, column: 0)],
          zipGroup: nil)
      }
      #expect(plan.combinationCount() == Int.max, "2^64 overflows and is said so, not wrapped")
      #expect(
        plan.sizeProblem()?.message
          == "more than \(Int.max) runs (too many combinations × 1 seeds) is over the limit of 100000")
    }
  }

  @Test func aSweepOnTheCommandLineIsCountedToo() {
    let values = (1...400).map(String.init).joined(separator: ",")
    let result = syncsim([
      "sweep", ReportTests.quickstart, "--set", "workloads[0].editsPerHour=\(values)", "--set",
      "push.dropProbability=\((0..<300).map { String(Double($0) / 1000) }.joined(separator: ","))", "--out",
      "/nonexistent/x",
    ])
    #expect(result.code == 64)
    #expect(result.err.contains("120000 runs (120000 combinations × 1 seeds) is over the limit of 100000"))
  }

  @Test func aLargeSweepIsValidatedOneValueAtATimeAndItsProblemsStillFound() throws {
    try withTemporaryDirectory { directory in
      // 16 factors of 2 values: 65,536 points, checked as 17 scenarios; one value is bad.
      var factors = (0..<15).map { ("description", ["\"a\($0)\"", "\"b\($0)\""]) }
      factors.append(("workloads[0].editsPerHour", ["5", "-1"]))
      try scenario(factors: factors).write(toFile: directory + "/s.json", atomically: true, encoding: .utf8)
      let result = syncsim(["validate", directory + "/s.json"])
      #expect(result.code == 65)
      #expect(result.err.contains("65536 points: validate checked each factor's values one at a time (17 scenarios)"))
      #expect(result.err.contains("sweep.factors[15].values: value -1: workloads[0].editsPerHour"), "\(result.err)")
    }
  }

  /// A sweep over a key the timeline does not read decodes the timeline once (issue 71, item
  /// 10: 20,000 entries and 100 values took 20.9 s); each point still gets the whole timeline,
  /// and a point's own error is still found.
  @Test func aPointThatCannotChangeTheTimelineSharesItsDecode() throws {
    let entries = (0..<300).map { index in
      "{\"at\": \"\(60 + index * 7)s\", \"devices\": \"\(index % 2 == 0 ? "iphone" : "ipad")\", \"action\": \"\(["activate", "background", "plug", "unplug"][index % 4])\"}"
    }
    let text = try String(contentsOfFile: ReportTests.quickstart, encoding: .utf8)
      .replacingOccurrences(of: "\"seed\": 1,", with: "\"seed\": 1, \"timeline\": [\(entries.joined(separator: ","))],")
    let root = try JSONParser.parse(Array(text.utf8))
    var plan = SweepPlan()
    plan.factors = [
      .init(
        path: "workloads[0].editsPerHour", steps: [.key("workloads"), .index(0), .key("editsPerHour")],
        values: ["4", "9", "-1"].map { try! JSONParser.parse(Array($0.utf8)) }, zipGroup: nil)
    ]
    #expect(TimelineMemo.applies(to: plan.factors))
    let memo = TimelineMemo()
    var timelines: [String] = []
    for point in plan.points().prefix(2) {
      let document = plan.document(root, at: point, file: "s.json").document
      let shared = try ScenarioDecoder.decode(root: document, file: "s.json", checkingSweep: false, timelineMemo: memo).0
      let alone = try ScenarioDecoder.decode(root: document, file: "s.json", checkingSweep: false).0
      #expect(shared.spec.timeline.count == 300)
      #expect("\(shared.spec.timeline)" == "\(alone.spec.timeline)")
      #expect(shared.spec.devices[0].workload?.editsPerHour == alone.spec.devices[0].workload?.editsPerHour)
      timelines.append("\(shared.spec.timeline)")
    }
    #expect(memo.recorded?.actions.count == 300)
    #expect(memo.recorded?.problems.contains { $0.message.contains("chargePerHour 0") } == true)
    // A factor under "devices" or "timeline" decodes each point's own.
    #expect(!TimelineMemo.applies(to: [.init(path: "duration", steps: [.key("duration")], values: [], zipGroup: nil)]))
    #expect(!TimelineMemo.applies(to: [.init(path: "timeline[0].at", steps: [.key("timeline"), .index(0), .key("at")], values: [], zipGroup: nil)]))
    let problems = ScenarioDecoder.sweepProblems(plan, root: root, file: "s.json", policies: .standard, acceptLarge: false)
    #expect(problems.map(\.path) == ["sweep.factors[0].values"], "\(problems)")
    #expect(problems.first?.message.hasPrefix("value -1: workloads[0].editsPerHour") == true, "\(problems)")
  }

  @Test func oneValueAtATimeGivesEveryValueOnceAndZippedFactorsTogether() {
    var plan = SweepPlan()
    let values = { (count: Int) in (0..<count).map { JSONNode(value: .string("v\($0)"), line: 0, column: 0) } }
    plan.factors = [
      .init(path: "a", steps: [.key("a")], values: values(3), zipGroup: nil),
      .init(path: "b", steps: [.key("b")], values: values(4), zipGroup: "z"),
      .init(path: "c", steps: [.key("c")], values: values(4), zipGroup: "z"),
    ]
    let points = plan.oneValueAtATime()
    #expect(points.map(\.valueIndices) == [[0, 0, 0], [1, 0, 0], [2, 0, 0], [0, 1, 1], [0, 2, 2], [0, 3, 3]])
    #expect(plan.combinationCount() == 12)
    plan.excluded = [[(path: "a", value: "\"v1\""), (path: "b", value: "\"v2\"")]]
    #expect(plan.points().count == 11)
    #expect(!plan.points().contains { $0.valueIndices == [1, 2, 2] })
  }
}

/// Issue 38, item 7: an object-valued factor is one line of JSON in `sweep.csv`.
@Suite struct ObjectFactorTests {
  @Test func anObjectValuedFactorIsOneLineOfJSONInTheCSV() throws {
    try withTemporaryDirectory { directory in
      let result = syncsim([
        "sweep", packageRoot + "/Scenarios/quickstart.json", "--set",
        "devices[0].power={\"battery\":50},{\"battery\":90,\"pluggedIn\":true}", "--out", directory + "/s",
      ])
      #expect(result.code == 0, "\(result.err)")
      let text = try String(contentsOfFile: directory + "/s/sweep.csv", encoding: .utf8)
      let lines = text.split(separator: "\n")
      #expect(lines.allSatisfy { $0.hasPrefix("scenario,") || $0.hasPrefix("quickstart,") }, "no field spans lines")
      #expect(text.contains("\"{\"\"battery\"\": 90, \"\"pluggedIn\"\": true}\""))
    }
  }
}
