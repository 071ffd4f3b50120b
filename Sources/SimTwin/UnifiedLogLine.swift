/// One message of the unified log (a record: its first line and the lines that continue it,
/// joined with spaces), read for the sync events it names: Core Data's `CoreData+CloudKit`
/// messages, dasd's decisions and lifecycle on `com.apple.coredata.cloudkit.activity.*`, apsd's
/// receipts for a CloudKit container topic (TN3163's `Received message for enabled topic` and the
/// newer `receivedPushWithTopic`), and CloudKit's push handler. Shapes from Apple's TN3163 and
/// TN3164, WWDC22 session 10119 and logs developers posted (`docs/event-log.md` quotes them).
/// Failures in a message are `SyncFailureReader`'s.
enum UnifiedLogLine {
  enum Outcome: Equatable {
    case event(time: Int64, LogEvent.Kind)
    /// A `Finished request` line: it finishes the work its request names (an import is known by
    /// its request's class when the log has no `Beginning automated import`), or, when it names
    /// no class (older OS builds), the work in progress.
    case finishedRequest(time: Int64, request: Request, succeeded: Bool, error: String?)
    /// `Executing: <NSCloudKitMirroringImportRequest …>`: the work starts, unless it already has.
    case executing(time: Int64, LogEvent.Work)
    case objectsToExport(time: Int64, count: Int)
    case skip
    case problem(String)
  }

  /// What a `Finished request` names.
  enum Request: Equatable {
    case work(LogEvent.Work)
    /// A request of another class (a zone reset, a share's acceptance): it finishes no work.
    case other(String)
    /// No class printed.
    case unnamed
  }

  /// dasd's policy names, with and without spaces (iOS versions differ), as SyncSim's.
  static let policyNames: [String: String] = [
    "activitygrouppolicy": "activityGroup", "activityratelimitpolicy": "rateLimit",
    "ratelimitpolicy": "rateLimit", "lowpowermodepolicy": "lowPowerMode", "networkqualitypolicy": "network",
    "networkpolicy": "network", "batterylevelpolicy": "criticalBattery", "thermalpolicy": "thermal",
    "applicationpolicy": "application", "deviceactivitypolicy": "deviceActivity",
  ]

  /// Core Data's request classes and the work each is (`NSCloudKitMirroring…Request`).
  static let requestClasses: [(name: String, work: LogEvent.Work)] = [
    ("NSCloudKitMirroringExportRequest", .export), ("NSCloudKitMirroringImportRequest", .import),
    ("NSCloudKitMirroringDelegateSetupRequest", .setup),
  ]

  /// Markers of the messages read; a message with one that does not parse is a problem.
  static let markers = [
    "com.apple.coredata.cloudkit.activity.", "Observed context save", "Beginning automated",
    "Finished request", "Finished automatic", "Scheduling automated import", "Received message for enabled topic",
    "Got notification for subscription", "objects needing export", "receivedPushWithTopic", "Executing: <NSCloudKitMirroring",
    "Running handler for notification",
  ]

  /// Bytes every sync record holds somewhere: Core Data's messages carry its `CoreData+CloudKit`
  /// prefix, dasd's name the activity, apsd's the topic, CKSyncEngine's its subsystem; failures
  /// pasted on their own carry an error.
  static let anchors: [[UInt8]] = [
    "CoreData+CloudKit", "com.apple.coredata.cloudkit.", "enabled topic", "receivedPushWithTopic", "com.apple.cloudkit",
    "<CKError", "CKError \"", "CKErrorDomain", "Error Domain=NSCocoaErrorDomain Code=134", "CloudKit integration", "NSCloudKitMirroring",
  ].map { Array($0.utf8) }

  static func read(message: Substring, at time: Int64) -> Outcome {
    guard markers.contains(where: { message.has($0) }) else { return .skip }
    if let range = message.byteRange(of: "com.apple.coredata.cloudkit.activity.") {
      return dasd(message, activity: message[range.upperBound...], at: time)
    }
    if message.has("Observed context save") { return .event(time: time, .save(records: 1)) }
    if message.has("Beginning automated export") { return .event(time: time, .started(.export, trigger: nil)) }
    if message.has("Beginning automated import") { return .event(time: time, .started(.import, trigger: nil)) }
    if message.has("Scheduling automated import") { return importScheduled(message, at: time) }
    if message.has("Received message for enabled topic") || message.has("receivedPushWithTopic") {
      return message.has("com.apple.icloud-container.") ? .event(time: time, .pushReceived) : .skip
    }
    if message.has("Got notification for subscription") || message.has("Running handler for notification") {
      return .event(time: time, .pushHandled)
    }
    if let range = message.byteRange(of: "Executing: <NSCloudKitMirroring") {
      let name = "NSCloudKitMirroring" + message[range.upperBound...].prefix { $0 != ":" && $0 != ">" && $0 != " " }
      guard let work = requestClasses.first(where: { $0.name == name })?.work else { return .skip }
      return .executing(time: time, work)
    }
    if let range = message.byteRange(of: " objects needing export") {
      let before = message[..<range.lowerBound]
      guard let space = before.lastIndex(of: " "), let count = Int(before[before.index(after: space)...]),
        count >= 0, count < 1 << 40
      else {
        return .problem("a \"Found N objects needing export\" message without its count")
      }
      return .objectsToExport(time: time, count: count)
    }
    if message.has("Finished automatic export") || message.has("Finished automatic import")
      || message.has("Finished request")
    {
      return finished(message, at: time)
    }
    return .skip
  }

  static func importScheduled(_ message: Substring, at time: Int64) -> Outcome {
    guard let open = message.byteRange(of: "activity ("), let close = message[open.upperBound...].firstIndex(of: ")")
    else { return .problem("an import schedule message without its activity in parentheses") }
    let label = message[open.upperBound..<close]
    let trigger = label == "Push" ? "push" : label.hasPrefix("Database-LastFetchDate") ? "poll" : String(label)
    return .event(time: time, .importRequested(trigger: trigger))
  }

  static func finished(_ message: Substring, at time: Int64) -> Outcome {
    guard let success = message.byteRange(of: "success: "), let digit = message[success.upperBound...].first,
      digit == "0" || digit == "1"
    else { return .problem("a finished message without \"success: 0\" or \"success: 1\"") }
    let error = errorText(message)
    if message.has("Finished automatic") {
      let work: LogEvent.Work = message.has("Finished automatic export") ? .export : .import
      return .event(time: time, .finished(work, succeeded: digit == "1", records: nil, error: error))
    }
    var request = Request.unnamed
    if let range = message.byteRange(of: "Finished request: <") {
      let name = message[range.upperBound...].prefix { $0 != ":" && $0 != ">" && $0 != " " }
      request = requestClasses.first(where: { $0.name == name }).map { .work($0.work) } ?? .other(String(name))
    }
    return .finishedRequest(time: time, request: request, succeeded: digit == "1", error: error)
  }

  /// `Error Domain=NSCocoaErrorDomain Code=134417` as `NSCocoaErrorDomain 134417`; nil for `(null)`.
  static func errorText(_ message: Substring) -> String? {
    guard let domain = message.byteRange(of: "Error Domain=") else { return nil }
    let rest = message[domain.upperBound...]
    let name = rest.prefix { $0 != " " }
    var text = String(name)
    if let code = rest.byteRange(of: "Code=") {
      let digits = rest[code.upperBound...].prefix { $0.isNumber || $0 == "-" }.prefix(12)
      if !digits.isEmpty { text += " " + digits }
    }
    return text
  }

  /// dasd's messages about a Core Data activity: a decision, in TN3163's long form
  /// (`… FinalDecision: Can Proceed`) or the newer short one (`… Decision: CP}`, `MNP`, `AMNP`),
  /// and its lifecycle (`STARTING activity …` is a decision to proceed; the rest are skipped).
  static func dasd(_ message: Substring, activity rest: Substring, at time: Int64) -> Outcome {
    let kindWord = rest.prefix { $0 != "." && $0 != ":" }
    guard let work = LogEvent.Work(rawValue: String(kindWord)) else {
      return .problem("a dasd message for an unknown Core Data activity \"\(kindWord.prefix(20))\"")
    }
    if message.has("STARTING activity") || message.has("STARTING <") {
      return .event(time: time, .decision(work, proceeds: true, refusedBy: []))
    }
    guard let (verdict, policies) = verdictAndPolicies(rest) else {
      // Other dasd messages about the activity (submission, completion, "startAfter" adjustments)
      // carry no decision.
      return .skip
    }
    guard let proceeds = proceeds(verdict) else {
      return .problem("a dasd decision that is neither \"Can Proceed\", \"Must Proceed\" nor \"Must Not Proceed\" (or CP, MP, MNP, AMNP)")
    }
    var refusedBy: [String] = []
    if !proceeds {
      // Each policy's block: `{name: Activity Group Policy, policyWeight: ..., response: {Decision: Must Not Proceed`
      // or, in the short form, `response: {MNP, 0.00, [...]}`.
      var cursor = policies
      while let name = cursor.byteRange(of: "name:") {
        let after = cursor[name.upperBound...]
        let policy = after.drop { $0 == " " }.prefix { $0 != "," && $0 != "}" }
        let nextName = after.byteRange(of: "name:")?.lowerBound ?? after.endIndex
        let block = after[..<nextName]
        if block.has("Must Not Proceed") || block.has("MustNotProceed") || block.has("{MNP") || block.has("{AMNP")
          || block.has("Decision: MNP") || block.has("Decision: AMNP")
        {
          let key = policy.filter { $0 != " " }.lowercased()
          refusedBy.append(policyNames[key] ?? policy.trimmingSpaces())
        }
        cursor = after[nextName...]
      }
    }
    return .event(time: time, .decision(work, proceeds: proceeds, refusedBy: refusedBy))
  }

  /// The final verdict and the policy list before it: `FinalDecision: X`, or the last
  /// `Decision: X` outside the policies' braces.
  static func verdictAndPolicies(_ rest: Substring) -> (verdict: Substring, policies: Substring)? {
    if let final = rest.byteRange(of: "FinalDecision:") {
      return (rest[final.upperBound...].drop { $0 == " " }, rest[..<final.lowerBound])
    }
    // The short form: the verdict is the `Decision:` at brace depth 0 (policies' own decisions
    // stand inside `{…}`).
    var depth = 0
    var index = rest.startIndex
    var found: Range<Substring.Index>?
    while index < rest.endIndex {
      let character = rest[index]
      if character == "{" || character == "[" {
        depth += 1
      } else if character == "}" || character == "]" {
        depth = max(0, depth - 1)
      } else if depth == 0, character == "D", rest[index...].hasPrefix("Decision:") {
        found = index..<rest.index(index, offsetBy: 9)
      }
      index = rest.index(after: index)
    }
    guard let found else { return nil }
    return (rest[found.upperBound...].drop { $0 == " " }, rest[..<found.lowerBound])
  }

  /// Whether a verdict lets the activity run; nil when it is none dasd prints.
  static func proceeds(_ verdict: Substring) -> Bool? {
    let word = verdict.prefix { $0 != "}" && $0 != "," }.trimmingSpaces()
    if word.hasPrefix("Must Not Proceed") || word.hasPrefix("MustNotProceed") { return false }
    if word.hasPrefix("Can Proceed") || word.hasPrefix("Must Proceed") || word.hasPrefix("CanProceed")
      || word.hasPrefix("MustProceed")
    {
      return true
    }
    let code = word.prefix { $0 != " " }
    switch code {
    case "CP", "MP": return true
    case "MNP", "AMNP": return false
    default: return nil
    }
  }
}

extension StringProtocol {
  /// The text without its leading and trailing spaces.
  func trimmingSpaces() -> String {
    String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
  }
}
