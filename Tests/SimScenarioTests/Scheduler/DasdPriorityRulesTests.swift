import Foundation
import SimTestSupport
import Testing

@testable import SimKernel
@testable import SimModel

/// dasd's battery and Low Power Mode rules by priority, from decompiled iOS 26.1 dasd
/// (`_DASBatteryLevelPolicy`, `_DASLowPowerModePolicy`), beside WWDC20 10063's one threshold.
@Suite struct DasdPriorityRulesTests {
  static func context(battery: Double, lowPower: Bool = false, requestedAt: Double = 0, now: Double = 0) -> PolicyContext {
    PolicyContext(
      now: SimTime(SimDuration(seconds: now)), kind: .export, requestedAt: SimTime(SimDuration(seconds: requestedAt)),
      launchedForPush: false, runningInGroup: 0, recentRuns: [], batteryPercent: battery, pluggedIn: false,
      lowPowerMode: lowPower, online: true, devicesInAccount: 2)
  }

  @Test func batteryThresholdsByPriorityAgainstWWDC20() {
    var wwdc = CriticalBatteryPolicy()
    var byPriority = CriticalBatteryPolicy()
    byPriority.byPriority = true
    // WWDC20: below 20 %, background sync waits. Decompiled: utility (sync) waits at 9 % and below.
    for (battery, wwdcRefuses, priorityRefuses) in [(25.0, false, false), (15, true, false), (10, true, false), (9, true, true), (8, true, true)] {
      #expect((wwdc.evaluate(Self.context(battery: battery)) != .proceed) == wwdcRefuses, "\(battery)")
      #expect((byPriority.evaluate(Self.context(battery: battery)) != .proceed) == priorityRefuses, "\(battery)")
    }
    #expect(SyncClient.coreData.activityPriority == .utility)
    #expect(SyncClient.syncEngine.activityPriority == .utility)
    // The app in front is essential work under either rule.
    var front = Self.context(battery: 5)
    front.appInForeground = true
    wwdc.thresholdPercent = 20
    #expect(wwdc.evaluate(front) == .proceed && byPriority.evaluate(front) == .proceed)
  }

  @Test func utilityWorkEscapesLowPowerModeAfterNinetyPercentOfItsWindow() {
    var policy = LowPowerModePolicy()
    #expect(policy.evaluate(Self.context(battery: 60, lowPower: true, now: 100_000)) == .refuse(until: nil))
    policy.utilityWindow = .hours(4)
    // Submitted at 1,000 s: refused until 1,000 + 0.9 × 14,400 = 13,960 s, then it runs.
    #expect(
      policy.evaluate(Self.context(battery: 60, lowPower: true, requestedAt: 1_000, now: 5_000))
        == .refuse(until: SimTime(SimDuration(seconds: 13_960))))
    #expect(policy.evaluate(Self.context(battery: 60, lowPower: true, requestedAt: 1_000, now: 13_960)) == .proceed)
    #expect(!policy.leavesOutDocumentedRule)
  }

  @Test func theLibraryScenariosShowEachRuleOnAndOff() throws {
    do {
      func latency(_ library: String, _ edits: [(String, String)]) throws -> Double? {
        try WorldRun(library: library, edits: edits, seed: 3).summary("latency.max")
      }
      // A background Mac saved to at 23:00, charging 10 % an hour from 06:00.
      let battery = "critical-battery-by-priority"
      let at15ByPriority = try #require(try latency(battery, []))
      let at15WWDC = try #require(try latency(battery, [("\"byPriority\": true", "\"byPriority\": false")]))
      let at8ByPriority = try #require(try latency(battery, [("\"battery\": 15,", "\"battery\": 8,")]))
      #expect(at15ByPriority < 60)
      #expect(abs(at15WWDC - 7.5 * 3600) < 120)  // 20 % at 06:30
      #expect(abs(at8ByPriority - (7 * 3600 + 12 * 60)) < 300)  // 10 % at 06:12
      let escape = "low-power-utility-escape"
      let on = try #require(try latency(escape, []))
      let off = try #require(try latency(escape, [("\"utilityWindow\": \"4h\"", "\"utilityWindow\": \"0s\"")]))
      #expect(abs(on - 0.9 * 4 * 3600) < 60)
      #expect(abs(off - 8 * 3600) < 60)
    }
  }
}
