import Foundation
import SimTestSupport
import Testing

@testable import SimKernel
@testable import SimModel

/// Every app's pushes by one rule (issue 56, item 4(a)): the other apps' pushes are stored while
/// the device is offline and deferred while it saves power, as this app's are, and the kept ones
/// are admitted by the shared budget in the order APNs received them.
@Suite struct OtherAppsPushTests {
  static let hour = SimDuration(seconds: 3600)

  static func service(budget: Int = 3) -> (PushService, DeviceConditions) {
    var parameters = PushParameters()
    parameters.backgroundBudgetPerHour = budget
    var service = PushService(parameters)
    service.addDevice()
    var conditions = DeviceConditions()
    conditions.otherAppsBackgroundPushesPerHour = 6
    return (service, conditions)
  }

  @Test func otherAppsSpendTheBudgetOnlyWhenTheirPushesAreDelivered() {
    var (online, conditions) = Self.service()
    // Online and awake for an hour: 6 pushes, 3 of them fit the hourly budget.
    online.playOtherApps(0, conditions: conditions, offline: false, restricted: false, to: SimTime(Self.hour))
    #expect(online.wakes[0].count == 3)
    #expect(online.fitsBudget(0, at: SimTime(Self.hour)) == false)
    // Saving power for the same hour: nothing is spent; the newest is kept (at 1 h).
    var saving = Self.service().0
    saving.playOtherApps(0, conditions: conditions, offline: false, restricted: true, to: SimTime(Self.hour))
    #expect(saving.wakes[0].isEmpty)
    #expect(saving.otherApps[0]?.deferredAt == SimTime(Self.hour))
    #expect(saving.fitsBudget(0, at: SimTime(Self.hour)) == true)
    conditions.debuggerAttached = true
    var debugged = Self.service().0
    debugged.playOtherApps(0, conditions: conditions, offline: false, restricted: false, to: SimTime(Self.hour))
    #expect(debugged.wakes[0].isEmpty)
  }

  @Test func keptPushesAreAdmittedInTheOrderApnsReceivedThem() {
    let (start, conditions) = Self.service(budget: 1)
    let lift = SimTime(Self.hour * 2)
    // The other apps' newest was received at 2 h; this app's at 1 h: this app's goes first.
    var ownFirst = start
    ownFirst.playOtherApps(0, conditions: conditions, offline: true, restricted: false, to: lift)
    ownFirst.releaseOtherApps(0, stored: true, arrival: lift, ownReceivedAt: SimTime(Self.hour), now: lift)
    #expect(ownFirst.wakes[0].isEmpty && ownFirst.otherApps[0]?.admitAfterOwnAt == lift)
    #expect(ownFirst.withinBudget(0, conditions: conditions, at: lift) == true)
    ownFirst.recordWake(0, at: lift)
    ownFirst.admitOtherAppsAfterOwn(0, at: lift)
    #expect(ownFirst.wakes[0] == [lift])  // the budget of 1 is this app's; the other apps' is held
    // This app's received later (2.5 h, a lift at 3 h): the other apps' goes first and fills it.
    var otherFirst = start
    let later = SimTime(Self.hour * 3)
    otherFirst.playOtherApps(0, conditions: conditions, offline: false, restricted: true, to: SimTime(Self.hour * 2))
    otherFirst.releaseOtherApps(
      0, stored: false, arrival: later, ownReceivedAt: SimTime(SimDuration(seconds: 9000)), now: later)
    #expect(otherFirst.wakes[0] == [later])
    #expect(otherFirst.withinBudget(0, conditions: conditions, at: later) == false)
  }

  @Test func aNightInLowPowerModeOrOfflineEndsWithThisAppsPushDelivered() throws {
    do {
      let night = try WorldRun(library: "push-budget-night")
      #expect(night.code == 0)
      // Saved at 23:30, imported when Low Power Mode ends at 07:00 (the import's seconds after it).
      let latency = try #require(try night.summary("latency.max"))
      #expect(latency > 7.5 * 3600 && latency < 7.5 * 3600 + 60, "\(latency)")
      #expect(try night.summary("pushes.held") == 0)
      let offline = try WorldRun(
        library: "push-budget-night",
        edits: [
          (#"{"lowPower": true}"#, #""goOffline""#), (#"{"lowPower": false}"#, #""goOnline""#),
          (#""pushes.deferred", "equals": 1"#, #""pushes.stored", "equals": 1"#),
        ])
      #expect(offline.code == 0)
      #expect(try offline.summary("pushes.held") == 0)
      // Low Power Mode from the start (no change of state before this app's push is deferred)
      // and a budget of one: this app's push, received first, is still admitted first.
      let fromStart = try WorldRun(
        library: "push-budget-night",
        edits: [
          (#"{"at": "22:30", "devices": "ipad", "action": {"lowPower": true}},"#, ""),
          (#""otherAppsBackgroundPushesPerHour": 6,"#, #""otherAppsBackgroundPushesPerHour": 6, "power": {"lowPowerMode": true},"#),
          (#""seed": 19,"#, #""seed": 19, "push": {"backgroundBudgetPerHour": 1},"#),
        ])
      #expect(fromStart.code == 0)
      #expect(try fromStart.summary("pushes.held") == 0)
      #expect(try fromStart.summary("latency.max") == (try night.summary("latency.max")))
      // Without other apps' pushes the night changes nothing: the same latency.
      let alone = try WorldRun(
        library: "push-budget-night", edits: [(#""otherAppsBackgroundPushesPerHour": 6, "#, "")])
      #expect(try alone.summary("latency.max") == (try night.summary("latency.max")))
    }
  }
}
