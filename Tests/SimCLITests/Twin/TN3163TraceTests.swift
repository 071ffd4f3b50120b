import Foundation
import SimTestSupport
import Testing

/// Apple's own example trace, reproduced (issue 56, item 9): the library's
/// `realworld-tn3163-trace` leaves the unified log a device would print, and `syncsim trace`
/// reads it as it reads TN3163's lines; each interval of Apple's trace beside the model's, with
/// the deviation `docs/validation.md` states.
@Suite struct TN3163TraceTests {
  @Test func eachIntervalOfApplesTraceBesideTheModels() throws {
    try withTemporaryDirectory { folder in
      let ran = syncsim("run", packageRoot + "/Scenarios/realworld-tn3163-trace.json", "--out", folder + "/run", "--event-log")
      #expect(ran.code == 0)
      let model = try intervals(["unified-iphone.log", "unified-ipad.log"].map { folder + "/run/" + $0 }, folder + "/m")
      let apple = try intervals([packageRoot + "/Tests/SimCLITests/Fixtures/tn3163-iphone.log"], folder + "/a")
      // Apple's, from its lines; the model's, from its own log, as validation.md's rows say.
      #expect(abs(apple.decision - 0.382) < 0.001 && abs(model.decision - 0.261) < 0.001)
      #expect(abs(apple.exportStart - 1.394) < 0.001 && abs(model.exportStart - 1.261) < 0.001)
      #expect(abs(apple.export - 0.035) < 0.001 && abs(model.export - 0.105) < 0.001)
      #expect(abs(apple.pushImport - 0.695) < 0.001 && abs(model.pushImport - 0.137) < 0.001)
      #expect(abs(apple.handler - 0.102) < 0.001 && abs(model.handler - 0.100) < 0.001)
    }
  }

  /// The trace's intervals: save → decision and → export start, the export, the last import, and
  /// apsd → handler.
  func intervals(_ logs: [String], _ out: String) throws
    -> (decision: Double, exportStart: Double, export: Double, pushImport: Double, handler: Double)
  {
    #expect(syncsim(["trace"] + logs + ["--out", out]).code == 0)
    let activities = try ResultTable(path: out + "/activities.csv").rows
    let export = try #require(activities.first { $0["kind"] == "export" })
    let imported = try #require(activities.last { $0["kind"] == "import" && $0["finishedAt"] != "" })
    let push = try #require(try ResultTable(path: out + "/pushes.csv").rows.first)
    let requested = export.number("requestedAt")!
    return (
      export.number("decidedAt")! - requested, export.number("startedAt")! - requested,
      export.number("finishedAt")! - export.number("startedAt")!,
      imported.number("finishedAt")! - imported.number("startedAt")!,
      push.number("handledAt")! - push.number("receivedAt")!
    )
  }
}
