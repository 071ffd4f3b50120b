import SimKernel
import SimMetrics
import SimModel

/// The per-row files whose rows come part by part (`latency.csv`, `activities.csv`,
/// `objects.csv`): each part's rows with the whole world's ids, in part order. A run writes them
/// as parts finish (`ScenarioRunner.run(spill:)`) or from the parts its report keeps.
public struct PartRows: Sendable {
  let scenario: Scenario
  let seed: UInt64
  /// The scheduler's policies, then the wait causes: what blocked activities, in results' order.
  let policyNames: [String]
  /// Per device, the whole world's id of its first store (then the store count).
  let storeStarts: [Int32]

  /// The files whose rows come part by part, by output name.
  public static let files = ["latency": "latency.csv", "activities": "activities.csv", "objects": "objects.csv"]

  /// Whether every file of `outputs` beside the summary comes part by part (a run can then let
  /// each part go once its rows are written).
  static func comeAllPartByPart(_ outputs: [String]) -> Bool {
    outputs.allSatisfy { $0 == "summary" || files[$0] != nil }
  }

  var runColumns: [String] { [scenario.name, String(seed)] }

  /// Whether the world has a CKSyncEngine device: then rows name their devices' clients
  /// (`writerClient`, `observerClient`, `client`), and a Core Data world's files keep their columns.
  /// Found once: a fleet's rows are written part by part.
  let namesClients: Bool

  init(scenario: Scenario, seed: UInt64, policyNames: [String], storeStarts: [Int32]) {
    self.scenario = scenario
    self.seed = seed
    self.policyNames = policyNames
    self.storeStarts = storeStarts
    namesClients = scenario.spec.devices.contains { $0.client == .syncEngine }
  }

  func client(_ device: DeviceID) -> String { scenario.spec.devices[device.index].client.rawValue }

  func deviceName(_ device: DeviceID) -> String { scenario.deviceNames[device.index] }

  /// The whole world's id of the device's first store.
  func firstStore(of device: DeviceID) -> Int { Int(storeStarts[device.index]) }

  /// The columns of file `name`, and a part's rows of it into a stream.
  public func columns(of name: String) -> [String] {
    switch name {
    case "latency.csv": latencyColumns
    case "activities.csv": activitiesColumns
    default: objectsColumns
    }
  }

  public func rows(of name: String, part: RunPart, into stream: inout CSVStream) {
    switch name {
    case "latency.csv": latencyRows(of: part, into: &stream)
    case "activities.csv": activitiesRows(of: part, into: &stream)
    default: objectsRows(of: part, into: &stream)
    }
  }

  /// The columns of `latency.csv`.
  public var latencyColumns: [String] {
    [
      "scenario", "seed", "write", "zone", "object", "writer", "observer",
    ] + (namesClients ? ["writerClient", "observerClient"] : []) + [
      "kind", "outcome", "editedAt", "committedAt", "visibleAt", "latency", "stuckStage", "stuckCause",
    ]
      + LatencyRow.stageNames + ["exportDecision"] + policyNames.map { "exportBlocked.\($0)" }
      + LatencyRow.heldNames.map { "exportHeld.\($0)" }
      + LatencyRow.notifyCauseNames.map { "notify.\($0)" }
      + ["importDecision"] + policyNames.map { "importBlocked.\($0)" }
      + LatencyRow.heldNames.map { "importHeld.\($0)" }
      + LatencyRow.transferCauseNames
  }

  /// A part's rows of `latency.csv`, in order, into `table` (a table in memory or a stream to a file).
  ///
  /// Each row is built as bytes in one reused record (`CSVRecord`): as about 80 strings a row, the
  /// times' strings and their encoding were about a third of a fleet's run.
  public func latencyRows<Sink: CSVRowSink>(of part: RunPart, into table: inout Sink) {
    guard let recorder = part.recorder else { return }
    var record = CSVRecord()
    let run = runColumns
    recorder.forEachLatencyRow { local in
      let row = part.global(local)
      record.removeAll()
      record.append(contentsOf: run)
      record.append(row.write.raw)
      record.append(row.zone.raw)
      record.append(row.object.raw)
      record.append(deviceName(row.writer))
      record.append(deviceName(row.observer))
      if namesClients {
        record.append(client(row.writer))
        record.append(client(row.observer))
      }
      record.append(row.kind.rawValue)
      record.append(row.outcome.rawValue)
      record.appendSeconds(row.editedAt)
      record.appendSeconds(row.committedAt)
      record.appendSeconds(row.visibleAt)
      record.appendSeconds(row.latency)
      record.append(row.stuckStage ?? "")
      record.append(row.stuckCause ?? "")
      for (index, stage) in row.stages.enumerated() {
        if index < row.knownStages { record.appendSeconds(stage) } else { record.appendEmpty() }
      }
      appendSplit(recorder.exportSplit(local), to: &record)
      if let notify = recorder.notifyCauses(local) {
        for index in LatencyRow.notifyCauseNames.indices { record.appendSeconds(notify[index]) }
      } else {
        record.appendEmpty(count: LatencyRow.notifyCauseNames.count)
      }
      appendSplit(recorder.importSplit(local), to: &record)
      let transfer = recorder.transferSplit(local)
      if row.knownStages > 2 { record.appendSeconds(transfer.uploadSuspended) } else { record.appendEmpty() }
      if row.knownStages > 5 {
        record.appendSeconds(transfer.downloadSuspended)
        record.appendSeconds(transfer.hidden)
      } else {
        record.appendEmpty(count: 2)
      }
      table.append(record: record)
    }
  }

  /// A scheduling stage's columns: decision (with any time nothing explains, which the audit
  /// reports), each policy's or wait cause's block, each hold; empty where the stage is unknown.
  func appendSplit(_ split: StageSplit?, to record: inout CSVRecord) {
    guard let split else {
      record.appendEmpty(count: 1 + policyNames.count + LatencyRow.heldNames.count)
      return
    }
    record.appendSeconds(split.decision + split.unexplained)
    for blocked in split.blocked { record.appendSeconds(blocked) }
    for held in split.held { record.appendSeconds(held) }
  }

  /// The columns of `objects.csv`.
  public var objectsColumns: [String] {
    [
      "scenario", "seed", "device", "store", "zone", "object", "entity", "held", "write", "serverLive",
      "serverWrite", "matchesServer",
    ]
  }

  /// A part's rows of `objects.csv`, in order, into `table` (a table in memory or a stream to a file).
  public func objectsRows<Sink: CSVRowSink>(of part: RunPart, into table: inout Sink) {
    guard let recorder = part.recorder else { return }
    for state in recorder.objectStates { objectsRow(state, part: part, recorder: recorder, into: &table) }
  }

  func objectsRow<Sink: CSVRowSink>(
    _ state: MetricsRecorder.ObjectStateRow, part: RunPart, recorder: MetricsRecorder, into table: inout Sink
  ) {
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

  /// The columns of `activities.csv`.
  public var activitiesColumns: [String] {
    [
      "scenario", "seed", "activity", "device", "store",
    ] + (namesClients ? ["client"] : []) + [
      "kind", "trigger", "requestedAt", "approvedAt", "startedAt", "finishedAt", "succeeded", "cancelled", "records",
      "waited",
    ] + policyNames.map { "blocked.\($0)" }
  }

  /// A part's rows of `activities.csv`, in order, into `table` (a table in memory or a stream to a file).
  public func activitiesRows<Sink: CSVRowSink>(of part: RunPart, into table: inout Sink) {
    guard let recorder = part.recorder else { return }
    var record = CSVRecord()
    var blocked = [SimDuration](repeating: .zero, count: policyNames.count)
    for (index, activity) in recorder.activities.enumerated() {
      activitiesRow(
        activity, index: index, id: part.activity(index), part: part, recorder: recorder, record: &record,
        blocked: &blocked)
      table.append(record: record)
    }
  }

  /// One activity's row of `activities.csv`, built in `record` (`blocked` is scratch, one entry
  /// per policy).
  func activitiesRow(
    _ activity: MetricsRecorder.ActivityRecord, index: Int, id: Int, part: RunPart, recorder: MetricsRecorder,
    record: inout CSVRecord, blocked: inout [SimDuration]
  ) {
    let device = part.device(recorder.device(of: activity.store))
    let store = part.store(activity.store).index - firstStore(of: device)
    for policy in blocked.indices { blocked[policy] = .zero }
    for interval in recorder.blocked(of: index) { blocked[Int(interval.policy)] += interval.to - interval.from }
    record.removeAll()
    record.append(contentsOf: runColumns)
    record.append(id)
    record.append(deviceName(device))
    record.append(store)
    if namesClients { record.append(client(device)) }
    record.append(activity.kind.rawValue)
    record.append(activity.trigger.rawValue)
    record.appendSeconds(activity.requestedAt)
    record.appendSeconds(activity.approvedAt)
    record.appendSeconds(activity.startedAt)
    record.appendSeconds(activity.finishedAt)
    record.append(activity.finishedAt == nil ? "" : (activity.succeeded ? "1" : "0"))
    record.append(activity.cancelled?.rawValue ?? "")
    record.append(activity.records)
    record.appendSeconds(activity.approvedAt.map { $0 - activity.requestedAt })
    for duration in blocked { record.appendSeconds(duration) }
  }
}
