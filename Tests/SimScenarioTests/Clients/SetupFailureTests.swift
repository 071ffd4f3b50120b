import Foundation
import SimMetrics
import SimTestSupport
import Testing

/// Retry-after by error kind (issue 36 item 4): a setup that fails as the CloudKit daemon answers
/// serviceUnavailable is tried again after its own 5 s retry-after, not the throttle's 37 s median.
@Suite struct SetupFailureTests {
  @Test func aFailedSetupIsTriedAgainAfterItsFiveSecondRetryAfter() throws {
    let scenario = #"""
      {"version": 1, "name": "setup", "duration": "10m", "devices": [{"name": "iphone"}],
       "cloud": {"setupFailureProbability": 0.5}}
      """#
    var failures: [Int] = []
    for seed in 1...4 {
      let run = try WorldRun(scenario, seed: UInt64(seed))
      #expect(run.code == 0)
      let errors = Int(try #require(try run.summary("errors.serviceUnavailable")))
      let requested = try #require(try run.table("activities.csv").rows.first?.number("requestedAt"))
      // Each failure costs its 5 s retry-after and a new 0.8 s setup before the first import.
      #expect(abs(requested - (0.8 + Double(errors) * 5.8)) < 1e-6, "seed \(seed): \(errors) failures, \(requested) s")
      if errors > 0 { #expect(try run.table("summary.csv").rows[0]["retryAfter.mean"] == "5.000000000") }
      failures.append(errors)
    }
    #expect(failures == [3, 0, 1, 1])
  }
}
