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
    // Step functions per device: (time, new value), already in time order from the observations.
    var appSteps = [[(SimTime, AppState)]](repeating: [], count: deviceCount)
    var conditionSteps = [[MetricsRecorder.ConditionChange]](repeating: [], count: deviceCount)
    var levelSteps = [[(condition: Int, value: Double, at: SimTime)]](repeating: [], count: deviceCount)
    let sampledLevels = sampledLevels
    // Counters as +1/−1 events per device, sorted by time.
    var pending = [[(SimTime, Int)]](repeating: [], count: deviceCount)
    var behind = [[(SimTime, Int)]](repeating: [], count: deviceCount)
    for part in parts {
      guard let recorder = part.recorder else { continue }
      for (device, state, at) in recorder.appStates { appSteps[part.device(device).index].append((at, state)) }
      for change in recorder.conditionChanges { conditionSteps[part.device(change.device).index].append(change) }
      for change in recorder.levelChanges {
        levelSteps[part.device(change.device).index].append((change.condition, change.value, change.at))
      }
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
      var app = scenario.spec.devices[device].initialAppState
      var condition: MetricsRecorder.ConditionChange?
      var levels = sampledLevels.map { ConditionTable.all[$0].defaultValue }
      var levelIndex = 0
      var (appIndex, conditionIndex, pendingIndex, behindIndex, pendingCount, behindCount) = (0, 0, 0, 0, 0, 0)
      var time: Int64 = 0
      while time <= outcome.endTime.nanoseconds {
        let now = SimTime(nanoseconds: time)
        while appIndex < appSteps[device].count && appSteps[device][appIndex].0 <= now {
          app = appSteps[device][appIndex].1
          appIndex += 1
        }
        while conditionIndex < conditionSteps[device].count && conditionSteps[device][conditionIndex].at <= now {
          condition = conditionSteps[device][conditionIndex]
          conditionIndex += 1
        }
        while levelIndex < levelSteps[device].count && levelSteps[device][levelIndex].at <= now {
          let change = levelSteps[device][levelIndex]
          if let column = sampledLevels.firstIndex(of: change.condition) { levels[column] = change.value }
          levelIndex += 1
        }
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
    let deviceCount = scenario.deviceNames.count
    // Per device, every change as (time, order, apply), in time order; at one instant the app
    // state first, then conditions, then levels, as the model announced them.
    var appSteps = [[(SimTime, AppState)]](repeating: [], count: deviceCount)
    var conditionSteps = [[MetricsRecorder.ConditionChange]](repeating: [], count: deviceCount)
    var levelSteps = [[(condition: Int, value: Double, at: SimTime)]](repeating: [], count: deviceCount)
    for part in parts {
      guard let recorder = part.recorder else { continue }
      for (device, state, at) in recorder.appStates { appSteps[part.device(device).index].append((at, state)) }
      for change in recorder.conditionChanges { conditionSteps[part.device(change.device).index].append(change) }
      for change in recorder.levelChanges {
        levelSteps[part.device(change.device).index].append((change.condition, change.value, change.at))
      }
    }
    let sampledLevels = sampledLevels
    for device in 0..<deviceCount {
      var app = scenario.spec.devices[device].initialAppState
      var condition: MetricsRecorder.ConditionChange?
      var levels = sampledLevels.map { ConditionTable.all[$0].defaultValue }
      var (appIndex, conditionIndex, levelIndex) = (0, 0, 0)
      var last: [String]?
      var now = SimTime.zero
      while true {
        while appIndex < appSteps[device].count && appSteps[device][appIndex].0 <= now {
          app = appSteps[device][appIndex].1
          appIndex += 1
        }
        while conditionIndex < conditionSteps[device].count && conditionSteps[device][conditionIndex].at <= now {
          condition = conditionSteps[device][conditionIndex]
          conditionIndex += 1
        }
        while levelIndex < levelSteps[device].count && levelSteps[device][levelIndex].at <= now {
          let change = levelSteps[device][levelIndex]
          if let column = sampledLevels.firstIndex(of: change.condition) { levels[column] = change.value }
          levelIndex += 1
        }
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
        // The next change of any kind.
        let next = [
          appIndex < appSteps[device].count ? appSteps[device][appIndex].0 : nil,
          conditionIndex < conditionSteps[device].count ? conditionSteps[device][conditionIndex].at : nil,
          levelIndex < levelSteps[device].count ? levelSteps[device][levelIndex].at : nil,
        ].compactMap { $0 }.min()
        guard let next, next <= outcome.endTime else { break }
        now = next
      }
    }
  }
}
