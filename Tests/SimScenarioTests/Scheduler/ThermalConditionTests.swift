import Foundation
import SimMetrics
import SimTestSupport
import Testing

/// A declared condition and a policy that reads it (issue 33 item 5): the iPad's thermal level
/// rises to heavy for an hour; with the thermal policy in the set, its import of the iPhone's edit
/// waits under `blocked.thermal` until the level falls, and `timeline.csv` samples the level.
@Suite struct ThermalConditionTests {
  func run(policies: String) throws -> (summary: ResultTable, activities: ResultTable, timeline: ResultTable) {
    let text = #"""
      {"version": 1, "name": "thermal", "duration": "3h",
       "scheduler": {"policies": \#(policies)},
       "devices": [{"name": "iphone"}, {"name": "ipad"}],
       "timeline": [{"at": "20m", "devices": "ipad", "action": {"set": {"thermal": "heavy"}}},
                    {"at": "30m", "devices": "iphone", "action": {"edit": "insert"}},
                    {"at": "1h20m", "devices": "ipad", "action": {"set": {"thermal": "moderate"}}}],
       "outputs": ["summary", "activities", "timeline"]}
      """#
    let run = try WorldRun(text)
    #expect(run.code == 0)
    return (try run.table("summary.csv"), try run.table("activities.csv"), try run.table("timeline.csv"))
  }

  @Test func heavyThermalPressureHoldsTheImportUnderItsOwnPolicy() throws {
    let on = try run(policies: #"{"thermal": {}}"#)
    // The import asked for at the push (30 min + about 1 s) waits until 1 h 20 m: 50 min.
    let imports = on.activities.rows.filter { $0["device"] == "ipad" && $0["kind"] == "import" }
    let held = imports.compactMap { $0.number("blocked.thermal") }.max() ?? 0
    #expect(abs(held - 50 * 60) < 5, "\(held) s")
    let total = try #require(on.summary.rows[0].number("blocked.thermal.total"))
    #expect(total >= held)
    // timeline.csv samples the level the run sets: heavy between 20 min and 1 h 20 m.
    let ipad = on.timeline.rows.filter { $0["device"] == "ipad" }
    let level = { (seconds: Double) in ipad.first { $0.number("time") == seconds }?["thermal"] }
    #expect(level(10 * 60) == "nominal")
    #expect(level(60 * 60) == "heavy")
    #expect(level(2 * 3600) == "moderate")
    // Without the policy the same run never waits on it, and has no thermal column.
    let off = try run(policies: "{}")
    #expect(!off.summary.columns.contains("blocked.thermal.total"))
    #expect(off.timeline.columns.contains("thermal"))
  }

  @Test func setOfABuiltInConditionRunsAsItsOwnAction() throws {
    let scenario = { (action: String) in
      #"{"version": 1, "name": "same", "duration": "1h", "devices": [{"name": "a"}, {"name": "b"}],"#
        + #""workloads": [{"devices": "a", "every": "5m"}],"#
        + #""timeline": [{"at": "10m", "devices": "b", "action": \#(action)}]}"#
    }
    let set = try WorldRun(scenario(#"{"set": {"online": false}}"#))
    let named = try WorldRun(scenario(#""goOffline""#))
    #expect(set.code == 0 && named.code == 0)
    let fingerprint = { (run: WorldRun) in try run.table("summary.csv").rows[0]["fingerprint"] }
    #expect(try fingerprint(set) != nil)
    #expect(try fingerprint(set) == fingerprint(named))
  }

  @Test func anUnknownLevelIsAClearError() throws {
    try withTemporaryDirectory { directory in
      let text = #"""
        {"version": 1, "name": "bad", "duration": "1h", "devices": [{"name": "a"}],
         "timeline": [{"at": "1m", "devices": "a", "action": {"set": {"thermal": "hevy"}}},
                      {"at": "2m", "devices": "a", "action": {"set": {"thermal": "heavy", "online": true}}}]}
        """#
      try text.write(toFile: directory + "/bad.json", atomically: true, encoding: .utf8)
      let result = syncsim("run", directory + "/bad.json", "--out", directory + "/bad")
      #expect(result.code != 0)
      #expect(result.err.contains("timeline[0].action.set.thermal"))
      #expect(result.err.contains("did you mean \"heavy\"?"))
      #expect(result.err.contains("timeline[1].action.set"))
      #expect(!FileManager.default.fileExists(atPath: directory + "/bad"))
    }
  }
}
