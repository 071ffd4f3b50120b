import Foundation
import SimTestSupport
import Testing

/// Issue 58, item 2 (in part): `compare` refused different scenario names or factors, but two
/// sweeps of one name whose scenario files differ (another workload) were compared as if only
/// SyncSim had changed. A point whose scenario hash differs while its factor values agree is now
/// refused (exit 65, naming both hashes) unless `--force`; points that differ by their factors'
/// values are compared as before.
@Suite struct CompareIdentityTests {
  @Test func aChangedScenarioFileIsNotComparedSilently() throws {
    try withTemporaryDirectory { directory in
      let original = try String(contentsOfFile: packageRoot + "/Scenarios/quickstart.json", encoding: .utf8)
      let edited = original.replacingOccurrences(of: "\"editsPerHour\": 10", with: "\"editsPerHour\": 11")
      #expect(edited != original, "the edit took")
      try edited.write(toFile: directory + "/quickstart.json", atomically: true, encoding: .utf8)
      let sweep = ["--set", "duration=2h", "--seeds", "1..3"]
      #expect(syncsim(["sweep", packageRoot + "/Scenarios/quickstart.json"] + sweep + ["--out", directory + "/a"]).code == 0)
      #expect(syncsim(["sweep", directory + "/quickstart.json"] + sweep + ["--out", directory + "/b"]).code == 0)
      let refused = syncsim(["compare", directory + "/a", directory + "/b"])
      #expect(refused.code == 65)
      #expect(refused.err.contains("point 0's scenarioHash is"), "\(refused.err)")
      #expect(syncsim(["compare", directory + "/a", directory + "/b", "--force"]).code == 0)
      // The same file on both sides: compared.
      #expect(syncsim(["sweep", packageRoot + "/Scenarios/quickstart.json"] + sweep + ["--out", directory + "/c"]).code == 0)
      #expect(syncsim(["compare", directory + "/a", directory + "/c"]).code == 0)
    }
  }

  @Test func compareTextSaysWhatItHidesAndWhyNothingIsTested() throws {
    try withTemporaryDirectory { directory in
      let quickstart = packageRoot + "/Scenarios/quickstart.json"
      #expect(syncsim(["run", quickstart, "--out", directory + "/run"]).code == 0)
      for (name, drop, seeds) in [("a", "0", "1..5"), ("b", "0.6", "6..10")] {
        #expect(
          syncsim(["sweep", quickstart, "--set", "push.dropProbability=\(drop)", "--seeds", seeds, "--out", directory + "/" + name])
            .code == 0)
      }
      let single = syncsim(["compare", directory + "/run", directory + "/a", "--force"])
      #expect(single.out.hasPrefix("No tests: A holds one run a point"), "\(single.out)")
      let text = syncsim(["compare", directory + "/a", directory + "/b"])
      let all = syncsim(["compare", directory + "/a", directory + "/b", "--all"])
      let p95 = try #require(all.out.split(separator: "\n").first { $0.contains(" latency.p95 ") }, "\(all.out)")
      // Means as durations; the difference and its interval in one unit, the interval's (issue 73).
      #expect(p95.contains("s "), "\(p95)")
      let interval = try #require(p95.range(of: #"[+-][0-9.]+[a-z]+ \[[+-][0-9.]+[a-z]+, [+-][0-9.]+[a-z]+\]"#, options: .regularExpression).map { String(p95[$0]) })
      let units = Set(interval.split(whereSeparator: { !$0.isLetter }).map(String.init))
      #expect(units.count == 1, "\(interval)")
      #expect(text.out.contains("not shown (--all shows them)"), "\(text.out)")
      // The headline metrics are shown changed or not, and the point is named by its number,
      // its factors listed once above.
      #expect(text.out.split(separator: "\n").contains { $0.contains(" latency.p50 ") }, "\(text.out)")
      #expect(text.out.contains("point 0: "), "\(text.out)")
      let markdown = syncsim(["compare", directory + "/a", directory + "/b", "--format", "markdown"])
      #expect(!markdown.out.contains("| 0 | 0 |"), "no p-value printed as 0")
      #expect(!all.out.contains("not shown"))
    }
  }
}
