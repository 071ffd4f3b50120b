import Foundation
import SimMetrics
import SimTestSupport
import Testing

/// `initialImportTime` is the fixed cost of an import from the empty token, paid once per store
/// (and again only after a reset): a launch's import of an empty zone pays it, the first import
/// that then finds records does not (issue 34 item 5).
@Suite struct InitialImportTests {
  static let scenario = #"""
    {"version": 1, "name": "once", "duration": "10m",
     "devices": [{"name": "iphone"}, {"name": "ipad"}],
     "cloud": {"requestLatency": "100ms"}, "push": {"fanoutLatency": "1s"},
     "scheduler": {"decisionLatency": "300ms"},
     "timeline": [{"at": "60s", "devices": "iphone", "action": {"edit": "insert"}}]}
    """#

  @Test func aStorePaysTheInitialImportTimeOnce() throws {
    let run = try WorldRun(Self.scenario)
    #expect(run.code == 0)
    let imports = try run.table("activities.csv").rows.filter { $0["kind"] == "import" && $0["device"] == "ipad" }
    let durations = imports.map { $0.number("finishedAt")! - $0.number("startedAt")! }
    let records = imports.map { Int($0["records"]!)! }
    // The launch's import of the empty zone: 1.3 s of set-up plus one 100 ms request.
    #expect(records.first == 0)
    #expect(abs(durations[0] - 1.4) < 0.001)
    // The import that brings the iPhone's record: one request and one record's apply, no set-up.
    let carrying = try #require(records.firstIndex(of: 1))
    #expect(durations[carrying] < 0.2, "paid initialImportTime again: \(durations[carrying]) s")
  }
}
