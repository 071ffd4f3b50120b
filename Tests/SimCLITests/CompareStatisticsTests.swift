import Foundation
import SimExperiments
import SimTestSupport
import Testing

/// `compare` does not mislead: multiple-comparison correction, "same" for equal values, Wilson
/// intervals for proportions, and refusal of unrelated experiments (part of issue 20).
@Suite struct CompareStatisticsTests {
  @Test func pValuesHolmAndWilsonHaveTheirTextbookValues() {
    // t = 2.0 with 10 degrees of freedom: two-sided p = 0.0734.
    #expect(abs(Statistics.studentTwoSided(2.0, degreesOfFreedom: 10) - 0.07339) < 1e-4)
    #expect(abs(Statistics.studentTwoSided(0, degreesOfFreedom: 5) - 1) < 1e-12)
    #expect(Statistics.holm([0.01, 0.04, 0.03, 0.5]) == [0.04, 0.09, 0.09, 0.5])
    for (successes, n) in [(0.0, 5), (5.0, 5), (2.0, 10), (1.0, 1)] {
      let w = Statistics.wilson(successes: successes, n: n)!
      #expect(w.low >= 0 && w.high <= 1 && w.low <= successes / Double(n) && successes / Double(n) <= w.high)
    }
    #expect(Statistics.welchPValue([1, 1, 1], [1, 1, 1]) == 1)
  }

  @Test func aSameSetupComparisonFindsNothingAndUnrelatedExperimentsAreRefused() throws {
    try withTemporaryDirectory { directory in
      let quickstart = packageRoot + "/Scenarios/quickstart.json"
      #expect(syncsim(["sweep", quickstart, "--seeds", "1..8", "--jobs", "2", "--out", directory + "/a"]).code == 0)
      #expect(syncsim(["sweep", quickstart, "--seeds", "9..16", "--jobs", "2", "--out", directory + "/b"]).code == 0)
      let result = syncsim(["compare", directory + "/a", directory + "/b", "--all"])
      #expect(result.code == 0)
      #expect(result.out.contains("Holm-adjusted"))
      #expect(!result.out.contains(" better") && !result.out.contains(" worse"), "\(result.out)")
      // Metrics equal on both sides (no throttle: zero errors) are "same", never a change.
      #expect(result.out.split(separator: "\n").contains { $0.contains("errors.zoneBusy") && $0.hasSuffix("same") })
      let converged = result.out.split(separator: "\n").first { $0.contains(" converged ") }
      #expect(
        converged?.contains("A 1 [") == true || converged?.contains("A 0") == true, "\(String(describing: converged))")
      let sweepB = packageRoot + "/Scenarios/push-drop-sweep.json"
      #expect(syncsim(["sweep", sweepB, "--seeds", "1..2", "--out", directory + "/c"]).code == 0)
      let unrelated = syncsim(["compare", directory + "/a", directory + "/c"])
      #expect(unrelated.code == 65)
      #expect(unrelated.err.contains("different experiments"))
      #expect(syncsim(["compare", directory + "/a", directory + "/c", "--force"]).code == 0)
    }
  }
}
