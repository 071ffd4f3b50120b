import Foundation
import SimKernel
import SimMetrics
import SimModel
import SimScenario
import SimTestSupport
import Testing

/// Every second of a row's latency is attributed to a cause (spec §1.3, §10).
@Suite struct WaitCauseTests {
  static func run(_ text: String) throws -> RunReport {
    let (scenario, _) = try ScenarioDecoder.decode(Array(text.utf8), file: "w.json")
    return ScenarioRunner.run(scenario)
  }

  static func nanos(_ field: String) -> Int64 {
    guard !field.isEmpty else { return 0 }
    let parts = field.split(separator: ".")
    let whole = Int64(parts[0])!
    let fraction = parts.count > 1 ? Int64(parts[1].padding(toLength: 9, withPad: "0", startingAt: 0))! : 0
    return field.hasPrefix("-") ? whole * 1_000_000_000 - fraction : whole * 1_000_000_000 + fraction
  }

  /// The latency table's columns that split `stage`.
  static func parts(of stage: String, in columns: [String]) -> [Int] {
    switch stage {
    case "exportSchedule":
      columns.indices.filter {
        columns[$0] == "exportDecision" || columns[$0].hasPrefix("exportBlocked.") || columns[$0].hasPrefix("exportHeld.")
      }
    case "importSchedule":
      columns.indices.filter {
        columns[$0] == "importDecision" || columns[$0].hasPrefix("importBlocked.") || columns[$0].hasPrefix("importHeld.")
      }
    default: columns.indices.filter { columns[$0].hasPrefix("notify.") }
    }
  }

  /// The library scenarios the check runs, in a debug build.
  static let libraryFiles: [String] =
    ((try? FileManager.default.contentsOfDirectory(atPath: packageRoot + "/Scenarios")) ?? [])
    .filter { $0.hasSuffix(".json") && $0 != "schema.json" && !$0.hasPrefix("fleet") }
    // A million rows, a thousand devices, 40,000 rows of one bulk delete, 50,000 and 20,500 rows
    // of first imports, or 300 accounts for a day: the other scenarios cover every cause in a
    // debug build (`check`, in release, audits every library row; HeldCauseTests checks the
    // suspended import's split; PartitionTests runs households).
    .filter {
      ![
        "realworld-million-import.json", "realworld-retry-after.json", "bulk-delete-then-insert.json",
        "realworld-suspended-import.json", "realworld-first-import-4100.json", "households.json",
      ].contains($0)
    }.sorted()

  @Test func theLibraryIsFoundForTheCauseCheck() {
    #expect(Self.libraryFiles.count > 40)
  }

  /// One test case per library scenario, so that they run in parallel.
  @Test(arguments: libraryFiles)
  func causeColumnsSumExactlyToTheirStageInEveryLibraryScenario(_ file: String) throws {
    let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: packageRoot + "/Scenarios/" + file)))
    let (scenario, _) = try ScenarioDecoder.decode(bytes, file: file)
    let report = ScenarioRunner.run(scenario)
    let table = report.latencyTable()
    let columns = table.columns
    // The second, independent check: every row's causes recomputed from activities.csv alone.
    let recomputed = CauseRecomputeTests.recompute(
      activities: ResultTable(table: report.activitiesTable()), latency: ResultTable(table: table),
      end: scenario.spec.duration.seconds, name: file)
    #expect(recomputed.rows > 0 || table.rows.isEmpty)
    #expect(recomputed.problems.isEmpty, "\(recomputed.problems.count) problems, first: \(recomputed.problems.prefix(3))")
    // Failures gathered and checked once: an #expect per row was most of the test's minute.
    var failures: [String] = []
    func check(_ condition: Bool, _ what: @autoclosure () -> String) {
      if !condition && failures.count < 10 { failures.append(what()) }
    }
    let (stuckStage, stuckCause, outcomeColumn) = (
      columns.firstIndex(of: "stuckStage")!, columns.firstIndex(of: "stuckCause")!, columns.firstIndex(of: "outcome")!
    )
    let stages = ["exportSchedule", "importSchedule", "notify"].map { ($0, columns.firstIndex(of: $0)!, Self.parts(of: $0, in: columns)) }
    for row in table.rows {
      for (stage, stageColumn, causes) in stages {
        guard !row[stageColumn].isEmpty else { continue }
        // A ghost (a public-database delete) waits on nothing: its notify has no split.
        let ghost = row[stuckCause] == "ghost"
        let split = causes.allSatisfy { !row[$0].isEmpty }
        check(split || stage != "notify" || ghost, "\(file): \(stage) split missing")
        if split {
          let sum = causes.reduce(Int64(0)) { $0 + Self.nanos(row[$1]) }
          check(sum == Self.nanos(row[stageColumn]), "\(file) write \(row[2]): \(stage) \(row[stageColumn]) ≠ Σ causes")
          check(causes.allSatisfy { Self.nanos(row[$0]) >= 0 }, "\(file) write \(row[2]): a negative cause in \(stage)")
        }
      }
      let outcome = row[outcomeColumn]
      if ["notVisible", "hidden", "lost"].contains(outcome) {
        check(!row[stuckStage].isEmpty, "\(file) write \(row[2]) \(outcome): no stage")
        check(!row[stuckCause].isEmpty, "\(file) write \(row[2]) \(outcome): no cause")
      }
    }
    #expect(failures.isEmpty, "\(failures)")
  }

  /// A forced throttle with a 7-minute retry-after: exports end and retry after it; no activity
  /// holds its group through the wait, and the wait is the throttle's.
  @Test func aRetryAfterIsTheThrottlesWaitNotAGroupBlock() throws {
    let report = try Self.run(
      #"""
      {"version": 1, "duration": "3h", "seed": 3, "cloud": {"throttle": {"requestsPerSecond": 1000, "retryAfter": "7m"}},
       "devices": [{"name": "a"}, {"name": "b"}], "workloads": [{"devices": "all", "editsPerHour": 60}],
       "timeline": [{"at": "30m", "devices": "all", "action": {"throttle": true}},
                    {"at": "60m", "devices": "all", "action": {"throttle": false}}]}
      """#)
    let activities = report.activitiesTable()
    let group = activities.columns.firstIndex(of: "blocked.activityGroup")!
    let throttle = activities.columns.firstIndex(of: "blocked.serverThrottle")!
    let requested = activities.columns.firstIndex(of: "requestedAt")!
    let during = activities.rows.filter { (1800...4500).contains(Double($0[requested])!) }
    #expect(during.count > 20)
    #expect(during.map { Double($0[group])! }.max()! < 2)
    #expect(during.map { Double($0[throttle])! }.max()! > 400)
    let serverThrottle = try #require(report.summary.value("blocked.serverThrottle.total"))
    let groupTotal = try #require(report.summary.value("blocked.activityGroup.total"))
    #expect(serverThrottle > 10 * groupTotal)
    // The rows that waited: most of their scheduling time is the throttle's.
    let table = report.latencyTable()
    let columns = table.columns
    let latency = columns.firstIndex(of: "latency")!
    let slow = table.rows.filter { !$0[latency].isEmpty && Double($0[latency])! > 300 }
    #expect(!slow.isEmpty)
    let throttleWait = slow.reduce(0.0) { $0 + Double($1[columns.firstIndex(of: "exportBlocked.serverThrottle")!])! }
    let groupWait = slow.reduce(0.0) { $0 + Double($1[columns.firstIndex(of: "exportBlocked.activityGroup")!])! }
    #expect(throttleWait > 20 * max(groupWait, 1))
  }

  @Test func aLowPowerPushDeferralIsAttributedToLowPower() throws {
    let report = try Self.run(
      #"""
      {"version": 1, "duration": "2h", "seed": 5,
       "devices": [{"name": "writer"}, {"name": "reader", "appState": "background", "power": {"lowPowerMode": true}}],
       "timeline": [{"at": "10m", "devices": "writer", "action": {"edit": "insert"}},
                    {"at": "40m", "devices": "reader", "action": "plug"}]}
      """#)
    let table = report.latencyTable()
    let columns = table.columns
    let row = try #require(table.rows.first { $0[columns.firstIndex(of: "observer")!] == "reader" })
    let deferred = Self.nanos(row[columns.firstIndex(of: "notify.deferred")!])
    let notify = Self.nanos(row[columns.firstIndex(of: "notify")!])
    #expect(deferred > 25 * 60 * 1_000_000_000)  // from about 10 min to the plug at 40 min
    #expect(Double(deferred) > 0.95 * Double(notify))
  }

  @Test func aDisabledStoreMakesNoRequestAfterTheToggle() throws {
    let text = #"""
      {"version": 1, "duration": "2h", "seed": 9, "devices": [{"name": "iphone"}, {"name": "ipad"}],
       "workloads": [{"devices": "all", "editsPerHour": 20}],
       "timeline": [{"at": "20m", "devices": "ipad", "action": "goOffline"},
                    {"at": "30m", "devices": "ipad", "action": {"toggleSync": {"removeStoreFirst": false}}},
                    {"at": "40m", "devices": "ipad", "action": "goOnline"}]}
      """#
    let (scenario, _) = try ScenarioDecoder.decode(Array(text.utf8), file: "t.json")
    let log = ObservationLog()
    _ = WorldRunner.run(scenario.spec, sink: log)
    let ipadStore = StoreID(1)
    var afterToggle = 0
    var cancelled: [CancelReason] = []
    for observation in log.observations {
      switch observation {
      case .request(let store, _, _, _, let at)
      where store == ipadStore && at > SimTime.zero.advanced(by: .seconds(1800)): afterToggle += 1
      case .activityCancelled(_, let reason, _): cancelled.append(reason)
      default: break
      }
    }
    #expect(afterToggle == 0)
    #expect(cancelled.contains(.storeDisabled))
    let report = ScenarioRunner.run(scenario)
    #expect(report.activitiesTable().text.contains(",storeDisabled,"))
  }

  @Test func aPeriodicWorkloadMakesExactlyFloorTOverPEdits() throws {
    for (period, hours) in [(7.0, 1), (60.0, 3), (13.0, 2)] {
      let report = try Self.run(
        #"{"version": 1, "duration": "\#(hours)h", "devices": [{"name": "a"}, {"name": "b"}], "#
          + #""workloads": [{"devices": "a", "every": "\#(Int(period))s"}], "outputs": ["summary"]}"#)
      #expect(report.summary.value("writes") == (Double(hours) * 3600 / period).rounded(.down))
    }
    let windowed = try Self.run(
      #"{"version": 1, "duration": "1h", "devices": [{"name": "a"}, {"name": "b"}], "#
        + #""workloads": [{"devices": "a", "every": "10s", "from": "10m", "until": "20m", "jitter": "3s"}]}"#)
    #expect(windowed.summary.value("writes") == 60)
    #expect(
      windowed.rows.allSatisfy {
        $0.editedAt >= SimTime.zero.advanced(by: .seconds(610))
          && $0.editedAt < SimTime.zero.advanced(by: .seconds(1203))
      })
    let sessions = try Self.run(
      #"{"version": 1, "duration": "10h", "devices": [{"name": "a", "appState": "notRunning"}], "usage": [{"devices": "a", "every": "1h", "sessionLength": "5m"}]}"#
    )
    let foreground = sessions.recorder.appStates.filter { $0.state == .foreground }
    #expect(foreground.count == 10)  // at 1 h, 2 h, … 10 h
    #expect(foreground.last?.at == SimTime.zero.advanced(by: .seconds(36_000)))
  }

  @Test func periodicNudgesRepeatOnTheClockWithTheirJitter() throws {
    let report = try Self.run(
      #"{"version": 1, "duration": "1h", "devices": [{"name": "a"}, {"name": "b"}], "timeline": [{"at": "1m", "devices": "a", "#
        + #""action": {"nudge": {"every": "10m", "jitter": "1m"}}}]}"#)
    let table = report.activitiesTable()
    let trigger = table.columns.firstIndex(of: "trigger")!
    let requested = table.columns.firstIndex(of: "requestedAt")!
    let nudges = table.rows.filter { $0[trigger] == "nudge" }.map { Double($0[requested])! }
    #expect(nudges.count == 6)  // at 1 m, then 11 m … 51 m, each within a minute after its time
    for (k, time) in nudges.enumerated() {
      #expect(time >= Double(60 + 600 * k) && time < Double(60 + 600 * k + 60), "nudge \(k) at \(time)")
    }
  }

  @Test func latencyRowsNameTheirObjectAndObjectsCsvHoldsTheEndState() throws {
    let report = try Self.run(
      #"""
      {"version": 1, "duration": "1h", "seed": 2, "devices": [{"name": "a"}, {"name": "b"}],
       "workloads": [{"devices": "all", "editsPerHour": 30}], "outputs": ["summary", "latency", "objects"]}
      """#)
    let objects = report.objectsTable()
    #expect(objects.rows.count > 10)
    let held = objects.columns.firstIndex(of: "held")!
    let matches = objects.columns.firstIndex(of: "matchesServer")!
    #expect(objects.rows.filter { $0[held] == "1" }.count > 10)
    #expect(objects.rows.filter { $0[matches] == "1" }.count >= objects.rows.count * 9 / 10)
    #expect(report.files(version: "t", includeTrace: false).contains { $0.name == "objects.csv" })
    let table = report.latencyTable()
    let object = table.columns.firstIndex(of: "object")!
    #expect(Set(table.rows.map { $0[object] }).count > 5)
  }

  @Test func settingsThatDoNothingAreWarnings() throws {
    let text = #"""
      {"version": 1, "devices": [{"name": "a"}, {"name": "b"}], "environment": "production",
       "polling": {"interval": "10m"}, "sampleInterval": "1m", "outputs": ["summary"],
       "cloud": {"networkRetryBackoff": "2s", "zoneBusyBackoff": "3s"},
       "timeline": [{"at": 1, "devices": "a", "action": {"bulkInsert": {"count": 5, "saves": "one", "over": "2m"}}}]}
      """#
    let (_, problems) = try ScenarioDecoder.decode(Array(text.utf8), file: "i.json")
    let warned = Set(problems.filter { $0.severity == .warning }.map(\.path))
    #expect(
      warned == [
        "environment", "polling", "sampleInterval", "cloud.networkRetryBackoff", "cloud.zoneBusyBackoff",
        "timeline[0].action.bulkInsert.over",
      ])
    let result = syncsim(["validate", "--strict", packageRoot + "/Scenarios/quickstart.json"])
    #expect(result.code == 0)
  }

  /// Whom a retry-after holds back: by default the device that was answered; with
  /// `"retryAfterHolds": "container"` every device, which then sends nothing before it passes.
  @Test func aRetryAfterHoldsTheDeviceOrTheWholeContainer() throws {
    func firstOtherDeviceAnswer(_ holds: String) throws -> (first: SimTime, other: SimTime) {
      let text = #"""
        {"version": 1, "duration": "2h", "seed": 4,
         "cloud": {"throttle": {"requestsPerSecond": 1000, "retryAfter": "7m", "retryAfterHolds": "\#(holds)"}},
         "devices": [{"name": "a"}, {"name": "b"}], "workloads": [{"devices": "all", "editsPerHour": 60}],
         "timeline": [{"at": "30m", "devices": "all", "action": {"throttle": true}}]}
        """#
      let (scenario, _) = try ScenarioDecoder.decode(Array(text.utf8), file: "h.json")
      let log = ObservationLog()
      _ = WorldRunner.run(scenario.spec, sink: log)
      var first: (store: StoreID, at: SimTime)?
      for case .cloudError(let store, .serviceUnavailable, _, let at) in log.observations {
        guard let seen = first else {
          first = (store, at)
          continue
        }
        if store != seen.store { return (seen.at, at) }
      }
      return (first?.at ?? .zero, SimTime(nanoseconds: .max))
    }
    let device = try firstOtherDeviceAnswer("device")
    #expect(device.other - device.first < .seconds(420))
    let container = try firstOtherDeviceAnswer("container")
    #expect(container.other - container.first >= .seconds(420))
    #expect(container.other < SimTime(nanoseconds: .max))  // it sends again once the retry-after passes
  }
}
