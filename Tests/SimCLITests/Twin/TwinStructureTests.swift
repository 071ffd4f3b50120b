import Foundation
import SimTestSupport
import Testing

@testable import SimTwin

/// The twin fitted to logs SyncSim did not write (issue 78): `IndependentLogGenerator`'s apps
/// with known truth, fitted from the base a developer writes (two devices, nothing else).
@Suite struct TwinStructureTests {
  /// Fits the log of `shape`'s app at `seed`; returns fit.csv, summaries.csv and what `fit` printed.
  static func fit(_ shape: Shape, seed: UInt64, folder: String) throws -> (fit: ResultTable, summaries: ResultTable, out: String) {
    var generator = IndependentLogGenerator(truth: shape.truth, seed: seed)
    try generator.text().write(toFile: folder + "/app.ndjson", atomically: true, encoding: .utf8)
    try IndependentLogGenerator.base.write(toFile: folder + "/base.json", atomically: true, encoding: .utf8)
    let fit = syncsim(
      "fit", folder + "/app.ndjson", "--scenario", folder + "/base.json", "--out", folder + "/fit", "--particles",
      String(shape.particles), "--max-worlds", String(shape.worlds), "--jobs", "2")
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

  /// An app of the generator, with the fit's particles and worlds for it.
  struct Shape {
    var name: String
    var truth = IndependentLogGenerator.Truth()
    var particles = 40
    var worlds = 600
  }

  /// Taken with the debugger attached: no budget holds a push.
  static var noBudget: Shape {
    var shape = Shape(name: "no budget")
    shape.truth.budgetPerHour = nil
    return shape
  }

  /// A budget of 2 background pushes an hour.
  static var bindingBudget: Shape {
    var shape = Shape(name: "budget 2/h", particles: 50, worlds: 900)
    shape.truth.budgetPerHour = 2
    shape.truth.saveRatePerHour = 12
    shape.truth.days = 3
    return shape
  }

  /// The iPhone saving in the evening, the iPad in Low Power Mode at night.
  static var lowPowerNights: Shape {
    var shape = Shape(name: "Low Power Mode nights")
    shape.truth.frontStarts = [20, 11]
    shape.truth.lowPowerNights = (from: 22, to: 7)
    shape.truth.saveRatePerHour = 10
    shape.truth.days = 3
    return shape
  }

  /// Two bursts of 120 saves a day, exports refused with CKError 7 past 6 a minute.
  static var bulkImporter: Shape {
    var shape = Shape(name: "bulk importer", particles: 30, worlds: 300)
    shape.truth.burst = (saves: 120, seconds: 600, perDay: 2)
    shape.truth.refuseAbovePerMinute = 6
    shape.truth.exportDelay = (0.2, 0.3)
    shape.truth.days = 1
    return shape
  }

  static var shapes: [Shape] { [noBudget, bindingBudget, lowPowerNights, bulkImporter] }

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
          let (_, summaries, _) = try Self.fit(shape, seed: seed, folder: folder)
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
  @Test(.enabled(if: longTestsEnabled, "a long test: SYNCSIM_LONG_TESTS=1 swift test runs it, as CI does")) func aLogWithoutABudgetIsFittedWithoutOne() throws {
    try withTemporaryDirectory { folder in
      let (fit, summaries, out) = try Self.fit(Self.noBudget, seed: 7, folder: folder)
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
  @Test(.enabled(if: longTestsEnabled, "a long test: SYNCSIM_LONG_TESTS=1 swift test runs it, as CI does")) func aBindingBudgetIsFittedLow() throws {
    try withTemporaryDirectory { folder in
      let (fit, summaries, out) = try Self.fit(Self.bindingBudget, seed: 5, folder: folder)
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
  @Test(.enabled(if: longTestsEnabled, "a long test: SYNCSIM_LONG_TESTS=1 swift test runs it, as CI does")) func lowPowerNightsHoldTheIPadsPushesUntilMorning() throws {
    try withTemporaryDirectory { folder in
      let (fit, summaries, out) = try Self.fit(Self.lowPowerNights, seed: 3, folder: folder)
      try Self.holds(fit, "push.fanoutLatency + push.deliveryLatency", 2.0)
      Self.holdsBackNinetyPercent(summaries, out)
    }
  }

  /// A bulk importer whose exports the server refuses with CKError 7 and a 60 s retry-after:
  /// the retry-after is measured from the log, not searched for, and the device's throttle is
  /// fitted.
  @Test(.enabled(if: longTestsEnabled, "a long test: SYNCSIM_LONG_TESTS=1 swift test runs it, as CI does")) func aBulkImportersRetryAfterIsMeasuredFromItsRefusals() throws {
    try withTemporaryDirectory { folder in
      let (fit, _, out) = try Self.fit(Self.bulkImporter, seed: 11, folder: folder)
      let measured = try Self.row(fit, "cloud.deviceThrottleRetryAfter")
      #expect(measured["kind"] == "measured")
      #expect(abs(measured.number("estimate")! - 60) < 6, "\(measured)")
      #expect(fit.rows.contains { $0["parameter"] == "cloud.deviceThrottleRequestsPerMinute" })
      #expect(out.contains("cloud.deviceThrottleRetryAfter"))
    }
  }
}
