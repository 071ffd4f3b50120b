import SimMetrics
import SimScenario

/// Writes events as a real app's logs would hold them: SyncSim's event log (JSON lines, one per
/// event, all devices in one file) and one device's unified log as `log show` prints it. A line
/// holds nothing but numbers, fixed words and the device and account names, which are escaped.
public enum EventLogWriter {
  /// SyncSim's event log. Core Data's events are written as `eventChangedNotification` posts
  /// them: once when the work starts (`end` null) and once when it ends, with one identifier.
  /// dasd decisions, import requests and apsd receipts are the unified log's, not the app's.
  public static func eventLog(_ events: [LogEvent], devices: [SyncLog.Device]) -> String {
    var out = ""
    var open: [[LogEvent.Work: [(id: Int, start: Int64)]]] = Array(repeating: [:], count: devices.count)
    var nextID = 0
    for event in events {
      let device = devices[event.device]
      let head =
        "{\"time\":\"\(LogClock.text(event.time))\",\"device\":\(quote(device.name)),\"account\":\(quote(device.account)),"
      switch event.kind {
      case .save(let records): out += head + "\"source\":\"app\",\"event\":\"save\",\"records\":\(records)}\n"
      case .appState(let state): out += head + "\"source\":\"app\",\"event\":\"appState\",\"state\":\(quote(state))}\n"
      case .power(let battery, let lowPower, let plugged):
        var fields = ""
        if let battery { fields += ",\"batteryPercent\":\(CSVTable.number(battery))" }
        if let lowPower { fields += ",\"lowPowerMode\":\(lowPower)" }
        if let plugged { fields += ",\"pluggedIn\":\(plugged)" }
        out += head + "\"source\":\"app\",\"event\":\"power\"\(fields)}\n"
      case .pushHandled: out += head + "\"source\":\"app\",\"event\":\"push\"}\n"
      case .started(let work, _):
        nextID += 1
        open[event.device][work, default: []].append((nextID, event.time))
        out += head + "\"source\":\"coreData\",\"event\":\"\(work.rawValue)\",\"id\":\"\(identifier(nextID))\","
          + "\"start\":\"\(LogClock.text(event.time))\",\"end\":null}\n"
      case .finished(let work, let succeeded, let records, let error):
        guard let first = open[event.device][work]?.first else { continue }
        open[event.device][work]!.removeFirst()
        var fields = ",\"succeeded\":\(succeeded)"
        if let records { fields += ",\"records\":\(records)" }
        if let error {
          let parts = error.split(separator: " ", maxSplits: 1)
          fields += ",\"errorDomain\":\(quote(String(parts[0])))"
          if parts.count > 1, let code = Int(parts[1]) { fields += ",\"errorCode\":\(code)" }
        }
        out += head + "\"source\":\"coreData\",\"event\":\"\(work.rawValue)\",\"id\":\"\(identifier(first.id))\","
          + "\"start\":\"\(LogClock.text(first.start))\",\"end\":\"\(LogClock.text(event.time))\"\(fields)}\n"
      case .decision, .importRequested, .pushReceived, .pending: continue
      }
    }
    return out
  }

  /// One device's unified log, in `log show`'s default plain-text form, with the messages Core
  /// Data, dasd and apsd print (TN3163's shapes; `docs/event-log.md`), over several lines where
  /// they print so: Core Data's `… - Beginning automated export - %@:\n%@`, the import's schedule,
  /// dasd's policy list, a failed request's CKError.
  public static func unifiedLog(_ events: [LogEvent], device: Int, app: String = "App") -> String {
    var out = "Timestamp                       Thread     Type        Activity             PID    TTL  \n"
    for message in messages(events, device: device, app: app) {
      let stamp = LogClock.unifiedText(message.time)
      let head: String
      switch message.process {
      case .app:
        head = "\(stamp) 0x1f2e     \(message.isError ? "Error  " : "Default")     0x0                  412    0    \(app): (CoreData) "
          + "[com.apple.coredata:CloudKit] "
      case .dasd:
        head = "\(stamp) 0x2a3b     Default     0x0                  98     0    dasd: (DuetActivitySchedulerDaemon) "
          + "[com.apple.duetactivityscheduler:scoring] "
      case .apsd:
        head = "\(stamp) 0x3c4d     Default     0x0                  77     0    apsd: [com.apple.apsd:connection] "
      }
      out += head + message.lines.joined(separator: "\n") + "\n"
    }
    return out
  }

  /// One device's Xcode console as Xcode shows it with its metadata (the date and `App[pid:tid]`):
  /// only the app's own messages (no dasd, no apsd), each error printed twice, bare and with
  /// Core Data's prefix, as Xcode prints them.
  public static func xcodeConsole(_ events: [LogEvent], device: Int, app: String = "App") -> String {
    var out = ""
    for message in messages(events, device: device, app: app) where message.process == .app {
      let stamp = LogClock.unifiedText(message.time)
      let text = message.lines.joined(separator: "\n")
      if message.isError {
        out += "\(stamp) \(app)[412:1f2e] error: \(text)\n"
        out += "\(stamp) \(app)[412:1f2e] CoreData: error: \(text)\n"
      } else {
        out += "\(stamp) \(app)[412:1f2e] CoreData: CloudKit: \(text)\n"
      }
    }
    return out
  }

  /// A message a device prints: who prints it, its lines, and whether it is an error.
  struct Message {
    enum Process { case app, dasd, apsd }
    var time: Int64
    var process: Process
    var lines: [String]
    var isError = false
  }

  /// The messages of one device's events, as Core Data, dasd and apsd print them.
  static func messages(_ events: [LogEvent], device: Int, app: String) -> [Message] {
    let storeID = "A73C42D5-ADEE-4758-B2A1-F75DEBF93702"
    let core = "CoreData+CloudKit: "
    var out: [Message] = []
    var request = 0
    var requests: [LogEvent.Work: [Int]] = [:]
    for event in events where event.device == device {
      let time = event.time
      switch event.kind {
      case .save:
        out.append(Message(time: time, process: .app, lines: [core + "-[NSCloudKitMirroringDelegate managedObjectContextSaved:](3097): <NSCloudKitMirroringDelegate: 0x1>: Observed context save: <NSPersistentStoreCoordinator: 0x2> - <NSManagedObjectContext: 0x3>"]))
      case .decision(let work, let proceeds, let refusedBy):
        let policies =
          proceeds
          ? ["\t{name: Application Policy, policyWeight: 25.000, response: {Decision: Can Proceed, Score: 0.60}}"]
          : refusedBy.map { "\t{name: \(dasdName($0)), policyWeight: 1.000, response: {Decision: Must Not Proceed, Score: 0.00}}" }
        out.append(Message(
          time: time, process: .dasd,
          lines: ["501:com.apple.coredata.cloudkit.activity.\(work.rawValue).\(storeID):0B1380:["] + policies
            + [" ], FinalDecision: \(proceeds ? "Can Proceed" : "Must Not Proceed")}"]))
      case .importRequested(let trigger):
        let label = trigger == "push" ? "Push" : trigger == "poll" ? "Database-LastFetchDate-2026-01-01 00:00:00 +0000" : trigger
        out.append(Message(time: time, process: .app, lines: [
          core + "-[NSCloudKitMirroringDelegate checkAndScheduleImportIfNecessary:andStartAfterDate:]_block_invoke(3268): "
            + "<NSCloudKitMirroringDelegate: 0x1>: Scheduling automated import with activity (\(label)):", "<private>",
        ]))
      case .started(let work, _):
        request += 1
        requests[work, default: []].append(request)
        let label = work == .export ? "Export" : work == .import ? "Import" : "Setup"
        out.append(Message(time: time, process: .app, lines: [
          core + "-[NSCloudKitMirroringDelegate _scheduleAutomated\(label)WithLabel:activity:voucher:completionHandler:](3702): "
            + "<NSCloudKitMirroringDelegate: 0x1> - Beginning automated \(work.rawValue) - \(label)Activity:", "<private>",
        ]))
      case .pending(let records):
        out.append(Message(time: time, process: .app, lines: [
          core + "-[PFCloudKitExporter exportIfNecessary]_block_invoke_2(345): <PFCloudKitExporter: 0x4>: Found \(records) objects needing export."
        ]))
      case .finished(let work, let succeeded, let records, let error):
        let number = requests[work]?.isEmpty == false ? requests[work]!.removeFirst() : { request += 1; return request }()
        let className = work == .export ? "NSCloudKitMirroringExportRequest" : work == .import ? "NSCloudKitMirroringImportRequest"
          : "NSCloudKitMirroringDelegateSetupRequest"
        var lines = [
          core + "-[NSCloudKitMirroringDelegate _finishedRequest:withResult:](3584): Finished request: <\(className): 0x5> "
            + "\(identifier(number)) with result: <NSCloudKitMirroringResult: 0x6> storeIdentifier: \(storeID) "
            + "success: \(succeeded ? 1 : 0) madeChanges: \((records ?? 0) > 0 ? 1 : 0) error: "
        ]
        if let error {
          let parts = error.split(separator: " ", maxSplits: 1)
          let code = parts.count > 1 ? String(parts[1]) : "0"
          lines[0] += "Error Domain=\(parts[0]) Code=\(code) \"(null)\""
          if parts[0] == "CKErrorDomain" { lines.append("<CKError 0x7: \"\(ckErrorName(code))\" (\(code))>") }
        } else {
          lines[0] += "(null)"
        }
        out.append(Message(time: time, process: .app, lines: lines, isError: !succeeded))
      case .pushReceived:
        out.append(Message(time: time, process: .apsd, lines: [
          "Received message for enabled topic 'com.apple.icloud-container.com.example.\(app)' onInterface: <private> "
            + "with payload '<private>' with priority 5 for device token: YES isProxyMessage: NO"
        ]))
      case .pushHandled:
        out.append(Message(time: time, process: .app, lines: [
          core + "-[NSCloudKitMirroringDelegate _respondToPushNotification:forSubscription:]_block_invoke(896): "
            + "<NSCloudKitMirroringDelegate: 0x1> - Got notification for subscription: com.apple.coredata.cloudkit.private.subscription"
        ]))
      case .appState, .power: continue
      }
    }
    return out
  }

  /// CKError's name for a code, as its description prints it.
  static func ckErrorName(_ code: String) -> String {
    switch code {
    case "3": "Network Unavailable"
    case "4": "Network Failure"
    case "6": "Service Unavailable"
    case "7": "Request Rate Limited"
    case "9": "Not Authenticated"
    case "23": "Zone Busy"
    case "26": "Zone Not Found"
    case "27": "Limit Exceeded"
    default: "Error"
    }
  }

  static func dasdName(_ policy: String) -> String {
    switch policy {
    case "activityGroup": "Activity Group Policy"
    case "rateLimit": "ActivityRateLimitPolicy"
    case "lowPowerMode": "Low Power Mode Policy"
    case "network": "Network Quality Policy"
    case "criticalBattery": "Battery Level Policy"
    case "thermal": "Thermal Policy"
    default: policy
    }
  }

  /// A UUID-shaped identifier made from a count (the same run writes the same identifiers).
  static func identifier(_ count: Int) -> String {
    let hex = String(count, radix: 16, uppercase: true)
    return "00000000-0000-0000-0000-" + String(repeating: "0", count: max(0, 12 - hex.count)) + hex
  }

  /// A JSON string literal (the scenario writer's escaping).
  static func quote(_ text: String) -> String { JSONNode.quote(text) }
}
