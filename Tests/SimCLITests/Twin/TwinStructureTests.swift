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

  /// The held-back summaries inside the twin's 90 % interval, and those judged.
  static func heldBack(_ summaries: ResultTable) -> (covered: Int, judged: Int) {
    let held = summaries.rows.filter { $0["part"] == "holdout" && $0["covered"] != "" }
    return (held.filter { $0["covered"] == "1" }.count, held.count)
  }

  /// At least 90 % of the held-back summaries inside (issue 78, item 7), of six or more.
  static func holdsBackNinetyPercent(_ summaries: ResultTable, _ out: String) {
    let (covered, judged) = heldBack(summaries)
    #expect(judged >= 6, "\(out)")
    #expect(covered * 10 >= judged * 9, "\(covered) of \(judged) held back\n\(out)")
  }

  /// An identified parameter's interval must hold its truth.
  static func holds(_ table: ResultTable, _ name: String, _ truth: Double) throws {
    let parameter = try row(table, name)
    guard parameter["identified"] == "1" else { return }
    #expect(parameter.number("low")! <= truth * 1.001 && truth <= parameter.number("high")! * 1.001, "\(name) \(parameter)")
  }

  /// The four shapes of the tests below, with the fit's particles and worlds for each.
  static var shapes: [(name: String, truth: IndependentLogGenerator.Truth, particles: Int, worlds: Int)] {
    var open = IndependentLogGenerator.Truth()
    open.budgetPerHour = nil
    var budget = IndependentLogGenerator.Truth()
    budget.budgetPerHour = 2
    budget.saveRatePerHour = 12
    budget.days = 3
    var lowPower = IndependentLogGenerator.Truth()
    lowPower.frontStarts = [20, 11]
    lowPower.lowPowerNights = (from: 22, to: 7)
    lowPower.saveRatePerHour = 10
    lowPower.days = 3
    var bulk = IndependentLogGenerator.Truth()
    bulk.burst = (saves: 120, seconds: 600, perDay: 2)
    bulk.refuseAbovePerMinute = 6
    bulk.exportDelay = (0.2, 0.3)
    bulk.days = 1
    return [
      ("no budget", open, 40, 600), ("budget 2/h", budget, 50, 900), ("Low Power Mode nights", lowPower, 40, 600),
      ("bulk importer", bulk, 30, 300),
    ]
  }

  /// Each shape over the seeds `SYNCSIM_TWIN_SEEDS` names (`1,2,3`): what it holds back, printed,
  /// and at least 90 % over each shape's seeds. Off unless asked for: 4 fits a seed.
  @Test(.enabled(if: ProcessInfo.processInfo.environment["SYNCSIM_TWIN_SEEDS"] != nil))
  func everyShapeHoldsBackNinetyPercentOverSeeds() throws {
    let seeds = (ProcessInfo.processInfo.environment["SYNCSIM_TWIN_SEEDS"] ?? "").split(separator: ",")
      .compactMap { UInt64($0.trimmingCharacters(in: .whitespaces)) }
    #expect(!seeds.isEmpty)
    for shape in Self.shapes {
      var covered = 0
      var judged = 0
      for seed in seeds {
        try withTemporaryDirectory { folder in
          let (_, summaries, _) = try Self.fit(shape.truth, seed: seed, folder: folder, particles: shape.particles, worlds: shape.worlds)
          let held = Self.heldBack(summaries)
          let missed = summaries.rows.filter { $0["part"] == "holdout" && $0["covered"] == "0" }.compactMap { $0["summary"] }
          print(
            "twin shape \(shape.name) seed \(seed): \(held.covered) of \(held.judged) held back"
              + (missed.isEmpty ? "" : " (outside: \(missed.joined(separator: ", ")))"))
          covered += held.covered
          judged += held.judged
        }
      }
      print("twin shape \(shape.name): \(covered) of \(judged) held back over \(seeds.count) seeds")
      #expect(covered * 10 >= judged * 9, "\(shape.name): \(covered) of \(judged)")
    }
  }

  /// Taken with the debugger attached: no budget holds a push, so nearly every commit reaches
  /// the other device by push. The fitted budget lets them through, and commit → push (the
  /// fan-out and the delivery: the log has no apsd lines) holds 2 s.
  @Test func aLogWithoutABudgetIsFittedWithoutOne() throws {
    try withTemporaryDirectory { folder in
      var truth = IndependentLogGenerator.Truth()
      truth.budgetPerHour = nil
      let (fit, summaries, out) = try Self.fit(truth, seed: 7, folder: folder)
      let share = try Self.row(summaries, "pushShare")
      #expect(share.number("observed")! > 0.8)
      #expect(!out.contains("misfit       share of (commit, other device) pairs"))
      try Self.holds(fit, "push.fanoutLatency + push.deliveryLatency", 2.0)
      // No budget binds: whatever the interval, it lies above the pushes the log saw.
      let budget = try Self.row(fit, "push.backgroundBudgetPerHour")
      if budget["identified"] == "1" { #expect(budget.number("low")! >= 3) }
      Self.holdsBackNinetyPercent(summaries, out)
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
      Self.holdsBackNinetyPercent(summaries, out)
    }
  }

  /// An iPad in Low Power Mode at night, saved to from the iPhone in the evening: its pushes
  /// in the background wait for the morning. The power lines replay the mode in the twin, and
  /// commit → push is still the day's.
  @Test func lowPowerNightsHoldTheIPadsPushesUntilMorning() throws {
    try withTemporaryDirectory { folder in
      var truth = IndependentLogGenerator.Truth()
      truth.frontStarts = [20, 11]
      truth.lowPowerNights = (from: 22, to: 7)
      truth.saveRatePerHour = 10
      truth.days = 3
      let (fit, summaries, out) = try Self.fit(truth, seed: 3, folder: folder)
      try Self.holds(fit, "push.fanoutLatency + push.deliveryLatency", 2.0)
      Self.holdsBackNinetyPercent(summaries, out)
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
