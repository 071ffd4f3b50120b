import SimScenario

/// One line of SyncSim's event log (`docs/event-log.md`): a JSON object with `time`, `device`,
/// `account`, `source` and `event`, read into events. Unknown events of a known source are
/// skipped (a newer writer may log more); a line with a known event and a bad field is a problem.
enum EventLogLine {
  /// What one line gives: events (a Core Data event may give its start and its end), or a
  /// problem, or nothing (a line to skip).
  enum Outcome {
    case events(device: (name: String, account: String), [(time: Int64, kind: LogEvent.Kind)], key: String?)
    case skip
    case problem(String)
  }

  static let syncEngineEvents: Set<String> = [
    "willSendChanges", "didSendChanges", "willFetchChanges", "didFetchChanges", "sentRecordZoneChanges",
    "fetchedRecordZoneChanges", "sentDatabaseChanges", "fetchedDatabaseChanges", "stateUpdate", "accountChange",
    "willFetchRecordZoneChanges", "didFetchRecordZoneChanges",
  ]

  static func read(_ object: [(key: String, value: JSONNode)]) -> Outcome {
    func member(_ key: String) -> JSONValue? { object.first(where: { $0.key == key })?.value.value }
    func string(_ key: String) -> String? {
      if case .string(let text)? = member(key) { return text }
      return nil
    }
    func number(_ key: String) -> Double? {
      if case .number(_, let value)? = member(key) { return value }
      return nil
    }
    /// A count: absent (`.some(nil)`), or a whole number from 0 to 10^12; nil when it is neither.
    func count(_ key: String) -> Int?? {
      switch member(key) {
      case nil, .null?: return .some(nil)
      case .number(_, let value)?:
        guard value.isFinite, value >= 0, value <= 1e12, value == value.rounded() else { return nil }
        return .some(Int(value))
      default: return nil
      }
    }
    func bool(_ key: String) -> Bool? {
      if case .bool(let value)? = member(key) { return value }
      return nil
    }
    func time(_ key: String) -> Int64?? {
      switch member(key) {
      case nil, .null?: return .some(nil)
      case .string(let text)?: return LogClock.microseconds(text[...]).map { .some($0) }
      case .number(_, let seconds)?:
        guard seconds.isFinite, abs(seconds) < 1e11 else { return nil }
        return .some(Int64((seconds * 1e6).rounded()))
      default: return nil
      }
    }
    guard let source = string("source"), let event = string("event") else {
      return .problem("an event line needs \"source\" and \"event\" (strings)")
    }
    guard let device = string("device"), !device.isEmpty else {
      return .problem("an event line needs \"device\" (a non-empty string)")
    }
    let account = string("account") ?? ""
    guard let stamped = time("time") else {
      return .problem("\"time\" is not a time (ISO 8601 with an offset, or seconds since 1970)")
    }
    switch source {
    case "app": return app(event, at: stamped, device: (device, account), string: string, number: number, bool: bool)
    case "coreData":
      guard let work = LogEvent.Work(rawValue: event) else { return .skip }
      guard let start = time("start"), let start else {
        return .problem("a Core Data event needs \"start\" (a time)")
      }
      guard let end = time("end") else { return .problem("\"end\" is not a time (or null, for an event still running)") }
      var events: [(Int64, LogEvent.Kind)] = [(start, .started(work, trigger: nil))]
      if let end {
        guard end >= start else { return .problem("\"end\" is before \"start\"") }
        guard let code = count("errorCode"), let records = count("records") else {
          return .problem("\"errorCode\" and \"records\" are whole numbers from 0 to 10^12")
        }
        let error = string("errorDomain").map { domain in domain + (code.map { " \($0)" } ?? "") }
        let succeeded = bool("succeeded") ?? (error == nil)
        events.append((end, .finished(work, succeeded: succeeded, records: records, error: error)))
      }
      return .events(device: (device, account), events, key: string("id"))
    case "syncEngine":
      guard syncEngineEvents.contains(event) else { return .skip }
      guard let stamped else { return .problem("a CKSyncEngine event needs \"time\" (its events carry none: stamp it)") }
      let reason = string("reason")
      guard let saved = count("saved"), let deleted = count("deleted"), let failed = count("failed"),
        let modifications = count("modifications"), let deletions = count("deletions")
      else {
        return .problem("\"saved\", \"deleted\", \"failed\", \"modifications\" and \"deletions\" are whole numbers from 0 to 10^12")
      }
      let kind: LogEvent.Kind
      switch event {
      case "willSendChanges": kind = .started(.export, trigger: reason)
      case "didSendChanges": kind = .finished(.export, succeeded: (failed ?? 0) == 0, records: nil, error: nil)
      case "willFetchChanges": kind = .started(.import, trigger: reason)
      case "didFetchChanges": kind = .finished(.import, succeeded: string("error") == nil, records: nil, error: string("error"))
      case "sentRecordZoneChanges":
        // Each at most 10^12: the sum cannot overflow.
        let sent = (saved ?? 0) + (deleted ?? 0)
        let failedCount = failed ?? 0
        kind = .finished(.export, succeeded: failedCount == 0, records: sent, error: failedCount > 0 ? "failedRecordSaves \(failedCount)" : nil)
      case "fetchedRecordZoneChanges":
        kind = .finished(.import, succeeded: true, records: (modifications ?? 0) + (deletions ?? 0), error: nil)
      default: return .skip
      }
      return .events(device: (device, account), [(stamped, kind)], key: nil)
    default:
      return .skip
    }
  }

  static func app(
    _ event: String, at stamped: Int64?, device: (String, String), string: (String) -> String?,
    number: (String) -> Double?, bool: (String) -> Bool?
  ) -> Outcome {
    guard let stamped else { return .problem("an app event needs \"time\"") }
    let kind: LogEvent.Kind
    switch event {
    case "save":
      let records = number("records") ?? 1
      guard records >= 1, records <= 1e9, records == records.rounded() else {
        return .problem("\"records\" of a save is a whole number from 1")
      }
      kind = .save(records: Int(records))
    case "appState":
      guard let state = string("state"), ["launch", "foreground", "background", "terminate"].contains(state) else {
        return .problem("\"state\" is one of launch, foreground, background, terminate")
      }
      kind = .appState(state)
    case "power":
      let battery = number("batteryPercent")
      if let battery, !(0...100).contains(battery) { return .problem("\"batteryPercent\" is from 0 to 100") }
      kind = .power(batteryPercent: battery, lowPowerMode: bool("lowPowerMode"), pluggedIn: bool("pluggedIn"))
    case "push": kind = .pushHandled
    default: return .skip
    }
    return .events(device: device, [(stamped, kind)], key: nil)
  }
}
