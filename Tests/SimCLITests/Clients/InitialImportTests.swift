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
    try withTemporaryDirectory { directory in
      let file = directory + "/once.json"
      try Self.scenario.write(toFile: file, atomically: true, encoding: .utf8)
      #expect(syncsim("run", file, "--out", directory + "/out").code == 0)
      let text = try String(contentsOfFile: directory + "/out/activities.csv", encoding: .utf8)
      let table = try #require(CSVTable.parse(text))
      let column = { (name: String) in table.columns.firstIndex(of: name)! }
      let imports = table.rows.filter { $0[column("kind")] == "import" && $0[column("device")] == "ipad" }
      let durations = imports.map { Double($0[column("finishedAt")])! - Double($0[column("startedAt")])! }
      let records = imports.map { Int($0[column("records")])! }
      // The launch's import of the empty zone: 1.3 s of set-up plus one 100 ms request.
      #expect(records.first == 0)
      #expect(abs(durations[0] - 1.4) < 0.001)
      // The import that brings the iPhone's record: one request and one record's apply, no set-up.
      let carrying = try #require(records.firstIndex(of: 1))
      #expect(durations[carrying] < 0.2, "paid initialImportTime again: \(durations[carrying]) s")
    }
  }
}
