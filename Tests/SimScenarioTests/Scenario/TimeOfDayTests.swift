import Foundation
import SimMetrics
import SimScenario
import SimTestSupport
import Testing

/// Time of day (issue 36 item 5): a start clock, clock times in the timeline (the next such
/// time), usage by hour of day, and the time of day in timeline.csv.
@Suite struct TimeOfDayTests {
  static let scenario = #"""
    {"version": 1, "name": "overnight", "duration": "2d", "start": "2026-03-02T22:00",
     "devices": [{"name": "iphone"}, {"name": "ipad", "appState": "suspended"}],
     "usage": [{"devices": "ipad", "sessionsPerDay": 48,
                "byHour": [0,0,0,0,0,0,0,3,3,1,1,1,1,1,1,1,1,1,2,3,3,2,0,0]}],
     "timeline": [{"at": "23:00", "devices": "iphone", "action": {"edit": "insert"}},
                  {"at": "21:00", "devices": "iphone", "action": {"edit": "insert"}}],
     "outputs": ["summary", "latency", "timeline"]}
    """#

  func table(_ run: WorldRun, _ name: String) throws -> [[String: String]] {
    let table = try run.table(name)
    return table.table.rows.map { Dictionary(uniqueKeysWithValues: zip(table.columns, $0)) }
  }

  /// A clock time equal to `start` is the start (issue 73): listed after later entries it runs
  /// before them, which validate now says; and a plug with no charge rate is advised.
  @Test func aClockTimeAtTheStartIsTheStartAndListedLateItWarns() throws {
    let text = #"""
      {"version": 1, "name": "night", "duration": "1d", "start": "2026-03-02T08:00",
       "devices": [{"name": "ipad", "power": {"battery": 15}}],
       "timeline": [{"at": "23:00", "devices": "ipad", "action": {"lowPower": true}},
                    {"at": "08:00", "devices": "ipad", "action": "plug"}]}
      """#
    let (scenario, problems) = try ScenarioDecoder.decode(Array(text.utf8), file: "n.json")
    #expect(scenario.spec.timeline.map { $0.at.seconds } == [15 * 3600, 0])
    let warning = try #require(problems.first { $0.path == "timeline[1].at" })
    #expect(warning.severity == .warning)
    #expect(warning.message.contains("runs before timeline[0]"))
    let advice = try #require(problems.first { $0.path == "timeline[1].action" })
    #expect(advice.severity == .advice && advice.message.contains("chargePerHour 0"))
  }

  @Test func clockTimesUsageByHourAndTheClockColumn() throws {
    let run = try WorldRun(Self.scenario)
    #expect(run.code == 0)
    // 23:00 with a start at 22:00 is 1 h in; 21:00 is the next day's, 23 h in.
    let edits = try table(run, "latency.csv").compactMap { Double($0["editedAt"]!) }
    #expect(edits.sorted() == [3600.0, 82800.0])
    let timeline = try table(run, "timeline.csv")
    // Samples every 15 min (the default for a 2-day run): 22:00:00, 22:15:00, ...
    #expect(timeline[0]["clock"] == "22:00:00" && timeline[1]["clock"] == "22:15:00")
    #expect(timeline.first { $0["time"] == "86400.000000000" }?["clock"] == "22:00:00")
    // Sessions only in the hours with a weight: none from 22:00 to 07:00.
    let hours = Set(
      timeline.filter { $0["device"] == "ipad" && $0["app"] == "foreground" }.map { Int($0["clock"]!.prefix(2))! })
    #expect(!hours.isEmpty)
    #expect(hours.isDisjoint(with: [0, 1, 2, 3, 4, 5, 6]), "\(hours.sorted())")
  }

  @Test func aClockTimeNeedsAStartAndAProfileNeedsTwentyFourHours() throws {
    try withTemporaryDirectory { directory in
      let file = directory + "/bad.json"
      try #"""
      {"version": 1, "devices": [{"name": "a"}],
       "usage": [{"devices": "a", "sessionsPerDay": 4, "byHour": [1, 2]}],
       "timeline": [{"at": "23:00", "devices": "a", "action": "background"}]}
      """#.write(toFile: file, atomically: true, encoding: .utf8)
      let result = syncsim("validate", file)
      #expect(result.code == 65)
      #expect(result.err.contains("timeline[0].at: the clock time \"23:00\" needs the run's \"start\""))
      #expect(result.err.contains("usage[0].byHour: 2 weights; one per hour of the day is 24"))
    }
  }

  /// The report's run-time axes read the time of day when the scenario has a start.
  @Test func theReportsTimeAxesShowTheTimeOfDay() throws {
    try withTemporaryDirectory { directory in
      #expect(syncsim("run", packageRoot + "/Scenarios/critical-battery-overnight.json", "--out", directory).code == 0)
      #expect(syncsim("report", directory).code == 0)
      let html = try String(contentsOfFile: directory + "/report.html", encoding: .utf8)
      #expect(
        html.contains("text-anchor=\"middle\">22:00</text>") && html.contains("text-anchor=\"middle\">06:00</text>"))
      #expect(html.components(separatedBy: "time of day (from the scenario").count - 1 == 2)
    }
  }
}
