import Foundation
import SimCLI
import SimTestSupport
import Testing

@Suite struct CheckCommandTests {
  @Test func checkPassesOnCommittedResultsAndNamesWhatChanged() throws {
    try withTemporaryDirectory { directory in
      let scenario = directory + "/quick.json"
      let original = try String(contentsOfFile: packageRoot + "/Scenarios/quickstart.json", encoding: .utf8)
      try original.write(toFile: scenario, atomically: true, encoding: .utf8)
      let baseline = directory + "/baseline"
      let update = syncsim("check", scenario, "--baseline", baseline, "--update")
      #expect(update.code == 0)
      let unchanged = syncsim("check", scenario, "--baseline", baseline, "--junit", directory + "/junit.xml")
      #expect(unchanged.code == 0)
      #expect(unchanged.out.contains("ok   quickstart (unchanged, fingerprint"))
      #expect(unchanged.out.hasSuffix("1 passed, 0 failed\n"))
      // A model or scenario change shows up as a changed fingerprint and the metrics that moved.
      try original.replacingOccurrences(of: "\"editsPerHour\": 10", with: "\"editsPerHour\": 12")
        .write(toFile: scenario, atomically: true, encoding: .utf8)
      let changed = syncsim("check", scenario, "--baseline", baseline, "--junit", directory + "/junit.xml")
      #expect(changed.code == 1)
      #expect(changed.out.contains("FAIL quickstart"))
      #expect(changed.out.contains("behaviour changed: fingerprint"))
      #expect(changed.out.contains("writes: committed 118, got"))
      #expect(changed.out.contains("reproduce: swift run -c release syncsim run \(scenario) --seed 1"))
      #expect(changed.out.hasSuffix("0 passed, 1 failed\n"))
      let xml = try String(contentsOfFile: directory + "/junit.xml", encoding: .utf8)
      #expect(xml.contains("<testsuite name=\"syncsim check\" tests=\"1\" failures=\"1\" errors=\"0\" time=\""))
      #expect(xml.contains("<failure message=\"behaviour changed: fingerprint"))
    }
  }

  @Test func aMissingBaselineFailsWithTheCommandThatCreatesIt() throws {
    withTemporaryDirectory { directory in
      let result = syncsim("check", packageRoot + "/Scenarios/quickstart.json", "--baseline", directory)
      #expect(result.code == 1)
      #expect(result.out.contains("no committed results"))
    }
  }
}
