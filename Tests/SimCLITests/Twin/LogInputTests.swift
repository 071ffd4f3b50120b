import Foundation
import SimTestSupport
import Testing

@testable import SimTwin

/// Bad input on the log reader's surface (issue 77): numbers out of range, names that would
/// reach the terminal raw, clocks set wrong, and files named for another device.
@Suite struct LogInputTests {
  static func write(_ lines: [String], _ path: String) throws {
    try lines.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
  }

  /// `errorCode`, `records`, `saved`, `deleted` of 1e300 (or a sum past 64 bits) trapped trace and fit.
  @Test func countsOutOfRangeAreProblemsWithTheirLine() throws {
    try withTemporaryDirectory { folder in
      let path = folder + "/events.ndjson"
      try Self.write(
        [
          #"{"time":"2026-03-01T10:00:00Z","device":"iphone","source":"coreData","event":"export","id":"E1","start":"2026-03-01T10:00:00Z","end":"2026-03-01T10:00:01Z","errorDomain":"CKErrorDomain","errorCode":1e300}"#,
          #"{"time":"2026-03-01T10:00:02Z","device":"iphone","source":"coreData","event":"export","id":"E2","start":"2026-03-01T10:00:02Z","end":"2026-03-01T10:00:03Z","records":-1}"#,
          #"{"time":"2026-03-01T10:00:04Z","device":"iphone","source":"syncEngine","event":"sentRecordZoneChanges","saved":1e300,"deleted":1e300}"#,
          #"{"time":"2026-03-01T10:00:05Z","device":"iphone","source":"syncEngine","event":"sentRecordZoneChanges","saved":9e18,"deleted":9e18}"#,
          #"{"time":"2026-03-01T10:00:06Z","device":"iphone","source":"syncEngine","event":"fetchedRecordZoneChanges","modifications":2.5}"#,
          #"{"time":"2026-03-01T10:00:07Z","device":"iphone","source":"syncEngine","event":"sentRecordZoneChanges","saved":3,"deleted":2}"#,
        ], path)
      let log = try SyncLogReader.read([path])
      #expect(log.problems.map(\.line) == [1, 2, 3, 4, 5])
      #expect(log.events.contains { $0.kind == .finished(.export, succeeded: true, records: 5, error: nil) })
      let traced = syncsim("trace", path, "--out", folder + "/trace")
      #expect(traced.code == 0)
    }
  }

  /// A device name with a terminal escape (a window title) is printed escaped in every line.
  @Test func namesReachTheTerminalEscaped() throws {
    try withTemporaryDirectory { folder in
      let path = folder + "/events.ndjson"
      try Self.write(
        [
          #"{"time":"2026-03-01T10:00:00Z","device":"ip\u001b]0;owned\u0007hone","source":"app","event":"save"}"#,
          #"{"time":"2026-03-01T10:00:01Z","device":"ip\u001b]0;owned\u0007hone","source":"app","event":"push"}"#,
        ], path)
      let traced = syncsim("trace", path, "--out", folder + "/trace")
      #expect(traced.code == 0)
      #expect(!traced.out.contains("\u{1B}") && !traced.err.contains("\u{1B}"))
      #expect(traced.out.contains("\\u{1B}]0;owned"))
    }
  }

  /// Undecodable bytes in a device's name made a second device: now a problem with its line.
  @Test func undecodableBytesInANameAreAProblemNotADevice() throws {
    try withTemporaryDirectory { folder in
      let path = folder + "/events.ndjson"
      var bytes = Array(#"{"time":"2026-03-01T10:00:00Z","device":"ip"#.utf8) + [0xFF]
      bytes += Array(#"hone","source":"app","event":"save"}"#.utf8) + [10]
      bytes += Array(#"{"time":"2026-03-01T10:00:01Z","device":"iphone","source":"app","event":"save"}"#.utf8) + [10]
      FileManager.default.createFile(atPath: path, contents: Data(bytes))
      let log = try SyncLogReader.read([path])
      #expect(log.devices.map(\.name) == ["iphone"])
      #expect(log.problems.map(\.line) == [1])
      #expect(log.problems.first?.message.contains("not UTF-8") == true)
    }
  }

  /// A line dated year 0001 beside 2026's stretched the log to two thousand years.
  @Test func aTimeFarFromTheRestIsAProblemAndLeftOut() throws {
    try withTemporaryDirectory { folder in
      let path = folder + "/phone.log"
      try Self.write(
        [
          "2026-03-01 10:00:00.000000+0000 0x1 Default 0x0 1 0 App: CoreData+CloudKit: Observed context save: -",
          "0001-01-01 10:00:01.000000+0000 0x1 Default 0x0 1 0 App: CoreData+CloudKit: Observed context save: -",
          "2026-03-01 10:00:02.000000+0000 0x1 Default 0x0 1 0 App: CoreData+CloudKit: Observed context save: -",
        ], path)
      let log = try SyncLogReader.read([path])
      #expect(log.problems.count == 1)
      #expect(log.problems[0].line == 2 && log.problems[0].message.contains("0001-01-01"))
      #expect(log.events.count == 2)
      #expect(log.span.map { $0.end - $0.start } == 2_000_000)
    }
  }

  /// In a dated file, a line without an anchor is kept as bytes: when the line after it
  /// continues it with one (dasd's activity on its own line), the record is read after all.
  @Test func aRecordWhoseAnchorIsOnItsSecondLineIsRead() throws {
    try withTemporaryDirectory { folder in
      let path = folder + "/phone.log"
      try Self.write(
        [
          "2023-12-07 14:14:15.000000+0100 0x1 Default 0x0 311 0 locationd: (CoreLocation) [com.apple.locationd:Core] a line of another process",
          "2023-12-07 14:14:15.609957+0100 0x5e0b1 Default 0x0 97 0 dasd: (DuetActivitySchedulerDaemon) [com.apple.duetactivityscheduler:scoring]",
          "501:com.apple.coredata.cloudkit.activity.export.A73C42D5-ADEE-4758-B2A1-F75DEBF93702:0B1380:[",
          "\t{name: Activity Group Policy, policyWeight: 0.500, response: {Decision: Must Not Proceed, Score: 0.00}}",
          " ], FinalDecision: Must Not Proceed}",
          "2023-12-07 14:14:16.000000+0100 0x1 Default 0x0 311 0 locationd: (CoreLocation) [com.apple.locationd:Core] another",
        ], path)
      let log = try SyncLogReader.read([path])
      #expect(log.problems.isEmpty)
      #expect(log.events.map(\.kind) == [.decision(.export, proceeds: false, refusedBy: ["activityGroup"])])
      #expect(log.events.first.map { LogClock.text($0.time) } == "2023-12-07T13:14:15.609957Z")
      #expect(log.linesSkipped == 2)
    }
  }

  /// `FILE=DEVICE` names a file's device; `--date` and `--utc-offset` are checked.
  @Test func aFileNamedForAnotherDeviceTakesTheNameGiven() throws {
    try withTemporaryDirectory { folder in
      let path = folder + "/system_logs.txt"
      try Self.write(
        ["2026-03-01 10:00:00.123 Df App[1:2] [com.apple.coredata:CloudKit] CoreData+CloudKit: Observed context save: -"], path)
      let traced = syncsim("trace", path + "=ipad", "--utc-offset", "+0100", "--out", folder + "/trace")
      #expect(traced.code == 0, "\(traced.err)")
      #expect(traced.out.contains("devices      1 (ipad)"))
      let timeline = try ResultTable(path: folder + "/trace/summary.csv")
      #expect(timeline.rows.first?["writes"] == "1")
      #expect(syncsim("trace", path, "--date", "2026-13-01").code == 64)
      #expect(syncsim("trace", path, "--utc-offset", "0100").code == 64)
      #expect(syncsim("trace", path + "=").code == 64)
    }
  }
}
