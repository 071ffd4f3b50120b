import Foundation
import SimMetrics
import SimScenario
import SimTestSupport
import Testing

/// A saved, uncommitted row names what holds it (issue 34 item 3): the policy blocking its
/// store's export, with that policy's time in its cause columns, and the identity holding.
@Suite struct PendingRowCauseTests {
  static let scenario = #"""
    {"version": 1, "name": "bulk", "duration": "2h",
     "devices": [{"name": "iphone"}, {"name": "ipad"}],
     "timeline": [{"at": "60s", "devices": "iphone",
                   "action": {"bulkInsert": {"count": 2000, "saves": "each", "over": "4h"}}}]}
    """#

  @Test func pendingRowsBehindTheRateLimitNameItAndCarryItsTime() throws {
    let run = try WorldRun(Self.scenario)
    #expect(run.code == 0)
    let table = try run.table("latency.csv")
    let number = { (row: ResultTable.Row, name: String) in row.number(name) ?? 0 }
    let pending = table.rows.filter { $0["outcome"] == "pending" }
    #expect(pending.count > 300)
    #expect(pending.allSatisfy { $0["stuckStage"] == "exportSchedule" && $0["stuckCause"] == "rateLimit" })
    let schedule = pending.map { number($0, "exportSchedule") }.reduce(0, +)
    let rateLimit = pending.map { number($0, "exportBlocked.rateLimit") }.reduce(0, +)
    #expect(rateLimit / schedule > 0.999, "\(rateLimit) of \(schedule) s under rateLimit")
    // The export identity on every row, pending ones included.
    let causes = table.columns.filter { $0.hasPrefix("exportBlocked.") }
    for row in table.rows where row["exportSchedule"] != "" {
      let sum = causes.map { number(row, $0) }.reduce(0, +) + number(row, "exportDecision")
      #expect(abs(sum - number(row, "exportSchedule")) < 1e-6)
    }
  }

  @Test func aDisabledStoresPendingRowsNameTheDisabledStore() throws {
    let run = try WorldRun(library: "toggle-sync-broken")
    let pending = try run.table("latency.csv").rows.filter { $0["outcome"] == "pending" }
    #expect(!pending.isEmpty)
    #expect(pending.allSatisfy { $0["stuckCause"] == "storeDisabled" })
  }
}

/// The audit `check` and the swarm run: every row's identities, to the nanosecond.
@Suite struct RowAuditTests {
  @Test func theAuditChecksEveryRowOfEveryPart() throws {
    let text = try String(contentsOfFile: packageRoot + "/Scenarios/quickstart.json", encoding: .utf8)
    let scenario = try ScenarioDecoder.decode(Array(text.utf8), file: "quickstart.json").0
    let audit = try #require(ScenarioRunner.run(scenario, audit: true).audit)
    // 118 rows (118 writes × the one other device), all visible: a stage check each, and an
    // export, a notify, a no-push state (issue 72), an import and a transfer check; and the
    // one part's summary tally against its rows.
    #expect(audit.checks == 118 * 6 + 1)
    #expect(audit.failures.isEmpty)
    #expect(ScenarioRunner.run(scenario).audit == nil)
  }
}
