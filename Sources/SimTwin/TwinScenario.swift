import SimKernel
import SimScenario

/// A twin's scenario: the base scenario the developer wrote (devices, stores, settings), with
/// the log's own usage replayed in its timeline (each save, app state and power change at its
/// logged time) and the fitted values set. Its `workloads`, `timeline`, `expect` and `sweep`
/// are replaced, and its `usage` too when the log has app states: the log says what the app did.
public struct TwinScenario: Sendable {
  public let base: JSONNode
  public let file: String
  /// The base's device names, in order.
  public let deviceNames: [String]

  /// Why a base and a log do not go together.
  public struct Mismatch: Error, Sendable {
    public var message: String
    public var hint: String
  }

  public init(base: JSONNode, file: String, deviceNames: [String]) {
    self.base = base
    self.file = file
    self.deviceNames = deviceNames
  }

  /// The log's devices missing from the base (none: every one can be replayed).
  public func missingDevices(_ log: SyncLog) -> [String] {
    log.devices.map(\.name).filter { !deviceNames.contains($0) }
  }

  /// The document replaying `log` from `start` to `end` (microseconds), with `values` (key path
  /// → JSON text) set.
  public func document(_ log: SyncLog, from start: Int64, to end: Int64, values: [(String, String)] = [])
    -> Result<JSONNode, Mismatch>
  {
    var node = base.removingMember("workloads").removingMember("timeline").removingMember("expect")
      .removingMember("sweep")
    // The log's own app states replace the base's modelled sessions.
    if log.events.contains(where: { if case .appState = $0.kind { true } else { false } }) {
      node = node.removingMember("usage")
    }
    let seconds = Double(end - start) / 1e6
    guard seconds > 0 else { return .failure(Mismatch(message: "the log's window is empty", hint: "a longer log")) }
    var entries: [String] = []
    var initial: [Int: String] = [:]
    for event in log.events {
      let name = log.devices[event.device].name
      guard let device = deviceNames.firstIndex(of: name) else { continue }
      if event.time < start {
        if case .appState(let state) = event.kind { initial[device] = Self.initialState(after: state) }
        continue
      }
      guard event.time < end else { break }
      // Before its first logged state the app was in the state that one leaves: an app that
      // comes to the front was in the background (or not running, for a launch).
      if initial[device] == nil, case .appState(let state) = event.kind { initial[device] = Self.state(before: state) }
      let at = TwinParameter.decimal(Double(event.time - start) / 1e6, digits: 12)
      for action in Self.actions(event.kind) {
        entries.append("{\"at\": \"\(at)s\", \"devices\": [\(JSONNode.quote(name))], \"action\": \(action)}")
      }
    }
    guard entries.count <= ScenarioDecoder.Limits.maxTimelineEntries else {
      return .failure(
        Mismatch(
          message: "the log's window holds \(entries.count) saves and state changes, over the timeline's limit of "
            + "\(ScenarioDecoder.Limits.maxTimelineEntries)",
          hint: "fit a shorter part of the log"))
    }
    let parsed = try? JSONParser.parse(Array(("[" + entries.joined(separator: ",") + "]").utf8))
    var settings: [(String, String)] = [("duration", "\"\(TwinParameter.decimal(seconds, digits: 12))s\"")] + values
    settings.append(("timeline", "[]"))
    for (path, text) in settings {
      guard let steps = JSONNode.parsePath(path), let value = try? JSONParser.parse(Array(text.utf8)) else { continue }
      if case .success(let updated) = node.setting(value, at: steps[...]) { node = updated }
    }
    if let parsed, case .success(let updated) = node.setting(parsed, at: [.key("timeline")][...]) { node = updated }
    if case .object(var members) = node.value, let index = members.firstIndex(where: { $0.key == "devices" }),
      case .array(var devices) = members[index].value.value
    {
      for (device, state) in initial.sorted(by: { $0.key < $1.key }) where device < devices.count {
        if case .success(let updated) = devices[device].setting(
          JSONNode(value: .string(state), line: 0, column: 0), at: [.key("appState")][...])
        {
          devices[device] = updated
        }
      }
      members[index].value.value = .array(devices)
      node.value = .object(members)
    }
    return .success(node)
  }

  /// The app state a device was in before its first logged state change.
  static func state(before state: String) -> String {
    switch state {
    case "launch": "notRunning"
    case "foreground": "background"
    default: "foreground"
    }
  }

  /// The app state a device is in after a logged state change.
  static func initialState(after state: String) -> String {
    switch state {
    case "terminate": "notRunning"
    case "background": "background"
    default: "foreground"
    }
  }

  /// The timeline actions that replay an event (none: the model makes it itself).
  static func actions(_ kind: LogEvent.Kind) -> [String] {
    switch kind {
    case .save(let records):
      return [records <= 1 ? "{\"edit\": \"update\"}" : "{\"bulkInsert\": {\"count\": \(min(records, 1_000_000))}}"]
    case .appState("launch"): return ["\"launch\""]
    case .appState("foreground"): return ["\"activate\""]
    case .appState("background"): return ["\"background\""]
    case .appState("terminate"): return ["\"terminate\""]
    case .power(let battery, let lowPower, let plugged):
      var out: [String] = []
      if let lowPower { out.append("{\"lowPower\": \(lowPower)}") }
      if let battery { out.append("{\"battery\": \(TwinParameter.decimal(battery, digits: 4))}") }
      if let plugged { out.append(plugged ? "\"plug\"" : "\"unplug\"") }
      return out
    default: return []
    }
  }
}
