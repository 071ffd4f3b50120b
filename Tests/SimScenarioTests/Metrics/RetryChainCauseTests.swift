import Foundation
import SimMetrics
import SimTestSupport
import Testing

/// A retry chain's every link is the server's wait (issue 34 item 1): a write exported during a
/// forced throttle with a constant 7-minute retry-after goes through five retries, and its row
/// books their waits to `exportBlocked.serverThrottle`, not to `exportDecision`.
@Suite struct RetryChainCauseTests {
  static let scenario = #"""
    {"version": 1, "name": "chain", "duration": "1h",
     "devices": [{"name": "iphone"}, {"name": "ipad"}],
     "cloud": {"throttle": {"requestsPerSecond": 1000, "retryAfter": {"constant": "7m"}}},
     "timeline": [
       {"at": "60s", "devices": "all", "action": {"throttle": true}},
       {"at": "90s", "devices": "iphone", "action": {"edit": "insert"}},
       {"at": "31m", "devices": "all", "action": {"throttle": false}}]}
    """#

  @Test func everyLinkOfARetryChainIsBookedToTheThrottle() throws {
    let run = try WorldRun(Self.scenario)
    #expect(run.code == 0)
    let waits = try run.table("activities.csv").rows.filter { $0["kind"] == "export" }
      .compactMap { $0.number("blocked.serverThrottle") }.filter { $0 > 0 }
    #expect(waits.count == 5, "five retries, each held by the retry-after: \(waits)")
    let latency = try run.table("latency.csv")
    let row = try #require(latency.rows.first)
    let value = { (name: String) in row.number(name)! }
    let schedule = value("exportSchedule")
    let throttle = value("exportBlocked.serverThrottle")
    // Every link's wait, as activities.csv has them (the last one's until the row's export
    // started), and at least 99 % of the stage.
    #expect(abs(throttle - waits.reduce(0, +)) < 1, "\(throttle) against \(waits.reduce(0, +))")
    #expect(throttle / schedule >= 0.99, "\(throttle) of \(schedule) s")
    #expect(value("exportDecision") < 0.01 * schedule)
    // The identity: the stage is its causes and holds plus decision.
    let causes = latency.columns.filter { $0.hasPrefix("exportBlocked.") || $0.hasPrefix("exportHeld.") }.map(value)
      .reduce(0, +)
    #expect(abs(causes + value("exportDecision") - schedule) < 1e-6)
  }
}
