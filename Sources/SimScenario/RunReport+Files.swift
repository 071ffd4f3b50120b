import SimKernel
import SimMetrics
import SimModel

extension RunReport {
  /// The result files of this run, in a fixed order: the summary and `resolved.json` as text,
  /// the per-row files as streams of rows (written as they are produced, never held whole).
  /// Nothing here depends on the wall clock or on hashing order.
  public func resultFiles(version: String, includeTrace: Bool) -> [ResultFile] {
    var files = [
      ResultFile(name: "summary.csv", text: summaryTable(version: version).text),
      ResultFile(name: "resolved.json", text: ScenarioResolver.file(resolved, seeds: [seed], version: version)),
    ]
    let streamed: [(wanted: Bool, name: String, columns: [String], rows: (inout CSVStream) -> Void)] = [
      (scenario.outputs.contains("latency"), "latency.csv", latencyColumns, latencyRows(into:)),
      (scenario.outputs.contains("activities"), "activities.csv", activitiesColumns, activitiesRows(into:)),
      (scenario.outputs.contains("timeline"), "timeline.csv", timelineColumns, timelineRows(into:)),
      (scenario.outputs.contains("objects"), "objects.csv", objectsColumns, objectsRows(into:)),
      (includeTrace, "trace.csv", traceColumns, traceRows(into:)),
    ]
    for file in streamed where file.wanted {
      files.append(ResultFile(name: file.name, columns: file.columns, rows: file.rows))
    }
    return files
  }

  /// The result files as text, by file name (for comparing with committed results).
  public func files(version: String, includeTrace: Bool) -> [(name: String, text: String)] {
    resultFiles(version: version, includeTrace: includeTrace).map { ($0.name, $0.renderedText()) }
  }

  var runColumns: [String] { [scenario.name, String(seed)] }
  /// The scheduler's policies, then the wait causes: what blocked activities, in results' order.
  var policyNames: [String] { summaryPolicyNames }

  func deviceName(_ device: DeviceID) -> String { scenario.deviceNames[device.index] }

  public func summaryTable(version: String) -> CSVTable {
    var table = CSVTable(
      columns: ["scenario", "seed", "syncsimVersion", "scenarioHash", "fingerprint", "simulatedSeconds"]
        + summary.catalog.map(\.name) + ["expectationsMet", "expectationsFailed"])
    var row = runColumns + [version, scenarioHash, fingerprint, CSVTable.seconds(outcome.endTime)]
    for (info, value) in zip(summary.catalog, summary.values) {
      row.append(CSVTable.value(value, isDuration: info.isDuration))
    }
    row.append(String(expectations.filter(\.passed).count))
    row.append(String(expectations.filter { !$0.passed }.count))
    table.append(row)
    return table
  }

  public func latencyTable() -> CSVTable {
    var table = CSVTable(columns: latencyColumns)
    latencyRows(into: &table)
    return table
  }

  /// The columns of `latency.csv`.
  public var latencyColumns: [String] {
    [
        "scenario", "seed", "write", "zone", "object", "writer", "observer", "kind", "outcome", "editedAt",
        "committedAt", "visibleAt", "latency", "stuckStage", "stuckCause",
      ]
        + LatencyRow.stageNames + ["exportDecision"] + policyNames.map { "exportBlocked.\($0)" }
        + LatencyRow.notifyCauseNames.map { "notify.\($0)" }
        + ["importDecision"] + policyNames.map { "importBlocked.\($0)" }
  }

  /// Each row of `latency.csv`, in order, into `table` (a table in memory or a stream to a file).
  public func latencyRows<Sink: CSVRowSink>(into table: inout Sink) {
    forEachLatencyRow { part, recorder, local in
      let row = part.global(local)
      var fields =
        runColumns + [
          String(row.write.raw), String(row.zone.raw), String(row.object.raw), deviceName(row.writer),
          deviceName(row.observer), row.kind.rawValue, row.outcome.rawValue,
          CSVTable.seconds(row.editedAt), CSVTable.seconds(row.committedAt), CSVTable.seconds(row.visibleAt),
          row.latency.map(CSVTable.seconds) ?? "", row.stuckStage ?? "", row.stuckCause ?? "",
        ]
      let blocked = recorder.blockedByPolicy(local)
      let decision = recorder.decisionTime(local)
      fields += row.stages.enumerated().map { $0 < row.knownStages ? CSVTable.seconds($1) : "" }
      let exportKnown = decision.export != nil
      let importKnown = decision.import != nil
      fields.append(decision.export.map(CSVTable.seconds) ?? "")
      fields += blocked.export.map { exportKnown ? CSVTable.seconds($0) : "" }
      let notify = recorder.notifyCauses(local)
      fields += LatencyRow.notifyCauseNames.indices.map { index in notify.map { CSVTable.seconds($0[index]) } ?? "" }
      fields.append(decision.import.map(CSVTable.seconds) ?? "")
      fields += blocked.import.map { importKnown ? CSVTable.seconds($0) : "" }
      table.append(fields)
    }
  }

  /// `objects.csv`: per device and store, every object of its zone at the end: whether the store
  /// holds it live and the newest write it holds, beside the server's, and whether they agree.
  public func objectsTable() -> CSVTable {
    var table = CSVTable(columns: objectsColumns)
    objectsRows(into: &table)
    return table
  }

  /// The columns of `objects.csv`.
  public var objectsColumns: [String] {
    [
        "scenario", "seed", "device", "store", "zone", "object", "entity", "held", "write", "serverLive",
        "serverWrite", "matchesServer",
      ]
  }

  /// Each row of `objects.csv`, in order, into `table` (a table in memory or a stream to a file).
  public func objectsRows<Sink: CSVRowSink>(into table: inout Sink) {
    for part in parts {
      guard let recorder = part.recorder else { continue }
      for state in recorder.objectStates {
        objectsRow(state, part: part, recorder: recorder, into: &table)
      }
    }
  }

  func objectsRow<Sink: CSVRowSink>(
    _ state: MetricsRecorder.ObjectStateRow, part: RunPart, recorder: MetricsRecorder, into table: inout Sink
  ) {
    do {
      let device = part.device(recorder.device(of: state.store))
      let store = part.store(state.store)
      let entity =
        state.entity < 0
        ? "CDMR"
        : scenario.spec.entities.indices.contains(Int(state.entity))
          ? scenario.spec.entities[Int(state.entity)].name : String(state.entity)
      let matches = state.held == state.serverLive && (!state.held || state.write == state.serverWrite)
      table.append(
        runColumns + [
          deviceName(device), String(store.index - firstStore(of: device)),
          String(part.zone(recorder.zone(of: state.store)).raw), String(state.object.raw), entity,
          state.held ? "1" : "0", state.write == .none ? "" : String(part.write(state.write).raw),
          state.serverLive ? "1" : "0", state.serverWrite == .none ? "" : String(part.write(state.serverWrite).raw),
          matches ? "1" : "0",
        ])
    }
  }

  public func activitiesTable() -> CSVTable {
    var table = CSVTable(columns: activitiesColumns)
    activitiesRows(into: &table)
    return table
  }

  /// The columns of `activities.csv`.
  public var activitiesColumns: [String] {
    [
        "scenario", "seed", "activity", "device", "store", "kind", "trigger", "requestedAt", "approvedAt", "startedAt",
        "finishedAt", "succeeded", "cancelled", "records", "waited",
      ] + policyNames.map { "blocked.\($0)" }
  }

  /// Each row of `activities.csv`, in order, into `table` (a table in memory or a stream to a file).
  public func activitiesRows<Sink: CSVRowSink>(into table: inout Sink) {
    for part in parts {
      guard let recorder = part.recorder else { continue }
      for (index, activity) in recorder.activities.enumerated() {
        activitiesRow(activity, id: part.activity(index), part: part, recorder: recorder, into: &table)
      }
    }
  }

  func activitiesRow<Sink: CSVRowSink>(
    _ activity: MetricsRecorder.ActivityRecord, id: Int, part: RunPart, recorder: MetricsRecorder,
    into table: inout Sink
  ) {
    do {
      let device = part.device(recorder.device(of: activity.store))
      let store = part.store(activity.store).index - firstStore(of: device)
      var blocked = [SimDuration](repeating: .zero, count: policyNames.count)
      for interval in activity.blocked { blocked[Int(interval.policy)] += interval.to - interval.from }
      let waited = activity.approvedAt.map { $0 - activity.requestedAt }
      table.append(
        runColumns + [
          String(id), deviceName(device), String(store), activity.kind.rawValue, activity.trigger.rawValue,
          CSVTable.seconds(activity.requestedAt), CSVTable.seconds(activity.approvedAt),
          CSVTable.seconds(activity.startedAt),
          CSVTable.seconds(activity.finishedAt), activity.finishedAt == nil ? "" : (activity.succeeded ? "1" : "0"),
          activity.cancelled?.rawValue ?? "", String(activity.records), waited.map(CSVTable.seconds) ?? "",
        ] + blocked.map(CSVTable.seconds))
    }
  }

  /// The whole world's id of the device's first store.
  func firstStore(of device: DeviceID) -> Int { Int(storeStarts[device.index]) }

  public func traceTable() -> CSVTable {
    var table = CSVTable(columns: traceColumns)
    traceRows(into: &table)
    return table
  }

  /// The columns of `trace.csv`.
  public var traceColumns: [String] {
    ["scenario", "seed", "time", "kind", "entity"]
  }

  /// Each row of `trace.csv`, in order, into `table` (a table in memory or a stream to a file).
  public func traceRows<Sink: CSVRowSink>(into table: inout Sink) {
    // In time order across parts (a part's own events are in time order; at equal times, parts
    // in order). An entity is the part's own id of its device, store, activity or action.
    var events: [(at: SimTime, part: Int32, index: Int32)] = []
    for (partIndex, part) in parts.enumerated() {
      guard let recorder = part.recorder else { continue }
      for (index, event) in recorder.trace.enumerated() { events.append((event.at, Int32(partIndex), Int32(index))) }
    }
    if parts.count > 1 { events.sort { ($0.at, $0.part, $0.index) < ($1.at, $1.part, $1.index) } }
    for entry in events {
      let event = parts[Int(entry.part)].recorder!.trace[Int(entry.index)]
      let name =
        Int(event.kind) < ModelEvent.kindNames.count ? ModelEvent.kindNames[Int(event.kind)] : String(event.kind)
      table.append(runColumns + [CSVTable.seconds(event.at), name, String(event.entity)])
    }
  }
}
