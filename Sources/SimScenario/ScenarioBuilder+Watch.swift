import SimKernel
import SimMetrics
import SimModel

/// Watched writes (`WriteWatch`): a timeline edit's `"watch": "name"`, and the top-level `watch`
/// object of name → `{"device": d, "at": t}` or `{"device": d, "last": true}`.
extension ScenarioBuilder {
  /// A watch name is part of a column name (`watch.<name>.latency`).
  static func isWatchName(_ name: String) -> Bool {
    !name.isEmpty && name.utf8.count <= 64
      && name.unicodeScalars.allSatisfy { ($0.isASCII && $0.properties.isAlphabetic) || ("0"..."9").contains($0) || $0 == "-" || $0 == "_" }
  }

  /// The watch of a timeline entry whose `watch` is `node`: the first write of its one device at
  /// or after `at`, which is the edit itself (or a bulk insert's first save).
  func timelineWatch(
    _ node: JSONNode, _ path: String, at: SimDuration, devices: [Int], action: TimelineAction.Action
  ) -> WriteWatch? {
    let watchPath = ScenarioReader.join(path, "watch")
    guard let name = watchName(node, watchPath) else { return nil }
    switch action {
    case .edit, .bulkInsert, .bulkDelete: break
    default:
      reader.problem(
        watchPath, "only an edit, bulkInsert or bulkDelete makes a write to watch",
        hint: "move \"watch\" to the entry of the edit whose arrival you want")
      return nil
    }
    guard devices.count == 1 else {
      reader.problem(
        watchPath, "a watched edit must name one device (this entry names \(devices.count))",
        hint: "give the watched edit an entry of its own, for one device")
      return nil
    }
    return WriteWatch(name: name, device: devices[0], at: at, last: false)
  }

  /// The top-level `watch` object, with `timeline`'s watches: every one, in name order.
  func watches(_ node: JSONNode?, timeline: [WriteWatch], _ targets: Targets, _ spec: WorldSpec) -> [WriteWatch] {
    var result = timeline
    if let node {
      guard case .object(let members) = node.value else {
        reader.problem(
          "watch", "expected an object, got \(node.value.typeName)",
          hint: "{\"myEdit\": {\"device\": \"ipad\", \"at\": \"2h\"}}")
        return result
      }
      for (name, entry) in members {
        let path = ScenarioReader.join("watch", name)
        guard Self.isWatchName(name) else {
          reader.problem(path, "\"\(name)\" cannot name a watched write", hint: Self.watchNameHint)
          continue
        }
        guard let watch = topLevelWatch(entry, path, name: name, targets, spec) else { continue }
        result.append(watch)
      }
    }
    var seen = Set<String>()  // membership only
    for watch in result where !seen.insert(watch.name).inserted {
      reader.problem("watch", "the watched write \"\(watch.name)\" is named twice", hint: "give each its own name")
    }
    return result.sorted { $0.name < $1.name }
  }

  static let watchNameHint = "letters, digits, '-' and '_' (it becomes the column watch.<name>.latency)"

  func watchName(_ node: JSONNode, _ path: String) -> String? {
    guard let name = reader.string(node, path) else { return nil }
    guard Self.isWatchName(name) else {
      reader.problem(path, "\"\(name)\" cannot name a watched write", hint: Self.watchNameHint)
      return nil
    }
    return name
  }

  /// `{"device": d, "at": t}` (its first write at or after t) or `{"device": d, "last": true}`.
  func topLevelWatch(_ node: JSONNode, _ path: String, name: String, _ targets: Targets, _ spec: WorldSpec)
    -> WriteWatch?
  {
    guard let fields = reader.object(node, path, known: ["device", "at", "last"]) else { return nil }
    let device = reader.required(fields, "device", path) { node, devicePath -> Int? in
      guard let deviceName = reader.string(node, devicePath) else { return nil }
      guard let found = targets.resolve(deviceName), found.count == 1 else {
        reader.problem(
          devicePath, "\"\(deviceName)\" is not one device",
          hint: "a device's name, or a group member's (\"phone#0\"): one of \(targets.names.prefix(6).joined(separator: ", "))")
        return nil
      }
      return found[0]
    }
    let last = fields["last"].flatMap { reader.bool($0, ScenarioReader.join(path, "last")) } ?? false
    let at = fields["at"].flatMap { self.at($0, ScenarioReader.join(path, "at"), spec) }
    guard (fields["at"] != nil) != last else {
      reader.problem(
        path, "a watched write needs \"at\" (its device's first write at or after) or \"last\": true, not both",
        hint: "{\"device\": \"ipad\", \"at\": \"2h\"} or {\"device\": \"ipad\", \"last\": true}")
      return nil
    }
    guard let device, last || at != nil else { return nil }
    return WriteWatch(name: name, device: device, at: at, last: last)
  }
}
