import Foundation
import SimExperiments
import SimMetrics
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
    withTemporaryDirectory { directory in
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

/// `merge` refuses shards that do not make one sweep (part of issue 20).
@Suite struct MergeRefusalTests {
  @Test func shardsOfAnotherScenarioOrSeedPlanAreRefused() throws {
    try withTemporaryDirectory { directory in
      let quickstart = packageRoot + "/Scenarios/quickstart.json"
      let other = directory + "/other.json"
      let text = try String(contentsOfFile: quickstart, encoding: .utf8)
      try text.replacingOccurrences(of: "\"editsPerHour\": 10", with: "\"editsPerHour\": 11")
        .write(toFile: other, atomically: true, encoding: .utf8)
      func sweep(_ file: String, _ seeds: String, _ shard: String, _ out: String) -> Int32 {
        syncsim(["sweep", file, "--seeds", seeds, "--shard", shard, "--out", directory + "/" + out]).code
      }
      #expect(sweep(quickstart, "1..4", "1/2", "a1") == 0)
      #expect(sweep(quickstart, "1..4", "2/2", "a2") == 0)
      #expect(sweep(other, "1..4", "2/2", "b2") == 0)
      #expect(sweep(quickstart, "5..8", "2/2", "c2") == 0)
      let good = syncsim(["merge", directory + "/a1", directory + "/a2", "--out", directory + "/m"])
      #expect(good.code == 0, "\(good.err)")
      let scenario = syncsim(["merge", directory + "/a1", directory + "/b2", "--out", directory + "/x"])
      #expect(
        scenario.code == 65 && scenario.err.contains("shard of a different sweep") && scenario.err.contains("hash"))
      let seeds = syncsim(["merge", directory + "/a1", directory + "/c2", "--out", directory + "/y"])
      #expect(seeds.code == 65 && seeds.err.contains("seeds 1,2,3,4 vs seeds 5,6,7,8"), "\(seeds.err)")
      #expect(!FileManager.default.fileExists(atPath: directory + "/x"))
    }
  }
}

/// `compare` gates CI (issue 38, item 4): `--fail-on` exits 1 on a chosen verdict and 0 on noise,
/// every row has its change in % and unit, and `--format` writes CSV, JSON or Markdown.
@Suite struct CompareGateTests {
  @Test func failOnWorseExitsOneOnARegressionAndZeroOnNoise() throws {
    try withTemporaryDirectory { directory in
      let quickstart = packageRoot + "/Scenarios/quickstart.json"
      for (name, drop, seeds) in [("a", "0", "1..8"), ("b", "0", "9..16"), ("c", "0.6", "9..16")] {
        let made = syncsim([
          "sweep", quickstart, "--set", "push.dropProbability=\(drop)", "--seeds", seeds, "--out",
          directory + "/" + name,
        ])
        #expect(made.code == 0, "\(made.err)")
      }
      let noise = syncsim(["compare", directory + "/a", directory + "/b", "--fail-on", "worse"])
      #expect(noise.code == 0, "same setup, other seeds: no verdict\n\(noise.out)")
      let regression = syncsim(["compare", directory + "/a", directory + "/c", "--fail-on", "worse"])
      #expect(regression.code == 1)
      #expect(regression.err.contains("latency.mean at point 0 (worse)"), "\(regression.err)")
      let line = try #require(regression.out.split(separator: "\n").first { $0.contains(" latency.mean ") })
      #expect(line.contains("(s)") && line.contains("worse  +"), "\(line)")
      // Dropped pushes leave rows never visible: the latency beside it says it is a lower bound.
      #expect(line.hasSuffix("(a lower bound: rows never visible)"), "\(line)")
      #expect(syncsim(["compare", directory + "/a", directory + "/c", "--fail-on", "better"]).code == 0)

      let csv = syncsim(["compare", directory + "/a", directory + "/c", "--format", "csv"]).out
      let table = try #require(CSVTable.parse(csv))
      #expect(
        table.columns == [
          "point", "metric", "unit", "meanA", "meanB", "difference", "changePercent", "p", "pHolm", "verdict",
        ])
      let mean = try #require(table.rows.first { $0[1] == "latency.mean" })
      #expect(mean[2] == "s" && mean[9] == "worse")
      let (a, b) = (try #require(Double(mean[3])), try #require(Double(mean[4])))
      #expect(abs(try #require(Double(mean[6])) - (b - a) / a * 100) < 0.01)
      let json = syncsim(["compare", directory + "/a", directory + "/c", "--format", "json"]).out
      let parsed = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
      #expect(parsed.count == table.rows.count)
      let markdown = syncsim(["compare", directory + "/a", directory + "/c", "--format", "markdown"]).out
      #expect(markdown.hasPrefix("| point | metric | unit |"))
      #expect(markdown.split(separator: "\n").count == table.rows.count + 2)
      #expect(syncsim(["compare", directory + "/a", directory + "/c", "--fail-on", "wrose"]).code == 64)
    }
  }
}
