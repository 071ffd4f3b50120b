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

/// Issue 72, item 4: only a fetch restarts the poll interval. A production reader (24 h polls)
/// in front 5 h of every 6 h for 3 days: under a rule whose returns do not fetch, the interval
/// kept restarting at each activation (wall clock) or launch (app use), so no poll ever came.
@Suite struct PollIntervalRestartTests {
  /// The reader's imports after its first, as (trigger, requested at in hours) in time order.
  func imports(fetchOn: String, clock: String) throws -> [(trigger: String, hours: Double)] {
    // Wall clock: the app goes to the background and comes back; app use: it is terminated and
    // launched again (the shapes the issue found). Each 6 h from 6 h on, in front for 5 h.
    let (leave, back) = clock == "wallClock" ? ("background", "activate") : ("terminate", "launch")
    var timeline = [#"{"at": "10m", "devices": "reader", "action": "launch"}"#,
                    #"{"at": "5h10m", "devices": "reader", "action": "\#(leave)"}"#]
    for cycle in 1..<12 {
      timeline.append(#"{"at": "\#(cycle * 6)h", "devices": "reader", "action": "\#(back)"}"#)
      timeline.append(#"{"at": "\#(cycle * 6 + 5)h", "devices": "reader", "action": "\#(leave)"}"#)
    }
    let text = #"""
      {"version": 1, "name": "daily-reader", "duration": "72h",
       "devices": [{"name": "author", "stores": ["public"]},
                   {"name": "reader", "stores": ["public"], "appState": "notRunning"}],
       "polling": {"interval": "24h", "fetchOn": "\#(fetchOn)", "clock": "\#(clock)"},
       "timeline": [\#(timeline.joined(separator: ", "))]}
      """#
    let run = try WorldRun(text)
    #expect(run.code == 0)
    return try run.table("activities.csv").rows.filter {
      $0["device"] == "reader" && $0["kind"] == "import" && $0["trigger"] != "initial"
    }.map { ($0["trigger"]!, $0.number("requestedAt")! / 3600) }
  }

  @Test(arguments: ["activation", "launch", "interval"], ["wallClock", "appUse"])
  func aDailyUsedReaderPollsEveryIntervalUnlessItsReturnsFetch(fetchOn: String, clock: String) throws {
    let seen = try imports(fetchOn: fetchOn, clock: clock)
    let polls = seen.filter { $0.trigger == "poll" }.map(\.hours)
    let returns = seen.filter { $0.trigger != "poll" }.map(\.trigger)
    let returnsFetch = fetchOn == "activation" || (fetchOn == "launch" && clock == "appUse")
    if returnsFetch {
      // Each of the 11 returns fetches, and each fetch starts the interval again: no poll.
      #expect(returns == Array(repeating: clock == "wallClock" ? "activation" : "launch", count: 11))
      #expect(polls.isEmpty, "\(polls)")
    } else if clock == "wallClock" {
      // The first fetch at the launch (10 min), then every 24 h of wall clock, in front then.
      #expect(returns.isEmpty)
      #expect(polls.count == 2 && abs(polls[0] - 24.17) < 0.01 && abs(polls[1] - 48.17) < 0.01, "\(polls)")
    } else {
      // Every 24 h of use: 5 h a cycle, so at 28 h and 57 h.
      #expect(returns.isEmpty)
      #expect(polls.count == 2 && abs(polls[0] - 28) < 0.01 && abs(polls[1] - 57) < 0.01, "\(polls)")
    }
  }
}
