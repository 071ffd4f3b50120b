import Foundation
import SimMetrics
import SimTestSupport
import Testing

/// An edit needs a process (issue 34 item 6): the app's own edit wakes a suspended app into the
/// background, so it saves and exports at once; an extension's edit is saved while the app
/// sleeps, and its export waits for the app's next run.
@Suite struct EditSourceTests {
  func scenario(source: String) -> String {
    #"""
    {"version": 1, "name": "source", "duration": "4h",
     "devices": [{"name": "iphone", "appState": "suspended"}, {"name": "ipad"}],
     "workloads": [{"devices": "iphone", "editsPerHour": 6, "foregroundOnly": false, "source": "\#(source)", "until": "2h"}],
     "timeline": [{"at": "3h", "devices": "iphone", "action": "activate"}]}
    """#
  }

  func exportSchedules(_ source: String) throws -> [Double] {
    let run = try WorldRun(scenario(source: source))
    #expect(run.code == 0)
    return try run.table("latency.csv").rows.compactMap { $0.number("exportSchedule") }
  }

  @Test func theAppsEditWakesItAndAnExtensionsWaitsForTheApp() throws {
    let app = try exportSchedules("app")
    let extensionRows = try exportSchedules("extension")
    #expect(app.count > 5 && extensionRows.count > 5)
    // Woken for each edit: exported within seconds (decision, start delay).
    #expect(app.max()! < 10, "\(app)")
    // Saved by the extension at 0–2 h, exported only after the activation at 3 h.
    #expect(extensionRows.min()! > 3600, "\(extensionRows)")
    // An unknown source is refused with the choices (the command's message).
    try withTemporaryDirectory { directory in
      let file = directory + "/bad.json"
      try scenario(source: "widget").write(toFile: file, atomically: true, encoding: .utf8)
      let refused = syncsim("validate", file)
      #expect(refused.code == 65 && refused.err.contains("workloads[0].source: unknown value \"widget\""))
    }
  }
}
