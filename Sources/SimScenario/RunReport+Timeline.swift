import SimKernel
import SimMetrics
import SimModel

extension RunReport {
  /// Per device, sampled every `sampleInterval`: app state, power, network, writes not yet
  /// committed, committed writes of others not yet visible on it, and whether the device is
  /// converged (neither: nothing of its own pending, nothing of others' unseen).
  public func timelineTable() -> CSVTable {
    var table = CSVTable(columns: timelineColumns)
    timelineRows(into: &table)
    return table
  }

  /// The columns of `timeline.csv`.
  public var timelineColumns: [String] {
    // With a `start`, the time of day beside each offset (a run without one keeps its columns).
    ["scenario", "seed", "time"] + (scenario.spec.clockStart == nil ? [] : ["clock"])
      + ["device", "app", "batteryPercent", "pluggedIn", "lowPowerMode", "online"]
      + sampledLevels.map { ConditionTable.all[$0].name } + ["pendingWrites", "behindWrites", "converged"]
  }

  /// The declared conditions after the built-in ones that `timeline.csv` samples, by position in
  /// `ConditionTable`: those sampled always, and those the run's timeline sets.
  var sampledLevels: [Int] {
    (ConditionTable.builtInCount..<ConditionTable.all.count).filter { index in
      ConditionTable.all[index].alwaysSampled
        || scenario.spec.timeline.contains {
          if case .setLevel(let slot, _) = $0.action { slot + ConditionTable.builtInCount == index } else { false }
        }
    }
  }

  /// The time of day at `time` into the run, "HH:MM:SS" (days wrap), for a run with a `start`.
  static func clock(_ time: SimTime, start: SimDuration) -> String {
    let seconds = ((time.nanoseconds + start.nanoseconds) / 1_000_000_000) % 86_400
    let two = { (value: Int64) in value < 10 ? "0\(value)" : String(value) }
    return "\(two(seconds / 3600)):\(two(seconds / 60 % 60)):\(two(seconds % 60))"
  }

  /// Each row of `timeline.csv`, in order, into `table` (a table in memory or a stream to a file).
  public func timelineRows<Sink: CSVRowSink>(into table: inout Sink) {
    let deviceCount = scenario.deviceNames.count
    let steps = stateSteps()
    let sampledLevels = sampledLevels
    // Counters as +1/−1 events per device, sorted by time.
    var pending = [[(SimTime, Int)]](repeating: [], count: deviceCount)
    var behind = [[(SimTime, Int)]](repeating: [], count: deviceCount)
    for part in parts {
      guard let recorder = part.recorder else { continue }
      for write in recorder.writesForTimeline() {
        let device = part.device(write.device).index
        pending[device].append((write.editedAt, 1))
        if let committed = write.committedAt { pending[device].append((committed, -1)) }
      }
      recorder.forEachLatencyRow { row in
        guard let committed = row.committedAt, row.outcome == .visible || row.outcome == .notVisible else { return }
        let observer = part.device(row.observer).index
        behind[observer].append((committed, 1))
        if let visible = row.visibleAt { behind[observer].append((visible, -1)) }
      }
    }
    for index in 0..<deviceCount {
      pending[index].sort { $0.0 < $1.0 }
      behind[index].sort { $0.0 < $1.0 }
    }
    let step = max(scenario.sampleInterval.nanoseconds, 1)
    for device in 0..<deviceCount {
      var state = StateCursor(device: device, steps: steps, report: self, sampledLevels: sampledLevels)
      var (pendingIndex, behindIndex, pendingCount, behindCount) = (0, 0, 0, 0)
      var time: Int64 = 0
      while time <= outcome.endTime.nanoseconds {
        let now = SimTime(nanoseconds: time)
        state.advance(to: now)
        let (app, condition, levels) = (state.app, state.condition, state.levels)
        while pendingIndex < pending[device].count && pending[device][pendingIndex].0 <= now {
          pendingCount += pending[device][pendingIndex].1
          pendingIndex += 1
        }
        while behindIndex < behind[device].count && behind[device][behindIndex].0 <= now {
          behindCount += behind[device][behindIndex].1
          behindIndex += 1
        }
        table.append(
          runColumns + [CSVTable.seconds(now)]
            + (scenario.spec.clockStart.map { [Self.clock(now, start: $0)] } ?? []) + [
              scenario.deviceNames[device], app.rawValue,
              condition.map { CSVTable.number($0.batteryPercent) } ?? "", flag(condition?.pluggedIn),
              flag(condition?.lowPowerMode),
              flag(condition?.online),
            ] + zip(sampledLevels, levels).map { ConditionTable.all[$0].text($1) } + [
              String(pendingCount), String(behindCount),
              pendingCount == 0 && behindCount == 0 ? "1" : "0",
            ])
        time += step
      }
    }
  }

  func flag(_ value: Bool?) -> String { value.map { $0 ? "1" : "0" } ?? "" }

  /// The columns of `states.csv`.
  public var statesColumns: [String] {
    ["scenario", "seed", "time"] + (scenario.spec.clockStart == nil ? [] : ["clock"])
      + ["device", "app", "pluggedIn", "lowPowerMode", "online"] + sampledLevels.map { ConditionTable.all[$0].name }
  }

  /// Each device's app state, power, network and sampled conditions at the start and at every
  /// change (not sampled: a session of a minute between two of `timeline.csv`'s samples is here),
  /// device by device in time order, into `table`. A battery level's change alone is no row.
  public func statesRows<Sink: CSVRowSink>(into table: inout Sink) {
    let steps = stateSteps()
    let sampledLevels = sampledLevels
    for device in 0..<scenario.deviceNames.count {
      var cursor = StateCursor(device: device, steps: steps, report: self, sampledLevels: sampledLevels)
      var last: [String]?
      var now = SimTime.zero
      while true {
        cursor.advance(to: now)
        let (app, condition, levels) = (cursor.app, cursor.condition, cursor.levels)
        let state =
          [app.rawValue, flag(condition?.pluggedIn), flag(condition?.lowPowerMode), flag(condition?.online)]
          + zip(sampledLevels, levels).map { ConditionTable.all[$0].text($1) }
        if state != last {
          table.append(
            runColumns + [CSVTable.seconds(now)]
              + (scenario.spec.clockStart.map { [Self.clock(now, start: $0)] } ?? []) + [scenario.deviceNames[device]]
              + state)
          last = state
        }
        guard let next = cursor.nextChange, next <= outcome.endTime else { break }
        now = next
      }
    }
  }
}

/// Each device's app-state, condition and level changes (what `timeline.csv` samples and
/// `states.csv` lists), in time order, with the whole world's device ids.
struct StateSteps {
  var app: [[(at: SimTime, state: AppState)]]
  var conditions: [[MetricsRecorder.ConditionChange]]
  var levels: [[(condition: Int, value: Double, at: SimTime)]]
}

/// One device's state walked forward through its changes (`StateSteps`).
struct StateCursor {
  let device: Int
  let steps: StateSteps
  let sampledLevels: [Int]
  var app: AppState
  var condition: MetricsRecorder.ConditionChange?
  var levels: [Double]
  var (appIndex, conditionIndex, levelIndex) = (0, 0, 0)

  init(device: Int, steps: StateSteps, report: RunReport, sampledLevels: [Int]) {
    self.device = device
    self.steps = steps
    self.sampledLevels = sampledLevels
    app = report.scenario.spec.devices[device].initialAppState
    levels = sampledLevels.map { ConditionTable.all[$0].defaultValue }
  }

  /// Applies every change at or before `now`.
  mutating func advance(to now: SimTime) {
    while appIndex < steps.app[device].count && steps.app[device][appIndex].at <= now {
      app = steps.app[device][appIndex].state
      appIndex += 1
    }
    while conditionIndex < steps.conditions[device].count && steps.conditions[device][conditionIndex].at <= now {
      condition = steps.conditions[device][conditionIndex]
      conditionIndex += 1
    }
    while levelIndex < steps.levels[device].count && steps.levels[device][levelIndex].at <= now {
      let change = steps.levels[device][levelIndex]
      if let column = sampledLevels.firstIndex(of: change.condition) { levels[column] = change.value }
      levelIndex += 1
    }
  }

  /// The time of the next change not yet applied, of any kind.
  var nextChange: SimTime? {
    [
      appIndex < steps.app[device].count ? steps.app[device][appIndex].at : nil,
      conditionIndex < steps.conditions[device].count ? steps.conditions[device][conditionIndex].at : nil,
      levelIndex < steps.levels[device].count ? steps.levels[device][levelIndex].at : nil,
    ].compactMap { $0 }.min()
  }
}

extension RunReport {
  /// Every device's state changes, from the parts' recorders (kept with `timeline`).
  func stateSteps() -> StateSteps {
    let count = scenario.deviceNames.count
    var steps = StateSteps(
      app: [[(at: SimTime, state: AppState)]](repeating: [], count: count),
      conditions: [[MetricsRecorder.ConditionChange]](repeating: [], count: count),
      levels: [[(condition: Int, value: Double, at: SimTime)]](repeating: [], count: count))
    for part in parts {
      guard let recorder = part.recorder else { continue }
      for (device, state, at) in recorder.appStates { steps.app[part.device(device).index].append((at, state)) }
      for change in recorder.conditionChanges { steps.conditions[part.device(change.device).index].append(change) }
      for change in recorder.levelChanges {
        steps.levels[part.device(change.device).index].append((change.condition, change.value, change.at))
      }
    }
    return steps
  }
}
