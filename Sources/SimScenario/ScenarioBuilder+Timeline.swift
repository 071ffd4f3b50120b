import SimKernel
import SimMetrics
import SimModel

/// Resolves device references: a device name, a group name, "all", or a list of these.
struct Targets {
  var groups: [ScenarioBuilder.Group]
  var names: [String]
  var deviceCount: Int
  /// Whether the spec holds one shard's devices: a member of the world outside it is named by
  /// no device of the spec, and is no error.
  var windowed = false

  func resolve(_ name: String) -> [Int]? {
    if name == "all" { return Array(0..<deviceCount) }
    if let group = groups.first(where: { $0.name == name }) { return Array(group.first..<group.first + group.count) }
    if let index = names.firstIndex(of: name) { return [index] }
    if windowed, groups.contains(where: { group in group.memberNumber(name).map { 0..<group.members ~= $0 } == true }) {
      return []
    }
    return nil
  }
}

extension ScenarioBuilder {
  /// Reads a `devices` reference and resolves it; reports unknown names with a did-you-mean.
  func targets(_ node: JSONNode?, _ path: String, _ targets: Targets) -> [Int]? {
    guard let node else {
      reader.problem(
        path, "missing required key \"devices\"", hint: "a device or group name, \"all\", or a list of names")
      return nil
    }
    var names: [(String, String)] = []
    if case .array(let elements) = node.value {
      for (index, element) in elements.enumerated() {
        if let name = reader.string(element, ScenarioReader.index(path, index)) {
          names.append((name, ScenarioReader.index(path, index)))
        }
      }
    } else if let name = reader.string(node, path) {
      names.append((name, path))
    }
    var result: [Int] = []
    for (name, namePath) in names {
      guard let devices = targets.resolve(name) else {
        if reader.isFull {
          reader.problem(namePath, "no device or group named \"\(name)\"")
          continue
        }
        let candidates = targets.groups.map(\.name) + ["all"]
        let listed = candidates.count > 12 ? candidates.prefix(10) + ["…"] : candidates[...]
        var hint =
          suggestion(for: name, among: candidates).map { "did you mean \"\($0)\"?" } ?? "devices are: "
          + listed.joined(separator: ", ")
        // "phone#5" in a group of three: name the members there are.
        if let hash = name.lastIndex(of: "#"), let group = targets.groups.first(where: { $0.name == name[..<hash] }),
          group.members > 1
        {
          hint =
            "group \"\(group.name)\" has \(group.members) members: \"\(group.name)#0\" to \"\(group.name)#\(group.members - 1)\""
        }
        reader.problem(namePath, "no device or group named \"\(name)\"", hint: hint)
        continue
      }
      if result.isEmpty {
        result = devices
      } else {
        // A set, not a scan of the list: "all" of 100,000 devices is one entry among many.
        let present = Set(result)
        result.append(contentsOf: devices.filter { !present.contains($0) })
      }
    }
    return names.isEmpty ? nil : result
  }

  func workloads(_ node: JSONNode?, _ targets: Targets, _ spec: inout WorldSpec) {
    guard let entries = reader.array(node, "workloads", maxCount: 10_000) else { return }
    let keys = ArrivalSection.workloads.keys
    for (index, entry) in entries.enumerated() {
      let path = ScenarioReader.index("workloads", index)
      guard let fields = reader.object(entry, path, known: keys) else { continue }
      let devices = self.targets(fields["devices"], ScenarioReader.join(path, "devices"), targets)
      let period = self.period(fields, path, rateKey: "editsPerHour", untilAlone: true)
      let rate =
        period.map { 3600 / $0.every.seconds }
        ?? reader.required(fields, "editsPerHour", path) { reader.number($0, $1, above: 0) }
      guard let devices, let rate else { continue }
      if rate > 360_000 {
        reader.problem(
          ScenarioReader.join(path, "editsPerHour"),
          "\(rate) edits per hour is over the limit of 360000 (100 per second)")
      }
      var workload = Workload(editsPerHour: rate)
      workload.period = period
      if period == nil {
        // Poisson edits that stop, so the run drains and its latency figures cover every write.
        workload.until = reader.duration(fields["until"], ScenarioReader.join(path, "until"))
      }
      if let share = reader.ratio(fields["insertShare"], ScenarioReader.join(path, "insertShare")) {
        workload.insertShare = share
      }
      if let share = reader.ratio(fields["deleteShare"], ScenarioReader.join(path, "deleteShare")) {
        workload.deleteShare = share
      }
      if workload.insertShare + workload.deleteShare > 1 {
        reader.problem(path, "insertShare + deleteShare is above 1", hint: "the rest of the edits are updates")
      }
      if let entity = entityIndex(fields["entity"], ScenarioReader.join(path, "entity"), spec) {
        workload.entity = entity
      }
      if let foreground = reader.bool(fields["foregroundOnly"], ScenarioReader.join(path, "foregroundOnly")) {
        workload.foregroundOnly = foreground
      }
      if let source = reader.choice(fields["source"], ScenarioReader.join(path, "source"), EditSource.self) {
        workload.source = source
      }
      workload.store = storeIndex(fields["store"], ScenarioReader.join(path, "store"), devices: devices, spec)
      spec.setWorkload(workload, of: devices)
    }
  }

  func usage(_ node: JSONNode?, _ targets: Targets, _ spec: inout WorldSpec) {
    guard let entries = reader.array(node, "usage", maxCount: 10_000) else { return }
    for (index, entry) in entries.enumerated() {
      let path = ScenarioReader.index("usage", index)
      guard
        let fields = reader.object(entry, path, known: ArrivalSection.usage.keys)
      else { continue }
      let devices = self.targets(fields["devices"], ScenarioReader.join(path, "devices"), targets)
      let period = self.period(fields, path, rateKey: "sessionsPerDay")
      let sessions =
        period.map { 86_400 / $0.every.seconds }
        ?? reader.required(fields, "sessionsPerDay", path) { reader.number($0, $1, max: 100_000, above: 0) }
      guard let devices, let sessions else { continue }
      var usage = UsageModel(sessionsPerDay: sessions)
      usage.period = period
      if let length = reader.distribution(fields["sessionLength"], ScenarioReader.join(path, "sessionLength")) {
        usage.sessionLength = length
      }
      if let suspend = reader.duration(fields["suspendAfter"], ScenarioReader.join(path, "suspendAfter")) {
        usage.suspendAfterSeconds = suspend.seconds
      }
      usage.byHour = byHour(fields["byHour"], ScenarioReader.join(path, "byHour"), spec)
      spec.setUsage(usage, of: devices)
    }
  }

  /// `byHour`: 24 relative weights in 0...`maxHourWeight`, one per hour from midnight, not all
  /// zero; it needs `start`. The bound keeps the weights' sum finite and their ratios exact.
  func byHour(_ node: JSONNode?, _ path: String, _ spec: WorldSpec) -> [Double]? {
    guard let entries = reader.array(node, path, maxCount: 24) else { return nil }
    let weights = entries.enumerated().compactMap {
      reader.number($1, ScenarioReader.index(path, $0), min: 0, max: Self.maxHourWeight)
    }
    guard weights.count == entries.count else { return nil }
    if weights.count != 24 {
      reader.problem(path, "\(weights.count) weights; one per hour of the day is 24", hint: "from midnight to 23:00")
      return nil
    }
    if weights.allSatisfy({ $0 == 0 }) {
      reader.problem(path, "every weight is 0", hint: "sessions need at least one hour with a weight")
      return nil
    }
    if spec.clockStart == nil {
      reader.problem(path, "hourly usage needs the run's \"start\"", hint: "add \"start\": \"07:00\"")
      return nil
    }
    return weights
  }

  /// The largest `byHour` weight: the weights are relative, so a million to one is finer than any
  /// pattern of use, and 24 of them add up exactly.
  static let maxHourWeight = 1_000_000.0

  /// A periodic pattern (`every`, `jitter`, `from`, `until`) instead of the Poisson `rateKey`;
  /// nil when `every` is absent (`jitter`, `from` and `until` then belong to nothing: an error).
  func period(_ fields: Fields, _ path: String, rateKey: String, untilAlone: Bool = false) -> Period? {
    let key = { ScenarioReader.join(path, $0) }
    guard let every = reader.duration(fields["every"], key("every"), positive: true) else {
      let needEvery = untilAlone ? ["jitter", "from"] : ["jitter", "from", "until"]
      for name in needEvery where fields[name] != nil && fields["every"] == nil {
        reader.problem(key(name), "\"\(name)\" needs \"every\"", hint: "a periodic pattern: \"every\": \"7s\"")
      }
      return nil
    }
    if fields[rateKey] != nil {
      reader.problem(key("every"), "give either \"every\" or \"\(rateKey)\", not both")
    }
    if every < .milliseconds(10) {
      reader.problem(key("every"), "\(DurationText.format(every)) is below the limit of 10ms")
    }
    var period = Period(every: every)
    if let jitter = reader.duration(fields["jitter"], key("jitter")) { period.jitter = jitter }
    if let from = reader.duration(fields["from"], key("from")) { period.from = from }
    period.until = reader.duration(fields["until"], key("until"))
    if period.jitter > every {
      reader.warning(key("jitter"), "a jitter longer than the period lets arrivals change order")
    }
    return period
  }

  func entityIndex(_ node: JSONNode?, _ path: String, _ spec: WorldSpec) -> Int? {
    guard let name = reader.string(node, path) else { return nil }
    if let index = spec.entities.firstIndex(where: { $0.name == name }) { return index }
    let names = spec.entities.map(\.name)
    reader.problem(
      path, "no entity named \"\(name)\"",
      hint: suggestion(for: name, among: names).map { "did you mean \"\($0)\"?" } ?? "entities: "
        + names.joined(separator: ", "))
    return nil
  }

  /// The actions written as a name, in the table's order (the schema's enum follows it).
  static let simpleActionList: [(name: String, action: TimelineAction.Action)] = TimelineActionTable.all.compactMap {
    row in row.plain.map { (row.name, $0) }
  }
  /// The actions written as a name, by name (looked up only).
  static let simpleActions: [String: TimelineAction.Action] = Dictionary(
    uniqueKeysWithValues: simpleActionList.map { ($0.name, $0.action) })
  /// The actions written as an object with one member, by that member's name, in the table's
  /// order: each has an alternative of its own in the schema's `action`.
  static let valuedActions = TimelineActionTable.all.filter { $0.decode != nil }.map(\.name)
  /// Every action's name, for a did-you-mean (worked out once: each entry sorted them again).
  static let allActionNames = simpleActions.keys.sorted() + valuedActions.filter { simpleActions[$0] == nil }
  /// The valued actions' decoders, by name (looked up only).
  static let valuedDecoders: [String: TimelineActionDefinition.Decode] = Dictionary(
    uniqueKeysWithValues: TimelineActionTable.all.compactMap { row in row.decode.map { (row.name, $0) } })

  /// `{"set": {"<condition>": value}}`: one declared condition (`ConditionTable`) set to a value
  /// of its kind. A built-in condition becomes its own action (`{"set": {"pluggedIn": true}}` is
  /// `plug`), so both spellings run the same.
  func setAction(_ node: JSONNode, _ path: String) -> TimelineAction.Action? {
    let names = ConditionTable.all.map(\.name)
    guard let fields = reader.object(node, path, known: names) else { return nil }
    guard fields.count == 1, let (name, value) = fields.first, let index = ConditionTable.index(named: name) else {
      reader.problem(
        path, "\"set\" takes exactly one condition",
        hint: "one of: " + names.joined(separator: ", ")
          + "; write one timeline entry per condition")
      return nil
    }
    let inner = ScenarioReader.join(path, name)
    let condition = ConditionTable.all[index]
    let number: Double?
    switch condition.kind {
    case .bool: number = reader.bool(value, inner).map { $0 ? 1 : 0 }
    case .percent: number = reader.number(value, inner, min: 0, max: 100)
    case .level(let levels):
      guard let text = reader.string(value, inner) else { return nil }
      number = levels.firstIndex(of: text).map(Double.init)
      if number == nil {
        reader.problem(
          inner, "\"\(text)\" is not a \(name) level",
          hint: suggestion(for: text, among: levels).map { "did you mean \"\($0)\"?" }
            ?? "one of: " + levels.joined(separator: ", "))
      }
    }
    guard let number else { return nil }
    switch name {
    case "battery": return .battery(number)
    case "pluggedIn": return number != 0 ? .plug : .unplug
    case "lowPowerMode": return .lowPower(number != 0)
    case "online": return number != 0 ? .goOnline : .goOffline
    default: return .setLevel(slot: index - ConditionTable.builtInCount, value: number)
    }
  }

  /// A timeline entry's time: an offset from the start, or a clock time ("23:00") at its next
  /// occurrence at or after the run's `start` (the next day when it is earlier in the day).
  func at(_ node: JSONNode?, _ path: String, _ spec: WorldSpec) -> SimDuration? {
    if case .string(let text)? = node?.value, let clock = Self.clockTime(text) {
      guard let start = spec.clockStart else {
        reader.problem(path, "the clock time \"\(text)\" needs the run's \"start\"", hint: "add \"start\": \"22:00\"")
        return nil
      }
      let day = SimDuration.days(1)
      return SimDuration(
        nanoseconds: ((clock - start).nanoseconds % day.nanoseconds + day.nanoseconds) % day.nanoseconds)
    }
    return reader.duration(node, path, max: ScenarioDecoder.Limits.maxDuration)
  }

  func timeline(_ node: JSONNode?, _ targets: Targets, _ spec: inout WorldSpec, watches: inout [WriteWatch]) {
    // Reused only from a clean start: the reader keeps at most `maxProblems`, so earlier
    // problems would change which of the timeline's are kept.
    guard let memo = timelineMemo, !memo.ineligible, reader.problems.isEmpty, reader.suppressed == 0 else {
      decodeTimeline(node, targets, &spec, watches: &watches)
      return
    }
    if let recorded = memo.recorded {
      spec.timeline += recorded.actions
      watches += recorded.watches
      for problem in recorded.problems { reader.record(problem) }
      return
    }
    let actionsBefore = spec.timeline.count
    let keysBefore = reader.logicalKeys.count
    let watchesBefore = watches.count
    decodeTimeline(node, targets, &spec, watches: &watches)
    guard reader.logicalKeys.count == keysBefore, reader.suppressed == 0 else {
      memo.ineligible = true
      return
    }
    memo.recorded = (Array(spec.timeline[actionsBefore...]), Array(watches[watchesBefore...]), reader.problems)
  }

  func decodeTimeline(_ node: JSONNode?, _ targets: Targets, _ spec: inout WorldSpec, watches: inout [WriteWatch]) {
    guard let entries = reader.array(node, "timeline", maxCount: ScenarioDecoder.Limits.maxTimelineEntries) else {
      return
    }
    var deviceActions = 0
    // The latest time of the entries listed so far, and its path: a clock-time entry listed
    // after a later one runs before it (issue 73).
    var latest: (at: SimDuration, path: String)?
    var warnedNoCharge = Set<Int>()  // membership only
    for (index, entry) in entries.enumerated() {
      let path = ScenarioReader.index("timeline", index)
      guard let fields = reader.object(entry, path, known: ScenarioObject.timelineEntry.keys) else { continue }
      let at = reader.required(fields, "at", path) { node, atPath in self.at(node, atPath, spec) }
      let devices = self.targets(fields["devices"], ScenarioReader.join(path, "devices"), targets)
      let parsed = reader.required(fields, "action", path) { self.action($0, $1, devices: devices ?? [], spec) }
      guard let at, let devices, let (action, store) = parsed else { continue }
      if let node = fields["watch"], let watch = timelineWatch(node, path, at: at, devices: devices, action: action) {
        watches.append(watch)
      }
      checkClientActions(action, devices: devices, ScenarioReader.join(path, "action"), spec)
      if at > spec.duration {
        reader.problem(
          ScenarioReader.join(path, "at"),
          "\(DurationText.format(at)) is after the end of the run (\(DurationText.format(spec.duration)))")
        continue
      }
      // Each entry keeps its devices: "all" of 100,000 devices in each of 1,000 entries would be
      // 800 MB from a file of 60 kB.
      deviceActions += devices.count
      if deviceActions > ScenarioDecoder.Limits.maxTimelineDeviceActions {
        reader.problem(
          path,
          "the timeline acts on over \(ScenarioDecoder.Limits.maxTimelineDeviceActions) devices in all (each entry "
            + "counts each device it names)",
          hint: "fewer entries, or name fewer devices in each")
        return
      }
      if case .string(let text)? = fields["at"]?.value, Self.clockTime(text) != nil, let earlier = latest, at < earlier.at {
        reader.warning(
          ScenarioReader.join(path, "at"),
          "the clock time \"\(text)\" is its next occurrence at or after the start (\(DurationText.format(at)) into the run): "
            + "it runs before \(earlier.path), listed above it (at \(DurationText.format(earlier.at)))",
          hint: "a clock time equal to \"start\" is the start; write \"1d\" + the offset, or list the entries in time order")
      }
      if latest == nil || at > latest!.at { latest = (at, ScenarioReader.index("timeline", index)) }
      if case .plug = action {
        for device in devices where spec.devices[device].conditions.chargePercentPerHour == 0 && !warnedNoCharge.contains(device) {
          warnedNoCharge.insert(device)
          // Advice, not a warning: a plug lifts Low Power Mode's throttle whether or not it charges.
          reader.advice(
            ScenarioReader.join(path, "action"),
            "device \"\(spec.devices[device].name)\" is plugged in with power.chargePerHour 0: its battery never charges",
            hint: "set \"power\": {\"chargePerHour\": 20} on the device (charging is credited in 5-minute steps)")
        }
      }
      if let parts = Self.batches(action, fields: fields, at: at) {
        deviceActions += devices.count * (parts.count - 1)
        guard deviceActions <= ScenarioDecoder.Limits.maxTimelineDeviceActions else {
          reader.problem(
            ScenarioReader.join(path, "action"),
            "its saves of a batch each make the timeline act on over \(ScenarioDecoder.Limits.maxTimelineDeviceActions) devices in all",
            hint: "larger batches, or fewer devices")
          return
        }
        for part in parts {
          spec.timeline.append(TimelineAction(at: part.at, devices: devices, action: part.action, store: store))
        }
        continue
      }
      spec.timeline.append(TimelineAction(at: at, devices: devices, action: action, store: store))
    }
  }

  /// One action, and for `edit`, `bulkInsert` and `bulkDelete` the store it names (checked against `devices`).
  func action(
    _ node: JSONNode?, _ path: String, devices: [Int], _ spec: WorldSpec
  ) -> (TimelineAction.Action, store: Int?)? {
    guard let node else { return nil }
    if case .string(let name) = node.value {
      if let action = Self.simpleActions[name] { return (action, nil) }
      reader.problem(
        path, "unknown action \"\(name)\"",
        hint: suggestion(for: name, among: Self.allActionNames).map { "did you mean \"\($0)\"?" } ?? "actions: "
          + Self.allActionNames.joined(separator: ", "))
      return nil
    }
    // "store" beside the action belongs inside it: {"edit": {"kind": "insert", "store": 1}}.
    if case .object(let members) = node.value, members.contains(where: { $0.key == "store" }),
      let action = members.first(where: { ["edit", "bulkInsert", "bulkDelete"].contains($0.key) })?.key
    {
      reader.problem(
        ScenarioReader.join(path, "store"), "\"store\" belongs inside the \(action) object, not beside it",
        hint: action == "edit"
          ? "write {\"edit\": {\"kind\": \"insert\", \"store\": 1}}"
          : "write {\"\(action)\": {\"count\": 100, \"store\": 1}}")
      return nil
    }
    guard let fields = reader.object(node, path, known: Self.valuedActions), fields.count == 1,
      let (name, value) = fields.first
    else {
      reader.problem(
        path, "an action is a name or an object with exactly one of: " + Self.valuedActions.joined(separator: ", "))
      return nil
    }
    let inner = ScenarioReader.join(path, name)
    guard let decode = Self.valuedDecoders[name] else { return nil }  // `known` let no other name through
    return decode(self, TimelineActionDefinition.Input(value: value, path: inner, devices: devices, spec: spec))
  }

  /// `{"nudge": {"every": d, "until": t, "jitter": d}}`: nudges every period until a time.
  func nudgeAction(_ value: JSONNode, _ inner: String) -> TimelineAction.Action? {
    guard let fields = reader.object(value, inner, known: ["every", "until", "jitter"]) else { return nil }
    let every = reader.duration(fields["every"], ScenarioReader.join(inner, "every"), positive: true)
    if let every, every < .milliseconds(10) {
      reader.problem(
        ScenarioReader.join(inner, "every"), "\(DurationText.format(every)) is below the limit of 10ms",
        hint: "a faster timer only loops")
      return nil
    }
    let until = reader.duration(fields["until"], ScenarioReader.join(inner, "until"))
    let jitter = reader.duration(fields["jitter"], ScenarioReader.join(inner, "jitter")) ?? .zero
    if jitter > .zero && every == nil {
      reader.warning(ScenarioReader.join(inner, "jitter"), "ignored: a single nudge has no repeats to delay")
    }
    return .nudge(every: every, until: until, jitter: jitter)
  }

  /// `{"edit": kind}` or `{"edit": {"kind": kind, "entity": name, "key": name, "store": i}}`.
  func editAction(_ input: TimelineActionDefinition.Input) -> (action: TimelineAction.Action, store: Int?)? {
    let (value, inner) = (input.value, input.path)
    if case .string = value.value {
      return reader.choice(value, inner, EditKind.self).map { (.edit($0, entity: 0, key: nil), nil) }
    }
    guard let fields = reader.object(value, inner, known: ["kind", "entity", "key", "store"]) else { return nil }
    let kind = reader.required(fields, "kind", inner) { reader.choice($0, $1, EditKind.self) }
    let entity = fields["entity"].map { entityIndex($0, ScenarioReader.join(inner, "entity"), input.spec) } ?? 0
    var key: Int32?
    if let name = reader.string(fields["key"], ScenarioReader.join(inner, "key")) {
      if kind != .insert && kind != nil {
        reader.problem(ScenarioReader.join(inner, "key"), "only an insert carries a logical key")
      }
      key = reader.logicalKey(name)
    }
    let target = storeIndex(fields["store"], ScenarioReader.join(inner, "store"), devices: input.devices, input.spec)
    guard let kind, let entity else { return nil }
    return (.edit(kind, entity: entity, key: key), target)
  }

  /// `{"bulkInsert": {...}}` or `{"bulkDelete": {...}}`: a count (a delete's may be "all", its
  /// default), the entity, one save or one each, and the time the saves are spread over.
  func bulk(
    _ value: JSONNode, _ inner: String, deletes: Bool, devices: [Int], _ spec: WorldSpec
  ) -> (TimelineAction.Action, Int?)? {
    guard let fields = reader.object(value, inner, known: ["count", "entity", "saves", "over", "store"]) else {
      return nil
    }
    let countPath = ScenarioReader.join(inner, "count")
    var count: Int?
    var countProblem = false
    if deletes {
      if let node = fields["count"] {
        if case .string(let word) = node.value {
          if word != "all" {
            reader.problem(
              countPath, "unknown value \"\(word)\"", hint: "a number of objects, or \"all\" (the default)")
            countProblem = true
          }
        } else {
          count = reader.integer(node, countPath, min: 1, max: ScenarioDecoder.Limits.maxBulkObjects)
          countProblem = count == nil
        }
      }
    } else {
      count = reader.required(fields, "count", inner) {
        reader.integer($0, $1, min: 1, max: ScenarioDecoder.Limits.maxBulkObjects)
      }
      countProblem = count == nil
    }
    let entity = fields["entity"].map { entityIndex($0, ScenarioReader.join(inner, "entity"), spec) } ?? 0
    var oneSave = true
    let savesPath = ScenarioReader.join(inner, "saves")
    let batch = Self.batchSize(fields["saves"])
    if let batch {
      // Saves of N objects each: the builder makes one action a batch (`timeline`).
      if batch < 1 || batch > ScenarioDecoder.Limits.maxBulkObjects {
        reader.problem(savesPath, "a batch is from 1 to \(ScenarioDecoder.Limits.maxBulkObjects) objects", hint: "e.g. 500")
        countProblem = true
      } else if deletes && count == nil && !countProblem {
        reader.problem(savesPath, "saves of \(batch) need a count of objects to delete", hint: "give \"count\", e.g. 5000")
        countProblem = true
      }
    } else if let saves = reader.string(fields["saves"], savesPath) {
      switch saves {
      case "one": oneSave = true
      case "each": oneSave = false
      default:
        reader.problem(
          savesPath, "unknown value \"\(saves)\"",
          hint: "\"one\" (a single save), \"each\" (one save per object) or a number of objects a save")
      }
    }
    let verb = deletes ? "deleted" : "inserted"
    let over = reader.duration(fields["over"], ScenarioReader.join(inner, "over")) ?? .zero
    if oneSave && batch == nil && over > .zero {
      reader.warning(
        ScenarioReader.join(inner, "over"), "ignored: with \"saves\": \"one\" every object is \(verb) in one save",
        hint:
          "use \"saves\": \"each\" to spread the \(deletes ? "deletes" : "inserts") over \(DurationText.format(over)), "
          + "or drop \"over\"")
    }
    let target = storeIndex(fields["store"], ScenarioReader.join(inner, "store"), devices: devices, spec)
    guard !countProblem, let entity else { return nil }
    if deletes { return (.bulkDelete(count: count, entity: entity, oneSave: oneSave, over: over), target) }
    guard let count else { return nil }
    return (.bulkInsert(count: count, entity: entity, oneSave: oneSave, over: over), target)
  }

  /// The batch size of a bulk action's `"saves": N`, nil for `"one"`, `"each"` or none.
  static func batchSize(_ node: JSONNode?) -> Int? {
    guard case .number(let text, let value)? = node?.value, value == value.rounded(), abs(value) < 1e15 else { return nil }
    _ = text
    return Int(value)
  }

  /// A bulk action with `"saves": N` as one action a batch, each one save of N objects (the last
  /// the rest), spread evenly over the action's `over`: the pattern apps use to import.
  static func batches(_ action: TimelineAction.Action, fields: [String: JSONNode], at: SimDuration)
    -> [(at: SimDuration, action: TimelineAction.Action)]?
  {
    guard case .object(let members)? = fields["action"]?.value,
      case .object(let inner)? = members.first(where: { $0.key == "bulkInsert" || $0.key == "bulkDelete" })?.value.value,
      let batch = batchSize(inner.first(where: { $0.key == "saves" })?.value)
    else { return nil }
    let total: Int
    switch action {
    case .bulkInsert(let count, _, _, _): total = count
    case .bulkDelete(let count?, _, _, _): total = count
    default: return nil
    }
    let parts = (total + batch - 1) / batch
    var out: [(at: SimDuration, action: TimelineAction.Action)] = []
    for part in 0..<parts {
      let size = min(batch, total - part * batch)
      switch action {
      case .bulkInsert(_, let entity, _, let over):
        out.append((at + over / Int64(parts) * Int64(part), .bulkInsert(count: size, entity: entity, oneSave: true, over: .zero)))
      case .bulkDelete(_, let entity, _, let over):
        out.append((at + over / Int64(parts) * Int64(part), .bulkDelete(count: size, entity: entity, oneSave: true, over: .zero)))
      default: break
      }
    }
    return out
  }

  /// A store index (into each target device's `stores`), checked against every target device.
  func storeIndex(_ node: JSONNode?, _ path: String, devices: [Int], _ spec: WorldSpec) -> Int? {
    guard let node, let store = reader.integer(node, path, min: 0, max: ScenarioDecoder.Limits.highestStoreIndex) else {
      return nil
    }
    if let device = devices.first(where: { store >= spec.devices[$0].stores.count }) {
      let count = spec.devices[device].stores.count
      reader.problem(
        path, "device \"\(spec.devices[device].name)\" has no store \(store)",
        hint: "it has \(count) store\(count == 1 ? "" : "s"), numbered from 0 in the order of its \"stores\"")
      return nil
    }
    return store
  }

  func expect(_ node: JSONNode?, watches: [String] = []) -> [Expectation] {
    let watched = watches.flatMap { RunSummary.watchMetrics($0).map(\.name) }
    guard let entries = reader.array(node, "expect", maxCount: 1000) else { return [] }
    var result: [Expectation] = []
    for (index, entry) in entries.enumerated() {
      let path = ScenarioReader.index("expect", index)
      guard let fields = reader.object(entry, path, known: ["metric", "max", "min", "equals"]) else { continue }
      guard let metric = reader.required(fields, "metric", path, { reader.string($0, $1) }) else { continue }
      guard
        let info = metrics.first(where: { $0.name == metric })
          ?? (watched.contains(metric) ? RunSummary.metric(named: metric) : nil)
      else {
        reader.problem(
          ScenarioReader.join(path, "metric"), "unknown metric \"\(metric)\"",
          hint: metricSuggestion(for: metric, among: metricNames + watched).map { "did you mean \"\($0)\"?" }
            ?? "see the README's metric list")
        continue
      }
      let comparisons = ["max", "min", "equals"].filter { fields[$0] != nil }
      if comparisons.isEmpty { reader.problem(path, "an expectation needs max, min or equals") }
      for key in comparisons {
        let valuePath = ScenarioReader.join(path, key)
        let value =
          info.isDuration ? reader.duration(fields[key], valuePath)?.seconds : reader.number(fields[key], valuePath)
        if let value {
          result.append(
            Expectation(
              metric: metric, comparison: Expectation.Comparison(rawValue: key)!, value: value, path: valuePath))
        }
      }
    }
    return result
  }
}
