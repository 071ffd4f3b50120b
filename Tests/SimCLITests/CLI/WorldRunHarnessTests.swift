import Foundation
import SimTestSupport
import Testing

/// The in-process harness (`WorldRun`) gives what `syncsim run` writes: the same tables byte for
/// byte and the same exit code, without files; and it refuses a scenario that does not decode.
@Suite struct WorldRunHarnessTests {
  @Test func theHarnessTablesAreTheFilesRunWrites() throws {
    try withTemporaryDirectory { directory in
      let text = try String(contentsOfFile: packageRoot + "/Scenarios/quickstart.json", encoding: .utf8)
      let written = try ScenarioRun(text, named: "quickstart", in: directory)
      let harness = try WorldRun(text)
      #expect(harness.code == written.code)
      for name in ["summary.csv", "latency.csv", "activities.csv", "timeline.csv", "resolved.json"] {
        let file = try String(contentsOfFile: written.folder + "/" + name, encoding: .utf8)
        let text = try harness.text(name)
        #expect(!file.isEmpty && text == file, "\(name)")
      }
      let p95 = try written.summary("latency.p95")
      #expect(try harness.summary("latency.p95") == p95 && p95 != nil)
    }
  }

  @Test func aScenarioThatDoesNotDecodeIsRefused() {
    #expect(throws: WorldRunError.self) { try WorldRun(#"{"version": 1, "devices": [{"name": "a", "colour": 3}]}"#) }
  }
}
