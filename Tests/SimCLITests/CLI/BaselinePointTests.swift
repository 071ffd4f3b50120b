import Foundation
import SimTestSupport
import Testing

/// Issue 58, item 3: one sweep's points compared against a named baseline point, with the
/// same Welch tests, Holm adjustment and `--fail-on` gate as two folders.
@Suite struct BaselinePointTests {
  static let pushDropSweep = packageRoot + "/Scenarios/push-drop-sweep.json"

  @Test func everyPointIsTestedAgainstTheBaselineAndTheGateFails() throws {
    try withTemporaryDirectory { directory in
      let sweep = directory + "/sweep"
      #expect(syncsim(["sweep", Self.pushDropSweep, "--out", sweep]).code == 0)
      let byValue = syncsim(["compare", sweep, "--baseline-point", "push.dropProbability=0"])
      #expect(byValue.code == 0, "\(byValue.err)")
      let lines = byValue.out.split(separator: "\n").map(String.init)
      #expect(lines.first == "B: each point of \(sweep); A: its baseline point 0 (push.dropProbability=0)")
      // 3 other points: a quarter of pushes dropped or more makes the p95 worse at each.
      // Each point named by its number, its factors listed once above the table (issue 73).
      for (point, factors) in [("1", "push.dropProbability=0.25"), ("2", "push.dropProbability=0.5"), ("3", "push.dropProbability=0.75")] {
        #expect(lines.contains("point \(point): \(factors)"), "\(byValue.out)")
        let p95 = try #require(lines.first { $0.hasPrefix(point + " ") && $0.contains(" latency.p95 ") }, "\(point)")
        #expect(p95.contains(" worse "), "\(p95)")
      }
      #expect(!lines.contains { $0.hasPrefix("0 ") && $0.contains(" latency.") })
      // The number names the same point; the gate fails on the drops.
      let byNumber = syncsim(["compare", sweep, "--baseline-point", "0", "--fail-on", "worse"])
      #expect(byNumber.code == 1 && byNumber.out == byValue.out)
      #expect(byNumber.err.contains("latency.p50 at point 1 (worse)"), "\(byNumber.err)")
      // Against the worst point, the others are better: no worse verdict, the gate passes.
      let fromWorst = syncsim(["compare", sweep, "--baseline-point", "3", "--fail-on", "worse"])
      #expect(fromWorst.code == 0 && fromWorst.out.contains(" better "), "\(fromWorst.err)")
    }
  }

  @Test func aBaselineThatNamesNoPointOrSeveralIsRefused() {
    withTemporaryDirectory { directory in
      let sweep = directory + "/sweep"
      #expect(syncsim(["sweep", Self.pushDropSweep, "--seeds", "1..2", "--out", sweep]).code == 0)
      let none = syncsim(["compare", sweep, "--baseline-point", "push.dropProbability=0.3"])
      #expect(none.code == 64 && none.err.contains("no point has these factor values"), "\(none.err)")
      let number = syncsim(["compare", sweep, "--baseline-point", "9"])
      #expect(number.code == 64 && number.err.contains("no point 9 (the sweep's points are 0...3)"), "\(number.err)")
      let two = syncsim(["compare", sweep, sweep, "--baseline-point", "0"])
      #expect(two.code == 64 && two.err.contains("takes one sweep folder"), "\(two.err)")
      let run = directory + "/run"
      #expect(syncsim(["run", packageRoot + "/Scenarios/quickstart.json", "--out", run]).code == 0)
      let onRun = syncsim(["compare", run, "--baseline-point", "0"])
      #expect(onRun.code == 65 && onRun.err.contains("no readable sweep.csv with factors"), "\(onRun.err)")
    }
  }
}
