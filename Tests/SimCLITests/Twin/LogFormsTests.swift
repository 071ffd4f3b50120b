import Foundation
import SimScenario
import SimTestSupport
import Testing

@testable import SimTwin

/// One export on an iPhone and its import on an iPad, written by this test (not by SyncSim's
/// writer) in each text form a developer can get, with Core Data's messages over several lines
/// as they print (`%@ - Beginning automated export - %@:\n%@`, dasd's policy list, a CKError),
/// and no `Beginning automated import` line: each form must give the same events (issue 77).
@Suite struct LogFormsTests {
  /// A message as a device logs it: seconds after 2023-12-07 14:14:15 local (+0100), the
  /// process, its subsystem and category, and its lines.
  struct Message: Sendable {
    var seconds: Double
    var process: String
    var pid: Int
    var subsystem: String
    var lines: [String]
  }

  static let app = "YourCoolApp"
  static let coreData = "com.apple.coredata:CloudKit"

  static let iphone: [Message] = [
    Message(
      seconds: 0.227567, process: app, pid: 1203, subsystem: coreData,
      lines: [
        "CoreData+CloudKit: -[NSCloudKitMirroringDelegate managedObjectContextSaved:](3097): <NSCloudKitMirroringDelegate: 0x1>: Observed context save: <NSPersistentStoreCoordinator: 0x2> - <NSManagedObjectContext: 0x3>"
      ]),
    Message(
      seconds: 0.609957, process: "dasd", pid: 97, subsystem: "com.apple.duetactivityscheduler:scoring",
      lines: [
        "501:com.apple.coredata.cloudkit.activity.export.A73C42D5-ADEE-4758-B2A1-F75DEBF93702:0B1380:[",
        "\t{name: Activity Group Policy, policyWeight: 0.500, response: {Decision: Must Not Proceed, Score: 0.00}}",
        " ], FinalDecision: Must Not Proceed}",
      ]),
    Message(
      seconds: 1.1, process: "dasd", pid: 97, subsystem: "com.apple.duetactivityscheduler:scoring",
      lines: [
        "501:com.apple.coredata.cloudkit.activity.export.A73C42D5-ADEE-4758-B2A1-F75DEBF93702:0B1380:[",
        "\t{name: Application Policy, policyWeight: 25.0, response: {CP, 0.60, []}}",
        " ], Decision: CP}",
      ]),
    Message(
      seconds: 1.621530, process: app, pid: 1203, subsystem: coreData,
      lines: [
        "CoreData+CloudKit: -[NSCloudKitMirroringDelegate _scheduleAutomatedExportWithLabel:activity:voucher:completionHandler:](3702): <NSCloudKitMirroringDelegate: 0x1> - Beginning automated export - ExportActivity:",
        "<private>",
      ]),
    Message(
      seconds: 1.656255, process: app, pid: 1203, subsystem: coreData,
      lines: ["CoreData+CloudKit: -[PFCloudKitExporter exportIfNecessary]_block_invoke_2(345): <PFCloudKitExporter: 0x4>: Found 3 objects needing export."]),
    Message(
      seconds: 2.0, process: app, pid: 1203, subsystem: coreData,
      lines: [
        "CoreData+CloudKit: -[NSCloudKitMirroringDelegate _finishedRequest:withResult:](3584): Finished request: <NSCloudKitMirroringExportRequest: 0x5> EAD940DB-330A-4DDF-9892-41286F9FE95A with result: <NSCloudKitMirroringResult: 0x6> storeIdentifier: A73C42D5-ADEE-4758-B2A1-F75DEBF93702 success: 1 madeChanges: 1 error: (null)"
      ]),
    Message(
      seconds: 30.0, process: app, pid: 1203, subsystem: coreData,
      lines: [
        "CoreData+CloudKit: -[NSCloudKitMirroringDelegate _finishedRequest:withResult:](3584): Finished request: <NSCloudKitMirroringExportRequest: 0x7> 0F1E2D3C-0000-4000-8000-000000000007 with result: <NSCloudKitMirroringResult: 0x8> storeIdentifier: A73C42D5-ADEE-4758-B2A1-F75DEBF93702 success: 0 madeChanges: 0 error: Error Domain=CKErrorDomain Code=7 \"Request Rate Limited\" UserInfo={CKRetryAfter=20.5}",
        "<CKError 0x9: \"Request Rate Limited\" (7/2061); Retry after 20.5 seconds>",
      ]),
  ]

  static let ipad: [Message] = [
    Message(
      seconds: 2.5, process: "apsd", pid: 88, subsystem: "com.apple.apsd:connection",
      lines: [
        "Received message for enabled topic 'com.apple.icloud-container.com.example.YourCoolApp' onInterface: <private> with payload '<private>' with priority 5 for device token: YES isProxyMessage: NO"
      ]),
    Message(
      seconds: 2.6, process: app, pid: 1300, subsystem: coreData,
      lines: [
        "CoreData+CloudKit: -[NSCloudKitMirroringDelegate _respondToPushNotification:forSubscription:]_block_invoke(896): <NSCloudKitMirroringDelegate: 0x1> - Got notification for subscription: com.apple.coredata.cloudkit.private.subscription"
      ]),
    Message(
      seconds: 2.7, process: app, pid: 1300, subsystem: coreData,
      lines: [
        "CoreData+CloudKit: -[NSCloudKitMirroringDelegate checkAndScheduleImportIfNecessary:andStartAfterDate:]_block_invoke(3268): <NSCloudKitMirroringDelegate: 0x1>: Scheduling automated import with activity (Push):",
        "<private>",
      ]),
    Message(
      seconds: 2.9, process: app, pid: 1300, subsystem: coreData,
      lines: [
        "CoreData+CloudKit: -[NSCloudKitMirroringDelegate checkAndExecuteNextRequest]_block_invoke(3566): <NSCloudKitMirroringDelegate: 0x1>: Executing: <NSCloudKitMirroringImportRequest: 0xa> 2D00459F-8C08-4E9A-BC44-FCE1CD29A550"
      ]),
    Message(
      seconds: 3.5, process: app, pid: 1300, subsystem: coreData,
      lines: [
        "CoreData+CloudKit: -[NSCloudKitMirroringDelegate _finishedRequest:withResult:](3584): Finished request: <NSCloudKitMirroringImportRequest: 0xa> 2D00459F-8C08-4E9A-BC44-FCE1CD29A550 with result: <NSCloudKitMirroringResult: 0xb> storeIdentifier: B73C42D5-ADEE-4758-B2A1-F75DEBF93702 success: 1 madeChanges: 1 error: (null)"
      ]),
  ]

  /// The forms, each a function of one message. `time` is the digits of the second's fraction
  /// the form prints (6 or 3); `dated` whether it prints the date; `zoned` the offset.
  struct Form: Sendable {
    var name: String
    var write: @Sendable (Message) -> [String]
    var fraction: Int
    var timed = true
    var dated = true
    var zoned = true
    var header: [String] = []
    var footer: [String] = []
    var separator: String?
  }

  static func stamp(_ seconds: Double, fraction: Int, date: Bool = true, zone: Bool = true) -> String {
    let micro = Int((seconds * 1e6).rounded())
    let second = 15 + micro / 1_000_000
    var text = "14:14:\(second < 10 ? "0" : "")\(second)"
    let part = String(micro % 1_000_000 + 1_000_000).dropFirst()
    text += "." + part.prefix(fraction)
    return (date ? "2023-12-07 " : "") + text + (zone ? "+0100" : "")
  }

  static let forms: [Form] = [
    Form(
      name: "log show default",
      write: { m in
        ["\(stamp(m.seconds, fraction: 6)) 0x2b4f1    Default     0x0                  \(m.pid)   0    \(m.process): (CoreData) [\(m.subsystem)] \(m.lines[0])"]
          + m.lines.dropFirst()
      }, fraction: 6,
      header: ["Filtering the log data using \"subsystem == \\\"com.apple.coredata\\\"\"", "Timestamp                       Thread     Type        Activity             PID    TTL  "]),
    Form(
      name: "log show --style syslog",
      write: { m in ["\(stamp(m.seconds, fraction: 6)) localhost \(m.process)[\(m.pid)]: (CoreData) [\(m.subsystem)] \(m.lines[0])"] + m.lines.dropFirst() },
      fraction: 6),
    Form(
      name: "log show --style compact",
      write: { m in ["\(stamp(m.seconds, fraction: 3, zone: false)) Df \(m.process)[\(m.pid):2b4f1] [\(m.subsystem)] \(m.lines[0])"] + m.lines.dropFirst() },
      fraction: 3, zoned: false, header: ["Timestamp               Ty Process[PID:TID]"]),
    Form(
      name: "log show --style ndjson",
      write: { m in
        ["{\"timestamp\":\"\(stamp(m.seconds, fraction: 6))\",\"processImagePath\":\"/usr/libexec/\(m.process)\",\"eventMessage\":\(JSONNode.quote(m.lines.joined(separator: "\n"))),\"messageType\":\"Default\"}"]
      }, fraction: 6),
    Form(
      name: "log show --style json",
      write: { m in
        ["{", "  \"timestamp\" : \"\(stamp(m.seconds, fraction: 6))\",", "  \"eventMessage\" : \(JSONNode.quote(m.lines.joined(separator: "\n"))),", "  \"processID\" : \(m.pid)", "}"]
      }, fraction: 6, header: ["["], footer: ["]"], separator: ","),
    Form(
      name: "Xcode console with metadata",
      write: { m in ["\(stamp(m.seconds, fraction: 6)) \(m.process)[\(m.pid):2b4f1] CoreData: CloudKit: \(m.lines[0])"] + m.lines.dropFirst() },
      fraction: 6),
    Form(
      name: "Xcode console as copied",
      write: { m in ["CoreData: CloudKit: \(m.lines[0])"] + m.lines.dropFirst() }, fraction: 0, timed: false, dated: false,
      zoned: false),
    Form(
      name: "Console.app Copy",
      write: { m in ["default\t\(stamp(m.seconds, fraction: 6, date: false))\t\(m.process)\t\(m.lines[0])"] + m.lines.dropFirst() },
      fraction: 6, dated: false),
    Form(
      name: "technote example",
      write: { m in ["default  … \(stamp(m.seconds, fraction: 6, date: false, zone: false)) …  \(m.process)  "] + m.lines + [""] },
      fraction: 6, dated: false, zoned: false),
  ]

  /// What a form's files give: each device's event kinds in order, and their times.
  func read(_ form: Form, in folder: String) throws -> (log: SyncLog, kinds: [[LogEvent.Kind]]) {
    var paths: [String] = []
    for (device, messages) in [("iphone", Self.iphone), ("ipad", Self.ipad)] {
      var lines = form.header
      for (index, message) in messages.enumerated() {
        var written = form.write(message)
        if let separator = form.separator, index < messages.count - 1 { written[written.count - 1] += separator }
        lines += written
      }
      lines += form.footer
      let path = folder + "/\(device).log"
      try lines.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
      paths.append(path)
    }
    var options = SyncLogReader.Options()
    options.date = LogClock.days(year: 2023, month: 12, day: 7)
    options.utcOffsetSeconds = 3600
    let log = try SyncLogReader.read(paths, options: options)
    var kinds: [[LogEvent.Kind]] = Array(repeating: [], count: log.devices.count)
    for event in log.events { kinds[event.device].append(event.kind) }
    return (log, kinds)
  }

  @Test func everyFormGivesTheSameEvents() throws {
    try withTemporaryDirectory { folder in
      let reference = try read(Self.forms[0], in: folder)
      #expect(reference.log.problems.isEmpty)
      #expect(reference.log.devices.map(\.name) == ["iphone", "ipad"])
      // save, two decisions, export begun, 3 pending, finished; a failed export known by its
      // request; push, handler, import requested, started (no Beginning line), finished.
      #expect(reference.kinds[0].count == 8)
      #expect(reference.kinds[1].count == 5)
      #expect(reference.kinds[0][1] == .decision(.export, proceeds: false, refusedBy: ["activityGroup"]))
      #expect(reference.kinds[0][2] == .decision(.export, proceeds: true, refusedBy: []))
      #expect(reference.kinds[1][3] == .started(.import, trigger: nil))
      #expect(reference.log.findings.count == 1)
      #expect(reference.log.findings[0].code == 7 && reference.log.findings[0].retryAfterSeconds == 20.5)
      for form in Self.forms.dropFirst() {
        let read = try read(form, in: folder)
        #expect(read.log.problems.isEmpty, "\(form.name): \(read.log.problems)")
        #expect(read.kinds == reference.kinds, "\(form.name)")
        #expect(read.log.findings.map(\.code) == [7], "\(form.name)")
        #expect(read.log.isTimed == form.timed, "\(form.name)")
        guard form.timed else { continue }
        // The same instants, to the precision the form prints.
        let scale = Int64(pow(10, Double(6 - form.fraction)))
        #expect(read.log.events.map { $0.time / scale } == reference.log.events.map { $0.time / scale }, "\(form.name)")
      }
    }
  }

  /// The two-device log with no `Beginning automated import`: the save's row is visible on the
  /// iPad, with each stage the log shows.
  @Test func aTwoDeviceLogWithoutImportBeginningsHasItsRowVisible() throws {
    try withTemporaryDirectory { folder in
      let trace = SyncTrace(try read(Self.forms[0], in: folder).log)
      #expect(trace.rows.count == 1)
      let row = trace.rows[0]
      let save = trace.saves[row.save]
      #expect(row.visibleAt != nil)
      #expect(abs(Double(row.visibleAt! - save.time) / 1e6 - 3.272433) < 1e-6)
      #expect(abs(Double(row.notifiedAt! - save.time) / 1e6 - 2.372433) < 1e-6)
      let imported = trace.activities[row.importActivity!]
      #expect(imported.trigger == "push")
      #expect(abs(Double(imported.startedAt - save.time) / 1e6 - 2.672433) < 1e-6)
    }
  }
}
