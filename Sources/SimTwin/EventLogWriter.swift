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

  /// One device's unified log, in `log show`'s plain-text form, with the messages Core Data,
  /// dasd and apsd print (TN3163's shapes; `docs/event-log.md`).
  public static func unifiedLog(_ events: [LogEvent], device: Int, app: String = "App") -> String {
    let storeID = "A73C42D5-ADEE-4758-B2A1-F75DEBF93702"
    var out = "Timestamp                       Thread     Type        Activity             PID    TTL  \n"
    var request = 0
    for event in events where event.device == device {
      let stamp = LogClock.unifiedText(event.time)
      let appHead = "\(stamp) 0x1f2e     Default     0x0                  412    0    \(app): (CoreData) "
        + "[com.apple.coredata:CoreData+CloudKit] CoreData+CloudKit: "
      switch event.kind {
      case .save:
        out += appHead + "-[NSCloudKitMirroringDelegate managedObjectContextSaved:](3097): : Observed context save: -\n"
      case .decision(let work, let proceeds, let refusedBy):
        let policies =
          proceeds
          ? "{name: Application Policy, policyWeight: 25.000, response: {Decision: Can Proceed, Score: 0.60}}"
          : refusedBy.map {
            "{name: \(dasdName($0)), policyWeight: 1.000, response: {Decision: Must Not Proceed, Score: 0.00}}"
          }.joined(separator: " ")
        out += "\(stamp) 0x2a3b     Default     0x0                  98     0    dasd: (DuetActivitySchedulerDaemon) "
          + "[com.apple.duetactivityscheduler:scoring] 501:com.apple.coredata.cloudkit.activity.\(work.rawValue)."
          + "\(storeID):0B1380:[\(policies)] FinalDecision: \(proceeds ? "Can Proceed" : "Must Not Proceed")}\n"
      case .importRequested(let trigger):
        let label = trigger == "push" ? "Push" : trigger == "poll" ? "Database-LastFetchDate-2026-01-01 00:00:00 +0000" : trigger
        out += appHead + "-[NSCloudKitMirroringDelegate checkAndScheduleImportIfNecessary:andStartAfterDate:]"
          + "_block_invoke(3268): : Scheduling automated import with activity (\(label)):\n"
      case .started(.export, _):
        out += appHead + "-[NSCloudKitMirroringDelegate _scheduleAutomatedExportWithLabel:activity:voucher:"
          + "completionHandler:](3633): - Beginning automated export - ExportActivity:\n"
      case .started(let work, _):
        out += appHead + "-[NSCloudKitMirroringDelegate _scheduleAutomated\(work == .import ? "Import" : "Setup")"
          + "WithLabel:activity:voucher:completionHandler:](3633): - Beginning automated \(work.rawValue) - "
          + "\(work == .import ? "Import" : "Setup")Activity:\n"
      case .pending(let records):
        out += appHead + "-[PFCloudKitExporter exportIfNecessary]_block_invoke_2(345): : Found \(records) objects "
          + "needing export.\n"
      case .finished(_, let succeeded, let records, let error):
        request += 1
        let errorText = error.map { text -> String in
          let parts = text.split(separator: " ", maxSplits: 1)
          return "Error Domain=\(parts[0]) Code=\(parts.count > 1 ? String(parts[1]) : "0") \"(null)\""
        } ?? "(null)"
        out += appHead + "-[NSCloudKitMirroringDelegate _finishedRequest:withResult:](3542): Finished request: "
          + "\(identifier(request)) with result: storeIdentifier: \(storeID) success: \(succeeded ? 1 : 0) "
          + "madeChanges: \((records ?? 0) > 0 ? 1 : 0) error: \(errorText)\n"
      case .pushReceived:
        out += "\(stamp) 0x3c4d     Default     0x0                  77     0    apsd: [com.apple.apsd:connection] "
          + "Received message for enabled topic 'com.apple.icloud-container.com.example.\(app)' onInterface: "
          + "with payload '' with priority 5 for device token: YES isProxyMessage: NO\n"
      case .pushHandled:
        out += appHead + "-[NSCloudKitMirroringDelegate _respondToPushNotification:forSubscription:]_block_invoke"
          + "(896): - Got notification for subscription: com.apple.coredata.cloudkit.private.subscription\n"
      case .appState, .power: continue
      }
    }
    return out
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
