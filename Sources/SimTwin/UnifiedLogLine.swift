/// One line of the unified log, as `log show` prints it (plain text, or a `--style ndjson`
/// object's `timestamp` and `eventMessage`), read for the sync events it names: Core Data's
/// `CoreData+CloudKit` messages, dasd's decisions on `com.apple.coredata.cloudkit.activity.*`,
/// and apsd's receipts for a CloudKit container topic. Shapes from Apple's TN3163 and TN3164 and
/// WWDC22 session 10119 (`docs/event-log.md` quotes them).
enum UnifiedLogLine {
  enum Outcome {
    case event(time: Int64, LogEvent.Kind)
    /// A `Finished request` or `Found N objects` line: it finishes or counts the work in progress.
    case finishedRequest(time: Int64, succeeded: Bool, error: String?)
    case objectsToExport(time: Int64, count: Int)
    case skip
    case problem(String)
  }

  /// dasd's policy names, with and without spaces (iOS versions differ), as SyncSim's.
  static let policyNames: [String: String] = [
    "activitygrouppolicy": "activityGroup", "activityratelimitpolicy": "rateLimit",
    "ratelimitpolicy": "rateLimit", "lowpowermodepolicy": "lowPowerMode", "networkqualitypolicy": "network",
    "networkpolicy": "network", "batterylevelpolicy": "criticalBattery", "thermalpolicy": "thermal",
    "applicationpolicy": "application", "deviceactivitypolicy": "deviceActivity",
  ]

  /// Markers of the lines read; a line with one that does not parse is a problem.
  static let markers = [
    "com.apple.coredata.cloudkit.activity.", "Observed context save", "Beginning automated",
    "Finished request", "Finished automatic", "Scheduling automated import", "Received message for enabled topic",
    "Got notification for subscription", "objects needing export",
  ]

  /// Bytes every sync line holds: Core Data's messages all carry its `CoreData+CloudKit:`
  /// prefix, dasd's name the activity, apsd's the topic.
  static let anchors: [[UInt8]] = [
    Array("CoreData+CloudKit".utf8), Array("com.apple.coredata.cloudkit.activity.".utf8),
    Array("Received message for enabled topic".utf8),
  ]

  /// Reads a plain-text line: its first two fields are the date and the time with its offset.
  static func readText(_ line: Substring) -> Outcome {
    guard markers.contains(where: { line.has($0) }) else { return .skip }
    let fields = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
    guard fields.count == 3, let time = LogClock.microseconds(line[fields[0].startIndex..<fields[1].endIndex]) else {
      return .problem("a sync line without a `log show` timestamp (YYYY-MM-DD hh:mm:ss.ffffff+zzzz) at its start")
    }
    return read(message: fields[2], at: time)
  }

  /// Reads an ndjson object's `timestamp` and `eventMessage`.
  static func readJSON(timestamp: String, message: String) -> Outcome {
    guard markers.contains(where: { message[...].has($0) }) else { return .skip }
    guard let time = LogClock.microseconds(timestamp[...]) else {
      return .problem("\"timestamp\" is not a time (\(timestamp.prefix(40)))")
    }
    return read(message: message[...], at: time)
  }

  static func read(message: Substring, at time: Int64) -> Outcome {
    if let range = message.byteRange(of: "com.apple.coredata.cloudkit.activity.") {
      return decision(message[range.upperBound...], at: time)
    }
    if message.has("Observed context save") { return .event(time: time, .save(records: 1)) }
    if message.has("Beginning automated export") { return .event(time: time, .started(.export, trigger: nil)) }
    if message.has("Beginning automated import") { return .event(time: time, .started(.import, trigger: nil)) }
    if message.has("Scheduling automated import") {
      guard let open = message.byteRange(of: "activity ("), let close = message[open.upperBound...].firstIndex(of: ")")
      else { return .problem("an import schedule line without its activity in parentheses") }
      let label = message[open.upperBound..<close]
      let trigger = label == "Push" ? "push" : label.hasPrefix("Database-LastFetchDate") ? "poll" : String(label)
      return .event(time: time, .importRequested(trigger: trigger))
    }
    if message.has("Received message for enabled topic") {
      return message.has("com.apple.icloud-container.") ? .event(time: time, .pushReceived) : .skip
    }
    if message.has("Got notification for subscription") { return .event(time: time, .pushHandled) }
    if let range = message.byteRange(of: " objects needing export") {
      let before = message[..<range.lowerBound]
      guard let space = before.lastIndex(of: " "), let count = Int(before[before.index(after: space)...]) else {
        return .problem("a \"Found N objects needing export\" line without its count")
      }
      return .objectsToExport(time: time, count: count)
    }
    if message.has("Finished automatic export") || message.has("Finished automatic import")
      || message.has("Finished request")
    {
      guard let success = message.byteRange(of: "success: ") , let digit = message[success.upperBound...].first,
        digit == "0" || digit == "1"
      else { return .problem("a finished line without \"success: 0\" or \"success: 1\"") }
      let error = errorText(message)
      if message.has("Finished automatic") {
        let work: LogEvent.Work = message.has("Finished automatic export") ? .export : .import
        return .event(time: time, .finished(work, succeeded: digit == "1", records: nil, error: error))
      }
      return .finishedRequest(time: time, succeeded: digit == "1", error: error)
    }
    return .skip
  }

  /// `Error Domain=NSCocoaErrorDomain Code=134417` as `NSCocoaErrorDomain 134417`; nil for `(null)`.
  static func errorText(_ message: Substring) -> String? {
    guard let domain = message.byteRange(of: "Error Domain=") else { return nil }
    let rest = message[domain.upperBound...]
    let name = rest.prefix { $0 != " " }
    var text = String(name)
    if let code = rest.byteRange(of: "Code=") {
      let digits = rest[code.upperBound...].prefix { $0.isNumber || $0 == "-" }
      if !digits.isEmpty { text += " " + digits }
    }
    return text
  }

  /// `export.<store>:<id>:[{name: Policy, ... Decision: ...}...] ... FinalDecision: Can Proceed`.
  static func decision(_ rest: Substring, at time: Int64) -> Outcome {
    let kindWord = rest.prefix { $0 != "." && $0 != ":" }
    guard let work = LogEvent.Work(rawValue: String(kindWord)) else {
      return .problem("a dasd line for an unknown Core Data activity \"\(kindWord.prefix(20))\"")
    }
    guard let final = rest.byteRange(of: "FinalDecision:") else {
      // Other dasd lines about the activity (submission, "startAfter" adjustments) carry no decision.
      return .skip
    }
    let verdict = rest[final.upperBound...].drop { $0 == " " }
    let proceeds: Bool
    if verdict.hasPrefix("Must Not Proceed") || verdict.hasPrefix("MustNotProceed") {
      proceeds = false
    } else if verdict.hasPrefix("Can Proceed") || verdict.hasPrefix("Must Proceed") || verdict.hasPrefix("CanProceed")
      || verdict.hasPrefix("MustProceed")
    {
      proceeds = true
    } else {
      return .problem("a dasd decision that is neither \"Can Proceed\", \"Must Proceed\" nor \"Must Not Proceed\"")
    }
    var refusedBy: [String] = []
    if !proceeds {
      // Each policy's block: `{name: Activity Group Policy, policyWeight: ..., response: {Decision: Must Not Proceed`.
      var cursor = rest[..<final.lowerBound]
      while let name = cursor.byteRange(of: "name:") {
        let after = cursor[name.upperBound...]
        let policy = after.drop { $0 == " " }.prefix { $0 != "," && $0 != "}" }
        let nextName = after.byteRange(of: "name:")?.lowerBound ?? after.endIndex
        if after[..<nextName].has("Must Not Proceed") || after[..<nextName].has("MustNotProceed") {
          let key = policy.filter { $0 != " " }.lowercased()
          refusedBy.append(policyNames[key] ?? policy.trimmingSpaces())
        }
        cursor = after[nextName...]
      }
    }
    return .event(time: time, .decision(work, proceeds: proceeds, refusedBy: refusedBy))
  }
}

extension Substring {
  func trimmingSpaces() -> String {
    String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
  }
}
