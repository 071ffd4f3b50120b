import SimKernel
import SimModel
import SimScenario

/// A random small world and fault schedule for the swarm, as a scenario file.
struct SwarmWorld {
  var json: String

  /// Draws a world: accounts, devices, stores (a shared zone in half the worlds), each device's
  /// sync client (Core Data in half the worlds, CKSyncEngine in a quarter, mixed in a quarter),
  /// edits before the heal, faults before the heal (a CKSyncEngine app's save outside its engine,
  /// then a relaunch, on a fifth of those devices), and the heal itself.
  static func draw(_ random: inout RandomStream, name: String) -> SwarmWorld {
    let heal = Swarm.healAt.seconds
    let accounts = 1 + Int(random.nextInt(below: 3))
    let sharedParticipants: [Int] = accounts > 1 && random.bernoulli(0.5) ? Array(1..<accounts) : []
    let clientMix = random.nextInt(below: 4)  // 0, 1: Core Data; 2: CKSyncEngine; 3: mixed
    var engineDevices: [String] = []
    var devices: [(name: String, account: Int)] = []
    var deviceJSON: [String] = []
    for account in 0..<accounts {
      for index in 0..<(1 + Int(random.nextInt(below: 3))) {
        let name = "a\(account)d\(index)"
        devices.append((name, account))
        var stores = "[\"private\""
        if !sharedParticipants.isEmpty {
          stores +=
            ", {\"shared\": {\"owner\": 0, \"participants\": [\(sharedParticipants.map(String.init).joined(separator: ", "))]}}"
        }
        stores += "]"
        let state = ["foreground", "background", "suspended"][Int(random.nextInt(below: 3))]
        var client = ""
        if clientMix == 2 || (clientMix == 3 && random.bernoulli(0.5)) {
          engineDevices.append(name)
          client =
            random.bernoulli(0.5)
            ? #", "client": "syncEngine""# : #", "client": "syncEngine", "syncEngine": {"sendOnResign": true}"#
        }
        deviceJSON.append(
          "    {\"name\": \"\(name)\", \"account\": \(account), \"appState\": \"\(state)\", \"stores\": \(stores)\(client)}"
        )
      }
    }
    var timeline: [(at: Double, text: String)] = []
    func at(_ seconds: Double) -> String { "\"\(Int(seconds))s\"" }
    // Edits before the heal, some on the shared store.
    for device in devices {
      for _ in 0..<(1 + Int(random.nextInt(below: 6))) {
        let time = random.uniform(60, heal - 600)
        let kind = ["insert", "insert", "update", "delete"][Int(random.nextInt(below: 4))]
        let store = !sharedParticipants.isEmpty && random.bernoulli(0.3) ? ", \"store\": 1" : ""
        timeline.append(
          (
            time,
            "{\"at\": \(at(time)), \"devices\": \"\(device.name)\", \"action\": {\"edit\": {\"kind\": \"\(kind)\"\(store)}}}"
          ))
      }
    }
    // Faults before the heal.
    let faultCount = 1 + Int(random.nextInt(below: 6))
    var throttled = false
    for _ in 0..<faultCount {
      let device = devices[Int(random.nextInt(below: UInt64(devices.count)))].name
      let start = random.uniform(0, heal - 300)
      let end = min(heal - 60, start + random.uniform(60, 3600))
      func pair(_ on: String, _ off: String) {
        timeline.append((start, "{\"at\": \(at(start)), \"devices\": \"\(device)\", \"action\": \(on)}"))
        timeline.append((end, "{\"at\": \(at(end)), \"devices\": \"\(device)\", \"action\": \(off)}"))
      }
      // One of the faults the timeline's actions declare (`SwarmFault.all`), then its heal.
      let fault = SwarmFault.all[Int(random.nextInt(below: UInt64(SwarmFault.all.count)))]
      pair(fault.on, fault.off)
      if fault.couplesAccounts { throttled = true }
    }
    // Re-creating the container is Core Data's.
    let coreDataDevices = devices.map(\.name).filter { !engineDevices.contains($0) }
    if random.bernoulli(0.1) && !coreDataDevices.isEmpty {
      let device = coreDataDevices[Int(random.nextInt(below: UInt64(coreDataDevices.count)))]
      let time = random.uniform(600, heal - 600)
      let remove = random.bernoulli(0.5) ? "true" : "false"
      timeline.append(
        (
          time,
          "{\"at\": \(at(time)), \"devices\": \"\(device)\", \"action\": {\"toggleSync\": {\"removeStoreFirst\": \(remove)}}}"
        ))
    }
    // A CKSyncEngine app saves a record outside its engine, then is relaunched (the engine takes
    // the record only then: docs/sync-engine.md).
    var savedOutside: [String] = []
    for device in engineDevices where random.bernoulli(0.2) {
      savedOutside.append(device)
      let time = random.uniform(120, heal - 600)
      for (offset, action) in [(0.0, "saveOutsideEngine"), (60.0, "terminate"), (120.0, "launch")] {
        timeline.append(
          (time + offset, "{\"at\": \(at(time + offset)), \"devices\": \"\(device)\", \"action\": \"\(action)\"}"))
      }
    }
    // Thermal pressure on one device, with the thermal policy in the set (off by default).
    var thermal = false
    if random.bernoulli(0.15) {
      let device = devices[Int(random.nextInt(below: UInt64(devices.count)))].name
      let start = random.uniform(0, heal - 300)
      let end = min(heal - 60, start + random.uniform(60, 3600))
      let level = ["heavy", "trapping", "sleeping"][Int(random.nextInt(below: 3))]
      timeline.append(
        (
          start,
          "{\"at\": \(at(start)), \"devices\": \"\(device)\", \"action\": {\"set\": {\"thermal\": \"\(level)\"}}}"
        ))
      timeline.append(
        (end, "{\"at\": \(at(end)), \"devices\": \"\(device)\", \"action\": {\"set\": {\"thermal\": \"nominal\"}}}"))
      thermal = true
    }
    if thermal {
      timeline.append(
        (heal, "{\"at\": \(at(heal)), \"devices\": \"all\", \"action\": {\"set\": {\"thermal\": \"nominal\"}}}"))
    }
    // The heal: each declared fault's own heal (so a new fault is healed too), then every app
    // launched and brought to the foreground.
    for action in SwarmFault.heal {
      timeline.append((heal, "{\"at\": \(at(heal)), \"devices\": \"all\", \"action\": \(action)}"))
    }
    // Pushes may still be dropped (a parameter), and a foreground app imports only on a push or
    // an activation (spec §7): the person opens every app once more, after the exports of the
    // heal have committed.
    let again = heal + Swarm.reactivateAfter.seconds
    // A save outside the engine reaches the engine's own store only at a relaunch, and only if it
    // had committed by then (docs/sync-engine.md): with zoneBusy answers and network failures its
    // commit can come after the relaunch drawn above, and a launch of a running app is no
    // relaunch. So the person quits and reopens those apps once everything has committed.
    for device in savedOutside {
      for (offset, action) in [(-120.0, "terminate"), (-60.0, "launch")] {
        timeline.append(
          (again + offset, "{\"at\": \(at(again + offset)), \"devices\": \"\(device)\", \"action\": \"\(action)\"}"))
      }
    }
    for action in ["\"background\"", "\"activate\""] {
      timeline.append((again, "{\"at\": \(at(again)), \"devices\": \"all\", \"action\": \(action)}"))
    }
    // CKSyncEngine does not fetch on activation: the person pulls to refresh (fetchChanges).
    for device in engineDevices {
      timeline.append((again, "{\"at\": \(at(again)), \"devices\": \"\(device)\", \"action\": \"fetchChanges\"}"))
    }
    timeline.sort { $0.at < $1.at }
    // Faults that are parameters (the keys ParameterTable gives a swarm range): they cannot be
    // healed, and must not stop convergence.
    var drawn = drawParameters(&random)
    var text = "{\n  \"version\": 1,\n  \"name\": \"\(name)\",\n"
    text +=
      "  \"description\": \"A syncsim swarm world: random devices, edits and faults, healed at \(Int(heal / 60)) min.\",\n"
    text += "  \"seed\": \(random.nextInt(below: 1_000_000)),\n"
    text += "  \"duration\": \"\(Int((Swarm.healAt + Swarm.livenessBound).seconds / 60))m\",\n"
    text += "  \"accounts\": \(accounts),\n  \"devices\": [\n" + deviceJSON.joined(separator: ",\n") + "\n  ],\n"
    // The container's throttle only where a fault forces it: it couples every account (one part),
    // and a world without it runs in parts, which the swarm compares with one kernel.
    var cloud = drawn["cloud"] ?? []
    if throttled {
      cloud.insert("\"throttle\": {\"requestsPerSecond\": 1000, \"retryAfter\": {\"constant\": \"30s\"}}", at: 0)
    }
    drawn["cloud"] = cloud
    if thermal { drawn["scheduler", default: []].append("\"policies\": {\"thermal\": {}}") }
    for section in ["cloud", "push", "polling", "scheduler"] {
      guard let members = drawn[section], !members.isEmpty else { continue }
      text += "  \"\(section)\": {" + members.joined(separator: ", ") + "},\n"
    }
    text += "  \"timeline\": [\n" + timeline.map { "    " + $0.text }.joined(separator: ",\n") + "\n  ],\n"
    text += "  \"outputs\": [\"summary\"]\n}\n"
    return SwarmWorld(json: text)
  }

  /// Draws each key with a swarm range, in the table's order: with its probability a value in
  /// its range, otherwise nothing (the default). The members by section, as JSON text.
  static func drawParameters(
    _ random: inout RandomStream, table: [ParameterDefinition<WorldSpec>] = ParameterSet.standard.world
  ) -> [String: [String]] {
    var drawn: [String: [String]] = [:]
    for definition in table {
      // A range is for a key directly in a section (the table's test holds that).
      guard let range = definition.swarm, definition.steps.count == 2, random.bernoulli(range.probability) else {
        continue
      }
      var value = random.uniform(range.lower, range.upper)
      if range.whole { value = value.rounded(.down) }
      let text: String
      if case .duration = definition.kind {
        text = "\"\(format(value))s\""
      } else {
        text = format(value)
      }
      let steps = definition.steps
      drawn[steps[0], default: []].append("\"\(steps.dropFirst().joined(separator: "."))\": \(text)")
    }
    return drawn
  }

  static func format(_ value: Double) -> String {
    let rounded = (value * 1000).rounded() / 1000
    return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
  }
}
