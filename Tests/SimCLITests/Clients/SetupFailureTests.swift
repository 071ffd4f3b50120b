import Foundation
import SimMetrics
import SimTestSupport
import Testing

/// Retry-after by error kind (issue 36 item 4): a setup that fails as the CloudKit daemon answers
/// serviceUnavailable is tried again after its own 5 s retry-after, not the throttle's 37 s median.
@Suite struct SetupFailureTests {
  @Test func aFailedSetupIsTriedAgainAfterItsFiveSecondRetryAfter() throws {
    try withTemporaryDirectory { directory in
      let file = directory + "/setup.json"
      try #"""
      {"version": 1, "name": "setup", "duration": "10m", "devices": [{"name": "iphone"}],
       "cloud": {"setupFailureProbability": 0.5}}
      """#.write(toFile: file, atomically: true, encoding: .utf8)
      var failures: [Int] = []
      for seed in 1...4 {
        let out = directory + "/\(seed)"
        #expect(syncsim("run", file, "--seed", String(seed), "--out", out).code == 0)
        let summary = try #require(CSVTable.parse(try String(contentsOfFile: out + "/summary.csv", encoding: .utf8)))
        let activities = try #require(
          CSVTable.parse(try String(contentsOfFile: out + "/activities.csv", encoding: .utf8)))
        let errors = Int(summary.rows[0][summary.columns.firstIndex(of: "errors.serviceUnavailable")!])!
        let requested = Double(activities.rows[0][activities.columns.firstIndex(of: "requestedAt")!])!
        // Each failure costs its 5 s retry-after and a new 0.8 s setup before the first import.
        #expect(
          abs(requested - (0.8 + Double(errors) * 5.8)) < 1e-6, "seed \(seed): \(errors) failures, \(requested) s")
        if errors > 0 { #expect(summary.rows[0][summary.columns.firstIndex(of: "retryAfter.mean")!] == "5.000000000") }
        failures.append(errors)
      }
      #expect(failures == [3, 0, 1, 1])
    }
  }
}
