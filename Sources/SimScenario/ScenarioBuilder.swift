import Foundation
import SimKernel
import SimMetrics
import SimModel

/// Builds a `Scenario` section by section; every problem goes to the reader.
struct ScenarioBuilder {
  let reader: ScenarioReader
  /// The scheduler policies a scenario may name.
  let policyRegistry: PolicyRegistry
  /// The keys `ParameterTable` declares (or a test's additions).
  let parameters: ParameterSet
  /// The metrics an expectation or tolerance may name (with the registry's policies' `blocked.*`).
  let metrics: [RunSummary.MetricInfo]
  /// The shard a run decodes the scenario for (`run --shard I/N`): a world of more devices than
  /// its `windowAbove` then holds only the shard's devices (`ShardWindow`).
  var shard: ShardWindow.Request?
  /// A sweep point's timeline, shared with the other points that cannot change it (`validate`).
  var timelineMemo: TimelineMemo?
  /// The declared children of each group, by root type and group, worked out once: each of
  /// 100,000 device entries asked for them again (10 s of a validation), and so did each of a
  /// sweep's 10,000 points. SyncSim's own keys share one cache across decodes and threads; a
  /// test's own set gets one per decode.
  let childrenCache: ChildrenCache

  /// `ParameterTable.children(of:table:groups:)` of one parameter set, remembered.
  final class ChildrenCache: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [String: Any] = [:]  // lookup only
    /// The cache of SyncSim's own keys (`ParameterSet.standard`).
    static let standard = ChildrenCache()

    /// The value remembered under `key`, made by `make` the first time.
    func value<Value>(_ key: String, _ make: () -> Value) -> Value {
      if let known = lock.withLock({ entries[key] }) as? Value { return known }
      let made = make()
      lock.withLock { entries[key] = made }
      return made
    }
  }

  init(reader: ScenarioReader, policyRegistry: PolicyRegistry = .standard, parameters: ParameterSet = .standard) {
    self.reader = reader
    self.parameters = parameters
    childrenCache = parameters.isStandard ? .standard : ChildrenCache()
    self.policyRegistry = policyRegistry
    metrics =
      policyRegistry.names == PolicyRegistry.standard.names
      ? RunSummary.catalog : RunSummary.catalog(policyNames: policyRegistry.names)
  }

  var metricNames: [String] { metrics.map(\.name) }
  typealias Fields = [String: JSONNode]

  /// A device entry as written, and where its members are in the spec.
  struct Group {
    var name: String
    var path: String
    /// The first member's index in `WorldSpec.devices`, and the members there (all of them
    /// unless the scenario holds one shard's devices: `members`).
    var first: Int
    var count: Int
    /// The device every member copies, and whether member k gets account k.
    var template: DeviceSpec
    var perDevice: Bool
    /// The whole world's first member and its members (`first` and `count` when every device
    /// is expanded).
    var worldFirst: Int
    var members: Int
    /// The world's members that `WorldSpec.devices` holds, ascending (nil: all of them).
    var held: [Int32]?

    init(name: String, path: String, first: Int, count: Int, template: DeviceSpec, perDevice: Bool) {
      (self.name, self.path, self.first, self.count) = (name, path, first, count)
      (self.template, self.perDevice, worldFirst, members) = (template, perDevice, first, count)
    }

    /// The name of the world's member `member`: the entry's name, or `name#member` in a group.
    func memberName(_ member: Int) -> String { members == 1 ? name : "\(name)#\(member)" }

    /// The member number `k` of a name `name#k` of this group (any `k`, in range or not), or nil.
    func memberNumber(_ text: String) -> Int? {
      guard members > 1, let hash = text.lastIndex(of: "#"), text[..<hash] == name else { return nil }
      let digits = text[text.index(after: hash)...]
      guard let number = Int(digits), String(number) == digits else { return nil }
      return number
    }

    /// The world's member number of the `index`-th member the spec holds.
    func worldMember(_ index: Int) -> Int { held.map { Int($0[index]) } ?? index }

    /// The world's member `member`, as a device of the spec.
    func member(_ member: Int) -> DeviceSpec {
      var device = EntryMembers.member(member, of: template, perDevice: perDevice)
      device.name = memberName(member)
      return device
    }
  }

  func build(_ root: JSONNode) -> Scenario? {
    guard let top = reader.object(root, "", known: ScenarioDecoder.topKeys) else { return nil }
    guard let versionNode = top["version"] else {
      reader.problem(
        "version", "missing required key \"version\"",
        hint: "start the file with \"version\": \(Scenario.currentVersion)")
      return nil
    }
    guard let version = reader.integer(versionNode, "version", min: 1, max: Int.max) else { return nil }
    guard version <= Scenario.currentVersion else {
      reader.problem(
        "version", "version \(version) is newer than this SyncSim reads (\(Scenario.currentVersion))",
        hint: "upgrade SyncSim")
      return nil
    }
    // The editor's schema reference ("$schema": "schema.json"): read, never used.
    _ = reader.string(top["$schema"], "$schema")
    var spec = WorldSpec()
    let name = reader.string(top["name"], "name") ?? "scenario"
    // Every scalar, not every character: a prepended mark can join "/" into one character.
    let allowed = name.unicodeScalars.allSatisfy {
      $0.properties.isAlphabetic || $0.properties.numericType == .decimal || "-_.".unicodeScalars.contains($0)
    }
    if name.utf8.count > 200 {
      reader.problem(
        "name", "a name of \(name.utf8.count) bytes is over the limit of 200", hint: "a folder name must fit")
    } else if !allowed || name.isEmpty || name.hasPrefix(".") {
      reader.problem("name", "\"\(name)\" cannot name a results folder", hint: "use letters, digits, '-', '_' and '.'")
    } else if name.hasPrefix("-") {
      reader.problem(
        "name", "\"\(name)\" begins with '-', which spreadsheets read as a formula and commands as an option",
        hint: "begin with a letter or digit")
    }
    let description = reader.string(top["description"], "description") ?? ""
    if let start = top["start"] { spec.clockStart = clockStart(start) }
    if let seedNode = top["seed"] { spec.seed = seed(seedNode) ?? spec.seed }
    if let duration = reader.duration(
      top["duration"], "duration", positive: true, max: ScenarioDecoder.Limits.maxDuration)
    {
      spec.duration = duration
    }
    if let environment = reader.string(top["environment"], "environment") {
      switch environment {
      case "development": spec.polling.interval = .minutes(30)
      case "production": spec.polling.interval = .hours(24)
      default: reader.problem("environment", "unknown value \"\(environment)\"", hint: "development or production")
      }
    }
    let dataModel = self.dataModel(top["model"])
    spec.entities = dataModel.entityDescriptions()
    for name in ["cloud", "push", "polling"] { section(name, top[name], &spec) }
    scheduler(top["scheduler"], &spec)
    let (groups, window) = devices(
      top["devices"], accountsNode: top["accounts"], modelVersion: dataModel.version, &spec)
    checkClients(spec, groups)
    addEngineHold(&spec, schedulerNode: top["scheduler"])
    if ModelRules.check(dataModel, zones: spec.zoneLayout().zones, reader: reader)
      && dataModel.simulateRejection
    {
      spec.modelRejectionCode = 134_060
    }
    if let group = groups.first(where: { $0.template.modelVersion > dataModel.version }) {
      reader.problem(
        ScenarioReader.join(group.path, "modelVersion"),
        "model version \(group.template.modelVersion) is newer than the model's (\(dataModel.version))",
        hint: "set model.version")
    }
    let names = deviceNames(groups)
    let targets = Targets(
      groups: groups, names: names, deviceCount: spec.devices.count, windowed: groups.contains { $0.held != nil })
    workloads(top["workloads"], targets, &spec)
    usage(top["usage"], targets, &spec)
    var timelineWatches: [WriteWatch] = []
    timeline(top["timeline"], targets, &spec, watches: &timelineWatches)
    let watches = self.watches(top["watch"], timeline: timelineWatches, targets, spec)
    let expectations = expect(top["expect"], watches: watches.map(\.name))
    let sampleInterval =
      reader.duration(top["sampleInterval"], "sampleInterval", positive: true) ?? defaultSampleInterval(spec.duration)
    let tolerances = self.tolerances(top["tolerances"])
    var outputs = Scenario.outputKinds
    let known = Scenario.outputKinds + Scenario.optionalOutputs
    if let entries = reader.array(top["outputs"], "outputs", maxCount: 8) {
      var listed = Set<String>()  // membership only
      outputs = entries.enumerated().compactMap { index, entry in
        guard let name = reader.string(entry, ScenarioReader.index("outputs", index)) else { return nil }
        // A file listed twice is written once (two writers of one file failed the run).
        guard listed.insert(name).inserted else {
          reader.warning(ScenarioReader.index("outputs", index), "\"\(name)\" is listed twice; it is written once")
          return nil
        }
        guard known.contains(name) else {
          reader.problem(
            ScenarioReader.index("outputs", index), "unknown output \"\(name)\"",
            hint: suggestion(for: name, among: known).map { "did you mean \"\($0)\"?" } ?? "one of: "
              + known.joined(separator: ", "))
          return nil
        }
        return name
      }
      if !outputs.contains("summary") {
        reader.problem("outputs", "the summary is always written", hint: "add \"summary\"")
      }
    }
    spec.reportObjects = outputs.contains("objects")
    // Only a file that is written has a size to check.
    if outputs.contains("timeline"),
      spec.duration.nanoseconds / max(1, sampleInterval.nanoseconds) * Int64(spec.devices.count) > 5_000_000
    {
      reader.problem("sampleInterval", "timeline.csv would have over 5,000,000 rows", hint: "sample less often")
    }
    checkWorkload(spec)
    warnIgnoredSettings(top, root, spec, outputs: outputs)
    return Scenario(
      name: name, description: description, spec: spec, deviceNames: names,
      deviceGroups: groups.flatMap { group in Array(repeating: group.name, count: group.count) },
      expectations: expectations, sampleInterval: sampleInterval, tolerances: tolerances, outputs: outputs,
      sweep: sweep(top["sweep"]), dataModel: dataModel, document: root, shardWindow: window, watches: watches)
  }

  func defaultSampleInterval(_ duration: SimDuration) -> SimDuration {
    // About 200 samples per device, on a round interval.
    for step in [
      SimDuration.seconds(1), .seconds(10), .minutes(1), .minutes(5), .minutes(15), .hours(1), .hours(6), .days(1),
    ]
    where duration.nanoseconds / step.nanoseconds <= 200 {
      return step
    }
    return .days(1)
  }

  /// `start`: the time of day at the run's start, "22:00", "22:00:30" or with a date
  /// "2026-03-02T22:00" (the date is for the reader; the model needs the time of day).
  func clockStart(_ node: JSONNode) -> SimDuration? {
    guard let text = reader.string(node, "start") else { return nil }
    let time = text.split(separator: "T").last.map(String.init) ?? text
    let datePart = text.contains("T") ? String(text.split(separator: "T")[0]) : nil
    let dateOK = datePart.map(Self.isCalendarDate) ?? true
    guard dateOK, text.split(separator: "T").count <= 2, let clock = Self.clockTime(time) else {
      reader.problem(
        "start", "\"\(text)\" is not a time of day, or its date is not one of the calendar",
        hint: "for example \"22:00\" or \"2026-03-02T22:00\"")
      return nil
    }
    return clock
  }

  /// Whether `text` is a date of the Gregorian calendar written `YYYY-MM-DD` (so 2026-02-30 and
  /// 2026-13-01 are not, and 2028-02-29 is).
  static func isCalendarDate(_ text: String) -> Bool {
    let fields = text.split(separator: "-", omittingEmptySubsequences: false)
    guard fields.count == 3, fields[0].count == 4, fields[1].count == 2, fields[2].count == 2,
      fields.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
      let year = Int(fields[0]), let month = Int(fields[1]), let day = Int(fields[2]), (1...12).contains(month)
    else { return false }
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
    return (1...days).contains(day)
  }

  /// "HH:MM" or "HH:MM:SS" as the time since midnight; nil for anything else.
  static func clockTime(_ text: String) -> SimDuration? {
    // Most times are offsets ("90s"): refused before splitting.
    guard text.utf8.count <= 8, text.utf8.contains(UInt8(ascii: ":")) else { return nil }
    let parts = text.split(separator: ":", omittingEmptySubsequences: false)
    guard parts.count == 2 || parts.count == 3,
      parts.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isNumber) })
        || (parts[0].count == 1 && parts[0].allSatisfy(\.isNumber)),
      let hours = Int64(parts[0]), let minutes = Int64(parts[1]), hours < 24, minutes < 60
    else { return nil }
    let seconds = parts.count == 3 ? Int64(parts[2]) : 0
    guard let seconds, seconds < 60 else { return nil }
    return .seconds(hours * 3600 + minutes * 60 + seconds)
  }

  func seed(_ node: JSONNode) -> UInt64? {
    guard case .number(let text, _) = node.value else {
      reader.problem("seed", "expected a whole number, got \(node.value.typeName)")
      return nil
    }
    guard let value = UInt64(text) else {
      reader.problem("seed", "\(text) is not a whole number from 0 to \(UInt64.max)")
      return nil
    }
    return value
  }

  /// Rough size of the run before it starts, so a runaway scenario stops with a message.
  /// Settings that the rest of the scenario makes inert: each is a warning naming its path (an
  /// error under `validate --strict`), so that a change that does nothing does not pass silently.
  func warnIgnoredSettings(_ top: Fields, _ root: JSONNode, _ spec: WorldSpec, outputs: [String]) {
    let hasPublic = spec.devices.contains { $0.stores.contains(.publicDatabase) }
    if !hasPublic {
      if top["polling"] != nil {
        reader.warning("polling", "ignored: no device has a public-database store (only those poll)")
      }
      if top["environment"] != nil {
        reader.warning("environment", "ignored: it sets the public database's polling interval, and no device polls")
      }
    }
    if top["sampleInterval"] != nil && !outputs.contains("timeline") {
      reader.warning("sampleInterval", "ignored: it samples timeline.csv, which \"outputs\" does not ask for")
    }
    warnInertParameters(parameters.world, root, "")
  }

  /// Whether a member is absent or the number 0.
  static func isZeroOrAbsent(_ node: JSONNode?) -> Bool {
    guard let node else { return true }
    if case .number(_, let value) = node.value { return value == 0 }
    return false
  }

  /// Refuses more edits than the limits: the workloads' edits over the duration, scripted edits
  /// and every object of every bulk insert (`EditCounts`, as `RunEstimate` counts them), in the busiest
  /// independent part (its run keeps every write) and in all.
  func checkWorkload(_ spec: WorldSpec) {
    let counts = EditCounts(spec)
    let partitioning = WorldPartitioning(spec)
    var (partWrites, partBulk) = (0.0, 0.0)
    for part in 0..<partitioning.count {
      var (writes, bulk) = (0.0, 0.0)
      for device in partitioning.devices(ofPart: part) {
        writes += counts.edits[Int(device)]
        bulk += counts.bulk[Int(device)]
      }
      if writes + bulk > partWrites + partBulk { (partWrites, partBulk) = (writes, bulk) }
    }
    let (writes, bulk) = (counts.edits.reduce(0, +), counts.bulk.reduce(0, +))
    let hint = "lower editsPerHour, the device count, the duration or the bulk inserts' counts"
    if partWrites + partBulk > ScenarioDecoder.Limits.maxExpectedWrites {
      let limit = CSVTable.number(ScenarioDecoder.Limits.maxExpectedWrites)
      let scope = partitioning.count > 1 ? " in one group of accounts that share a zone" : " in all"
      reader.problem(
        partBulk > partWrites ? "timeline" : "workloads",
        "about \(CSVTable.number((partWrites + partBulk).rounded())) edits\(scope)"
          + (partBulk > 0 ? " (\(CSVTable.number(partBulk)) of them bulk-inserted objects)" : "")
          + " is over the limit of \(limit)", hint: hint)
    } else if writes + bulk > ScenarioDecoder.Limits.maxTotalWrites {
      let limit = CSVTable.number(ScenarioDecoder.Limits.maxTotalWrites)
      reader.problem(
        bulk > writes ? "timeline" : "workloads",
        "about \(CSVTable.number((writes + bulk).rounded())) edits in all is over the limit of \(limit)", hint: hint)
    }
  }

  func tolerances(_ node: JSONNode?) -> [String: Double] {
    guard let node else { return [:] }
    guard case .object(let members) = node.value else {
      reader.problem("tolerances", "expected an object of metric: relative tolerance")
      return [:]
    }
    var result: [String: Double] = [:]
    for (key, value) in members {
      let path = ScenarioReader.join("tolerances", key)
      if !metricNames.contains(key) {
        reader.problem(
          path, "unknown metric \"\(key)\"",
          hint: metricSuggestion(for: key, among: metricNames).map { "did you mean \"\($0)\"?" })
      } else if let tolerance = reader.number(value, path, min: 0) {
        result[key] = tolerance
      }
    }
    return result
  }
}
