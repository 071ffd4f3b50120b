import Foundation
import SimTestSupport
import Testing

@testable import SimTwin

/// The twin fitted to logs SyncSim did not write (issue 78): `IndependentLogGenerator`'s apps
/// with known truth, fitted from the base a developer writes (two devices, nothing else).
@Suite(.serialized) struct TwinStructureTests {
  /// Fits the generator's log; returns fit.csv, summaries.csv and what `fit` printed.
  static func fit(_ truth: IndependentLogGenerator.Truth, seed: UInt64, folder: String, particles: Int = 40, worlds: Int = 600)
    throws -> (fit: ResultTable, summaries: ResultTable, out: String)
  {
    var generator = IndependentLogGenerator(truth: truth, seed: seed)
    try generator.text().write(toFile: folder + "/app.ndjson", atomically: true, encoding: .utf8)
    try IndependentLogGenerator.base.write(toFile: folder + "/base.json", atomically: true, encoding: .utf8)
    let fit = syncsim(
      "fit", folder + "/app.ndjson", "--scenario", folder + "/base.json", "--out", folder + "/fit", "--particles",
      String(particles), "--max-worlds", String(worlds), "--jobs", "2")
    #expect(fit.code == 0, "\(fit.err)")

    return (try ResultTable(path: folder + "/fit/fit.csv"), try ResultTable(path: folder + "/fit/summaries.csv"), fit.out)
  }

  static func row(_ table: ResultTable, _ name: String) throws -> ResultTable.Row {
    try #require(table.rows.first { $0["parameter"] == name || $0["summary"] == name })
  }

  /// An identified parameter's interval must hold its truth.
  static func holds(_ table: ResultTable, _ name: String, _ truth: Double) throws {
    let parameter = try row(table, name)
    guard parameter["identified"] == "1" else { return }
    #expect(parameter.number("low")! <= truth * 1.001 && truth <= parameter.number("high")! * 1.001, "\(name) \(parameter)")
  }

  /// Taken with the debugger attached: no budget holds a push, so nearly every commit reaches
  /// the other device by push. The fitted budget lets them through, and the fan-out holds 2 s.
  @Test func aLogWithoutABudgetIsFittedWithoutOne() throws {
    try withTemporaryDirectory { folder in
      var truth = IndependentLogGenerator.Truth()
      truth.budgetPerHour = nil
      let (fit, summaries, out) = try Self.fit(truth, seed: 7, folder: folder)
      let share = try Self.row(summaries, "pushShare")
      #expect(share.number("observed")! > 0.8)
      #expect(!out.contains("misfit       share of (commit, other device) pairs"))
      try Self.holds(fit, "push.fanoutLatency", 2.0)
      // No budget binds: whatever the interval, it lies above the pushes the log saw.
      let budget = try Self.row(fit, "push.backgroundBudgetPerHour")
      if budget["identified"] == "1" { #expect(budget.number("low")! >= 3) }
      let held = summaries.rows.filter { $0["part"] == "holdout" && $0["covered"] != "" }
      #expect(held.count >= 6)
      #expect(held.filter { $0["covered"] == "1" }.count * 10 >= held.count * 8, "\(held)")
    }
  }

  /// A budget of 2 wakes an hour holds most of the iPhone's pushes to the iPad in the
  /// background: the fitted budget is low, where the debugger's log has it high.
  @Test func aBindingBudgetIsFittedLow() throws {
    try withTemporaryDirectory { folder in
      var truth = IndependentLogGenerator.Truth()
      truth.budgetPerHour = 2
      truth.saveRatePerHour = 12
      truth.days = 3
      let (fit, summaries, out) = try Self.fit(truth, seed: 5, folder: folder, particles: 50, worlds: 900)
      let share = try Self.row(summaries, "pushShare")
      #expect(share.number("observed")! < 0.7, "\(out)")
      let budget = try Self.row(fit, "push.backgroundBudgetPerHour")
      #expect(budget["identified"] == "1", "\(out)")
      try Self.holds(fit, "push.backgroundBudgetPerHour", 2)
    }
  }

  /// An iPad in Low Power Mode at night, saved to from the iPhone in the evening: its pushes
  /// in the background wait for the morning. The power lines replay the mode in the twin, and
  /// the fan-out is still the day's.
  @Test func lowPowerNightsHoldTheIPadsPushesUntilMorning() throws {
    try withTemporaryDirectory { folder in
      var truth = IndependentLogGenerator.Truth()
      truth.frontStarts = [20, 11]
      truth.lowPowerNights = (from: 22, to: 7)
      truth.saveRatePerHour = 10
      truth.days = 3
      let (fit, summaries, out) = try Self.fit(truth, seed: 3, folder: folder)
      try Self.holds(fit, "push.fanoutLatency", 2.0)
      let held = summaries.rows.filter { $0["part"] == "holdout" && $0["covered"] != "" }
      #expect(held.count >= 6, "\(out)")
      #expect(held.filter { $0["covered"] == "1" }.count * 10 >= held.count * 7, "\(held)\n\(out)")
    }
  }

  /// A bulk importer whose exports the server refuses with CKError 7 and a 60 s retry-after:
  /// the retry-after is measured from the log, not searched for, and the device's throttle is
  /// fitted.
  @Test func aBulkImportersRetryAfterIsMeasuredFromItsRefusals() throws {
    try withTemporaryDirectory { folder in
      var truth = IndependentLogGenerator.Truth()
      truth.burst = (saves: 120, seconds: 600, perDay: 2)
      truth.refuseAbovePerMinute = 6
      truth.exportDelay = (0.2, 0.3)
      truth.days = 1
      let (fit, _, out) = try Self.fit(truth, seed: 11, folder: folder, particles: 30, worlds: 300)
      let measured = try Self.row(fit, "cloud.deviceThrottleRetryAfter")
      #expect(measured["kind"] == "measured")
      #expect(abs(measured.number("estimate")! - 60) < 6, "\(measured)")
      #expect(fit.rows.contains { $0["parameter"] == "cloud.deviceThrottleRequestsPerMinute" })
      #expect(out.contains("cloud.deviceThrottleRetryAfter"))
    }
  }
}
