import Foundation
import SimTestSupport
import Testing

@testable import SimScenario

/// Issue 53, item 13 (in part): limits named where they are met. A seed range past the sweep's
/// limit says so and names it; a start date that no calendar has is refused.
@Suite struct InputBoundsRound4Tests {
  @Test func aSeedRangePastTheLimitNamesTheLimit() {
    let result = syncsim(["sweep", packageRoot + "/Scenarios/quickstart.json", "--seeds", "1..1000000000", "--out", "/tmp/never"])
    #expect(result.code == 64)
    #expect(result.err.contains("1000000000 seeds, over the limit of 100000"), "\(result.err)")
    #expect(SweepPlan.parseSeeds("1..100000")?.count == 100_000)
    #expect(SweepPlan.parseSeeds("1..100001") == nil)
  }

  @Test func impossibleDatesAreRefused() {
    for (date, valid) in [
      ("2026-02-30", false), ("2026-13-01", false), ("2026-04-31", false), ("2100-02-29", false), ("26-03-02", false),
      ("2028-02-29", true), ("2000-02-29", true), ("2026-12-31", true),
    ] {
      #expect(ScenarioBuilder.isCalendarDate(date) == valid, "\(date)")
    }
  }

  /// A public store after a private one, with an account per device: the estimate took each
  /// device's first store (private, no other device in its account: 0 rows, 2 kB of files); it
  /// now takes the store the workload writes. Measured: 1,110,447 rows, 640 MB of latency.csv.
  @Test func theEstimateCountsTheRowsOfTheStoreTheWorkloadWrites() throws {
    let text = """
      {"version": 1, "name": "pubsecond", "seed": 1, "duration": "1d", "environment": "development",
       "devices": [{"name": "d", "count": 40, "account": "perDevice", "stores": ["private", "public"]}],
       "workloads": [{"devices": "all", "editsPerHour": 30, "store": 1}], "outputs": ["summary", "latency"]}
      """
    let scenario = try ScenarioDecoder.decode(Array(text.utf8), file: "p.json").0
    let estimate = RunEstimate(scenario)
    #expect(estimate.rows > 1_000_000 && estimate.rows < 1_250_000, "\(estimate.rows)")
    #expect(estimate.outputBytes > 500e6, "\(estimate.outputBytes)")
  }
}
