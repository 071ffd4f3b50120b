import Foundation
import SimTestSupport
import Testing

/// Issue 72, item 5: the notify stage's causes had holes that an independent recomputation from
/// `activities.csv` found. Each case, with the numbers a person reads in `latency.csv`.
@Suite struct NotifyStateCauseTests {
  static func notify(_ row: ResultTable.Row, _ cause: String) -> Double { row.number("notify." + cause) ?? 0 }

  /// A push handed to a store that stopped syncing (error 134410) brings nothing: the rows
  /// committed after the disabling wait on `storeDisabled` alone (14 carried 0.1 s of delivery
  /// for each later push, and their fan-out).
  @Test func aDisabledStoresWaitIsStoreDisabledWhateverThePushesDid() throws {
    let run = try WorldRun(library: "toggle-sync-broken")
    let disabledAt = 1800.0
    let rows = try run.table("latency.csv").rows.filter {
      $0["observer"] == "ipad" && ($0.number("committedAt") ?? 0) > disabledAt && $0["outcome"] != "visible"
    }
    #expect(rows.count >= 14)
    for row in rows {
      #expect(Self.notify(row, "delivery") == 0 && Self.notify(row, "fanout") == 0, "\(row)")
      #expect(abs(Self.notify(row, "storeDisabled") - row.number("notify")!) < 1e-9, "\(row)")
    }
  }

  /// A device that was not running (never launched, force-quit) waits on `notRunning` until its
  /// launch, whatever import the launch asks for (an initial one was `noPush`), and the store's
  /// first setup after the launch is `setup` (0.8 s; it was `noPush`).
  @Test func aWaitForTheFirstLaunchIsNotRunningThenSetup() throws {
    let run = try WorldRun(library: "realworld-first-import-100")
    let rows = try run.table("latency.csv").rows.filter { $0["observer"] == "fresh" }
    #expect(rows.count == 100)
    for row in rows {
      let committed = row.number("committedAt")!
      // Force-quit from the start, launched at 10 min.
      #expect(abs(Self.notify(row, "notRunning") - (600 - committed)) < 1e-6, "\(row)")
      #expect(abs(Self.notify(row, "setup") - 0.8) < 1e-9, "\(row)")
      #expect(Self.notify(row, "noPush") == 0, "\(row)")
    }
  }

  /// A push APNs withholds (an app not opened for longer than `deliveryRequiresLaunchWithin`)
  /// has a column of its own, as the row's `stuckCause` `pushWithheld` says (it sat in `noPush`).
  @Test func aWithheldPushsWaitIsWithheld() throws {
    let text = #"""
      {"version": 1, "name": "withheld", "duration": "3h",
       "push": {"deliveryRequiresLaunchWithin": "1h"},
       "devices": [{"name": "iphone"}, {"name": "ipad", "appState": "background"}],
       "timeline": [{"at": "2h", "devices": "iphone", "action": {"edit": "insert"}}]}
      """#
    let run = try WorldRun(text)
    let row = try #require(try run.table("latency.csv").rows.first { $0["observer"] == "ipad" })
    #expect(row["outcome"] == "notVisible")
    #expect(row["stuckCause"] == "pushWithheld")
    let committed = row.number("committedAt")!
    let withheld = Self.notify(row, "withheld")
    #expect(withheld > 0 && Self.notify(row, "noPush") == 0, "\(row)")
    // From the commit to the run's end, the push's way to APNs included.
    #expect(abs(withheld - (3 * 3600 - committed)) < 1e-6, "\(row)")
  }
}
