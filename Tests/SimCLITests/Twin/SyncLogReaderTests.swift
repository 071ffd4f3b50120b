import Foundation
import SimTestSupport
import Testing

@testable import SimTwin

/// Reading an app's sync logs: the unified log's lines as Apple's TN3163 and TN3164 print them,
/// and SyncSim's own event log, into the events and intervals they describe.
@Suite struct SyncLogReaderTests {
  /// `Fixtures/tn3163-iphone.log`: TN3163's example lines (Apple's text: the save, the export's
  /// dasd decision, the activity-group refusal of the import, the export's begin, "Found 0
  /// objects" and finish, the push's apsd receipt and handler, the push-triggered import
  /// schedule, the rate-limit refusal, the 134417 error), with the fields Apple elides filled in
  /// the `log show` form; plus lines written in the same shapes: the import's approval, begin and
  /// finish (TN3163 gives their 0.695 s without the lines), WWDC22 10119's older dasd form without
  /// spaces, and a UIKit line that is no sync event.
  static let fixture = packageRoot + "/Tests/SimCLITests/Fixtures/tn3163-iphone.log"

  static func seconds(_ a: Int64, _ b: Int64) -> Double { Double(b - a) / 1e6 }

  @Test func theTN3163LinesGiveTheIntervalsTheyShow() throws {
    let log = try SyncLogReader.read([Self.fixture])
    #expect(log.problems.isEmpty)
    #expect(log.devices.map(\.name) == ["tn3163-iphone"])
    #expect(log.linesRead == 17)
    // The header and the UIKit line are skipped, never an error.
    #expect(log.linesSkipped == 2)
    let events = log.events
    let save = try #require(events.first { if case .save = $0.kind { true } else { false } })
    let decision = try #require(events.first { $0.kind == .decision(.export, proceeds: true, refusedBy: []) })
    let exportBegan = try #require(events.first { $0.kind == .started(.export, trigger: nil) })
    let exportEnded = try #require(events.first { if case .finished(.export, true, _, _) = $0.kind { true } else { false } })
    let importBegan = try #require(events.first { $0.kind == .started(.import, trigger: nil) })
    let importEnded = try #require(events.first { if case .finished(.import, true, _, _) = $0.kind { true } else { false } })
    let received = try #require(events.first { $0.kind == .pushReceived })
    let handled = try #require(events.first { $0.kind == .pushHandled })
    // 14:14:15.227567 → 15.609957: dasd decided 0.38 s after the save.
    #expect(abs(Self.seconds(save.time, decision.time) - 0.382390) < 1e-6)
    // The export began 1.39 s after the save, and took 0.035 s with 0 objects.
    #expect(abs(Self.seconds(save.time, exportBegan.time) - 1.393963) < 1e-6)
    #expect(abs(Self.seconds(exportBegan.time, exportEnded.time) - 0.035255) < 1e-6)
    #expect(events.contains { $0.kind == .pending(records: 0) })
    // The empty import took 0.70 s.
    #expect(abs(Self.seconds(importBegan.time, importEnded.time) - 0.695) < 1e-6)
    // apsd's receipt to the app's handler: 0.10 s.
    #expect(abs(Self.seconds(received.time, handled.time) - 0.101562) < 1e-6)
    // 2023-12-07 14:14:15.227567 at +01:00 is 13:14:15.227567 UTC.
    #expect(save.time == 1_701_954_855_227_567)
  }

  @Test func dasdRefusalsNameSyncSimsPoliciesInBothSpellings() throws {
    let log = try SyncLogReader.read([Self.fixture])
    let refusals = log.events.compactMap { event -> [String]? in
      if case .decision(_, false, let policies) = event.kind { return policies }
      return nil
    }
    #expect(refusals == [["activityGroup"], ["rateLimit"]])
    // The older form (WWDC22 10119): "ApplicationPolicy ... Must Proceed" without spaces.
    #expect(log.events.filter { $0.kind == .decision(.export, proceeds: true, refusedBy: []) }.count == 2)
    #expect(log.events.contains { $0.kind == .importRequested(trigger: "push") })
    #expect(
      log.events.contains {
        $0.kind == .finished(.export, succeeded: false, records: nil, error: "NSCocoaErrorDomain 134417")
      })
  }

  @Test func theTraceOfTheTN3163LinesSplitsTheImportsWaitByPolicy() throws {
    let log = try SyncLogReader.read([Self.fixture])
    let trace = SyncTrace(log)
    let importActivity = try #require(trace.activities.first { $0.work == .import })
    // Refused by the activity group at 15.613580, approved at 16.746773.
    #expect(importActivity.refusals.count == 1)
    #expect(importActivity.refusals[0].policy == "activityGroup")
    #expect(abs(Self.seconds(importActivity.refusals[0].from, importActivity.refusals[0].to) - 1.133193) < 1e-6)
    let export = try #require(trace.activities.first { $0.work == .export })
    #expect(export.records == 0)
    #expect(export.requestedAt == trace.saves[0].time)
  }

  @Test func aMalformedSyncLineIsReportedWithItsLineAndTheRestIsRead() throws {
    try withTemporaryDirectory { folder in
      let path = folder + "/phone.log"
      let lines = [
        "2023-12-07 14:14:15.227567+0100 0x1 Info 0x0 1 0 App: CoreData+CloudKit: Observed context save: -",
        "garbage line with no sync marker",
        "yesterday 0x1 Info 0x0 1 0 App: CoreData+CloudKit: Observed context save: -",
        "2023-12-07 14:14:16.000000+0100 0x1 Info 0x0 97 0 dasd: 501:com.apple.coredata.cloudkit.activity.export.X:1:[] FinalDecision: Perhaps}",
        "2023-12-07 14:14:17.000000+0100 0x1 Info 0x0 1 0 App: CoreData+CloudKit: Finished request: X with result: success: maybe",
        "2023-12-07 14:14:18.000000+0100 0x1 Info 0x0 1 0 App: CoreData+CloudKit: Observed context save: -",
      ]
      try lines.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
      let log = try SyncLogReader.read([path])
      #expect(log.problems.map(\.line) == [3, 4, 5])
      #expect(log.problems[1].message.contains("neither"))
      // The line without a time continues the save's message (a message printed over lines);
      // the one that holds a second sync message is a problem.
      #expect(log.linesSkipped == 0)
      #expect(log.events.filter { $0.kind == .save(records: 1) }.count == 2)
    }
  }

  @Test func theEventLogKeysCoreDataEventsOnTheirIdentifierAndSortsByTime() throws {
    try withTemporaryDirectory { folder in
      let path = folder + "/events.ndjson"
      let lines = [
        #"{"time":"2026-03-01T10:00:00Z","device":"iphone","account":"a","source":"app","event":"save","records":3}"#,
        // Core Data posts an event at its start and again at its end, with one identifier.
        #"{"time":"2026-03-01T10:00:01Z","device":"iphone","account":"a","source":"coreData","event":"export","id":"E1","start":"2026-03-01T10:00:01Z","end":null}"#,
        #"{"time":"2026-03-01T10:00:02Z","device":"iphone","account":"a","source":"coreData","event":"export","id":"E1","start":"2026-03-01T10:00:01Z","end":"2026-03-01T10:00:01.5Z","succeeded":true}"#,
        #"{"time":"2026-03-01T10:00:02Z","device":"iphone","account":"a","source":"coreData","event":"export","id":"E1","start":"2026-03-01T10:00:01Z","end":"2026-03-01T10:00:01.5Z","succeeded":true}"#,
        // Out of order: this line's time is before the one above.
        #"{"time":1772359200.5,"device":"ipad","account":"a","source":"app","event":"appState","state":"foreground"}"#,
        #"{"time":"2026-03-01T10:00:05+01:00","device":"ipad","account":"a","source":"syncEngine","event":"willFetchChanges","reason":"scheduled"}"#,
        #"{"time":"2026-03-01T10:00:06Z","device":"ipad","account":"a","source":"syncEngine","event":"didFetchChanges","reason":"scheduled"}"#,
        #"{"time":"2026-03-01T10:00:07Z","device":"ipad","account":"a","source":"app","event":"futureThing"}"#,
        #"{"time":"2026-03-01T10:00:08Z","device":"ipad","source":"app","event":"save","records":0}"#,
        #"{"time":"2026-03-01T10:00:09Z","device":"ipad","source":"app","event":"save""#,
      ]
      try lines.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
      let log = try SyncLogReader.read([path])
      #expect(log.duplicateEvents == 1)
      #expect(log.problems.map(\.line) == [9, 10])
      #expect(log.linesSkipped == 1)
      #expect(log.linesOutOfOrder == 2)
      #expect(log.firstOutOfOrder?.line == 5)
      #expect(log.remarks.contains { $0.contains("events.ndjson:5") && $0.contains("jump back 60 min") })
      #expect(log.events.map(\.time) == log.events.map(\.time).sorted())
      let trace = SyncTrace(log)
      let export = try #require(trace.activities.first { $0.work == .export })
      #expect(export.finishedAt! - export.startedAt == 500_000)
      #expect(trace.saves.map(\.records) == [3])
      // The +01:00 fetch began an hour before the UTC lines: 09:00:05 UTC.
      let fetch = try #require(trace.activities.first { $0.work == .import })
      #expect(LogClock.text(fetch.startedAt) == "2026-03-01T09:00:05.000000Z")
      // Its end is read at its own time: a device's clock zone is the app's to get right.
      #expect(fetch.finishedAt! - fetch.startedAt == 3_601_000_000)
    }
  }

  @Test func clockTextRoundTrips() {
    for text in ["1970-01-01T00:00:00.000000Z", "2026-11-27T23:59:59.999999Z", "1969-12-31T23:59:59.500000Z"] {
      #expect(LogClock.microseconds(text[...]).map(LogClock.text) == text)
    }
    #expect(LogClock.microseconds("2026-02-30T00:00:00Z") != nil)  // read as written: no calendar check beyond ranges
    #expect(LogClock.microseconds("2026-13-01T00:00:00Z") == nil)
    #expect(LogClock.microseconds("2026-01-01T00:00:00+0530") == 1_767_205_800_000_000)
  }
}
