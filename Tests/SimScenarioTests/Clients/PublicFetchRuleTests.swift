import Foundation
import SimMetrics
import SimTestSupport
import Testing

/// The public database's fetch rule is a parameter (issue 36 item 6): at every activation (the
/// default), at launch only (WWDC20's words), or on polls only.
@Suite struct PublicFetchRuleTests {
  func imports(fetchOn: String) throws -> [String] {
    let text = #"""
      {"version": 1, "name": "fetch", "duration": "3h",
       "devices": [{"name": "author", "stores": ["public"]},
                   {"name": "reader", "stores": ["public"], "appState": "notRunning"}],
       "polling": {"interval": "30m", "fetchOn": "\#(fetchOn)"},
       "timeline": [{"at": "10m", "devices": "reader", "action": "launch"},
                    {"at": "20m", "devices": "reader", "action": "background"},
                    {"at": "1h", "devices": "reader", "action": "activate"},
                    {"at": "70m", "devices": "reader", "action": "background"},
                    {"at": "2h", "devices": "reader", "action": "activate"},
                    {"at": "150m", "devices": "reader", "action": "terminate"},
                    {"at": "160m", "devices": "reader", "action": "launch"}]}
      """#
    let run = try WorldRun(text)
    #expect(run.code == 0)
    // The fetches on coming to the front (polls follow their own clock in every rule).
    return try run.table("activities.csv").rows.filter {
      $0["device"] == "reader" && $0["kind"] == "import" && $0["trigger"] != "poll"
    }.map { $0["trigger"]! }
  }

  @Test func theRuleDecidesWhichForegroundingsFetch() throws {
    // The first launch sets the store up with its initial import in every rule.
    #expect(try imports(fetchOn: "activation") == ["initial", "activation", "activation", "launch"])
    #expect(try imports(fetchOn: "launch") == ["initial", "launch"])
    #expect(try imports(fetchOn: "interval") == ["initial"])
  }
}

/// An empty public-database store fetches at its first launch under every `fetchOn` (issue 56,
/// item 5): Apple's "immediately for empty store files" (spec §7). With `interval` and a
/// production poll of 24 h, a reader launched at 1 h waited for its first poll at 25 h.
@Suite struct EmptyStoreFirstFetchTests {
  @Test func anEmptyStoreFetchesAtItsFirstLaunchUnderEveryRule() throws {
    do {
      for rule in ["activation", "launch", "interval"] {
        let text = #"""
          {"version": 1, "name": "first-fetch", "duration": "30h",
           "devices": [{"name": "author", "stores": ["public"]},
                       {"name": "reader", "stores": ["public"], "appState": "notRunning"}],
           "polling": {"interval": "24h", "fetchOn": "\#(rule)"},
           "timeline": [{"at": "5m", "devices": "author", "action": {"edit": "insert"}},
                        {"at": "1h", "devices": "reader", "action": "launch"}]}
          """#
        let run = try WorldRun(text)
        #expect(run.code == 0)
        let first = try #require(
          try run.table("activities.csv").rows.first { $0["device"] == "reader" && $0["kind"] == "import" })
        // Requested at the launch (plus the setup's 0.8 s), not at the poll 24 h later.
        #expect(abs(first.number("requestedAt")! - 3600.8) < 0.001, "\(rule)")
        #expect(try run.summary("latency.max")! < 3600, "\(rule)")
      }
    }
  }
}
