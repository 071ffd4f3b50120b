import SimKernel
import SimMetrics

/// A reconstructed log as SyncSim's own result files (`summary.csv`, `latency.csv`,
/// `activities.csv`, `timeline.csv`, and `pushes.csv`, which a run does not write), so that `report` and a reader's own plots treat a real
/// app's log as they treat a run. Times are seconds from the log's first event; what the log
/// cannot see is an empty cell, and a row's `unknown` column holds the part of its latency no
/// stage accounts for, so the stages still add up to it.
public struct TraceFiles {
  public let trace: SyncTrace
  public let log: SyncLog
  public let name: String
  /// The `syncsimVersion` written in `summary.csv`.
  public let version: String

  public init(trace: SyncTrace, log: SyncLog, name: String, version: String) {
    self.version = version
    policies = Array(Set(trace.activities.flatMap { $0.refusals.map(\.policy) })).sorted()
    self.trace = trace
    self.log = log
    self.name = name
  }

  /// The policies that refused anything in the log, in a stable order.
  let policies: [String]

  public var files: [(name: String, text: String)] {
    [
      ("summary.csv", summary.text), ("latency.csv", latency.text), ("activities.csv", activities.text),
      ("timeline.csv", timeline.text), ("pushes.csv", pushes.text), ("findings.csv", findings.text),
    ]
  }

  /// A time or a duration in seconds; empty for a log without times (its order is all it has).
  func seconds(_ value: Double) -> String { log.isTimed ? CSVTable.seconds(SimDuration(seconds: value)) : "" }
  func time(_ value: Int64?) -> String { value.map { seconds(trace.seconds($0)) } ?? "" }
  func span(_ from: Int64?, _ to: Int64?) -> String {
    guard let from, let to else { return "" }
    return seconds(Double(to - from) / 1e6)
  }

  var latency: CSVTable {
    let stages = ["save", "exportSchedule", "upload", "notify", "importSchedule", "download", "ui", "unknown"]
    var table = CSVTable(
      columns: ["scenario", "seed", "write", "writer", "observer", "outcome", "editedAt", "committedAt", "visibleAt",
        "latency", "stuckStage"] + stages + ["exportDecision"] + policies.map { "exportBlocked.\($0)" })
    for row in trace.rows {
      let save = trace.saves[row.save]
      let export = save.export.map { trace.activities[$0] }
      let imported = row.importActivity.map { trace.activities[$0] }
      let visible = row.visibleAt != nil
      let latency = row.visibleAt.map { Double($0 - save.time) / 1e6 }
      let known: [Double?] = [
        0, export.map { Double($0.startedAt - save.time) / 1e6 },
        export.flatMap { e in e.finishedAt.map { Double($0 - e.startedAt) / 1e6 } },
        // With no push or request seen, notify and importSchedule are unknown (their time is in
        // `unknown`).
        row.notifiedAt.flatMap { n in row.committedAt.map { Double(n - $0) / 1e6 } },
        imported.flatMap { i in row.notifiedAt.map { Double(i.startedAt - $0) / 1e6 } },
        imported.flatMap { i in i.finishedAt.map { Double($0 - i.startedAt) / 1e6 } }, nil,
      ]
      let unknown = latency.map { total in max(0, total - known.compactMap { $0 }.reduce(0, +)) }
      let stuck =
        visible ? "" : export == nil ? "export" : row.committedAt == nil ? "upload" : row.importActivity == nil ? "import" : ""
      var fields = [
        name, "", String(row.save + 1), trace.devices[row.writer].name, trace.devices[row.observer].name,
        visible ? "visible" : "notVisible", time(save.time), time(row.committedAt), time(row.visibleAt),
        latency.map { seconds($0) } ?? "", stuck,
      ]
      fields += (visible ? known : known.map { _ in nil }).map { $0.map { seconds($0) } ?? "" }
      fields.append(visible ? unknown.map { seconds($0) } ?? "" : "")
      if visible, let export, trace.hasDecisions[save.device] {
        var blocked = Array(repeating: 0.0, count: policies.count)
        for refusal in export.refusals {
          let from = max(refusal.from, save.time)
          let to = min(refusal.to, export.startedAt)
          if to > from, let position = policies.firstIndex(of: refusal.policy) {
            blocked[position] += Double(to - from) / 1e6
          }
        }
        let schedule = Double(export.startedAt - save.time) / 1e6
        fields.append(seconds(max(0, schedule - blocked.reduce(0, +))))
        fields += blocked.map { seconds($0) }
      } else {
        fields += Array(repeating: "", count: 1 + policies.count)
      }
      table.append(fields)
    }
    return table
  }

  var activities: CSVTable {
    var table = CSVTable(
      columns: ["scenario", "seed", "activity", "device", "kind", "trigger", "requestedAt", "decidedAt", "approvedAt",
        "startedAt", "finishedAt", "succeeded", "records", "error", "waited"] + policies.map { "blocked.\($0)" })
    for (index, activity) in trace.activities.enumerated() {
      var blocked = Array(repeating: 0.0, count: policies.count)
      for refusal in activity.refusals {
        if let position = policies.firstIndex(of: refusal.policy) { blocked[position] += Double(refusal.to - refusal.from) / 1e6 }
      }
      table.append(
        [
          name, "", String(index), trace.devices[activity.device].name, activity.work.rawValue, activity.trigger ?? "",
          time(activity.requestedAt), time(activity.decidedAt), time(activity.approvedAt), time(activity.startedAt),
          time(activity.finishedAt), activity.finishedAt == nil ? "" : activity.succeeded ? "1" : "0",
          activity.records.map(String.init) ?? "", activity.error ?? "", span(activity.requestedAt, activity.startedAt),
        ] + blocked.map { seconds($0) })
    }
    return table
  }

  /// Each push: when apsd took it and when the app's handler ran, as far as the log shows.
  var pushes: CSVTable {
    var table = CSVTable(columns: ["scenario", "seed", "push", "device", "receivedAt", "handledAt"])
    for (index, push) in trace.pushes.enumerated() {
      table.append([
        name, "", String(index), trace.devices[push.device].name, time(push.receivedAt), time(push.handledAt),
      ])
    }
    return table
  }

  /// Each failure the log shows (`SyncFinding`): when (or where in the order), the device, what
  /// failed, the error, what it means and what to do, and the advice's source.
  var findings: CSVTable {
    var table = CSVTable(
      columns: ["scenario", "finding", "device", "time", "order", "file", "line", "work", "domain", "code", "internalCode",
        "name", "retryAfter", "recordErrors", "firstRecordError", "detail", "meaning", "action", "source", "lines"])
    for (index, finding) in log.findings.enumerated() {
      table.append([
        name, String(index + 1), trace.devices[finding.device].name, time(finding.time), String(finding.order),
        log.files.indices.contains(finding.file) ? log.files[finding.file] : "", String(finding.line), finding.work,
        finding.domain ?? "", finding.code.map(String.init) ?? "", finding.internalCode.map(String.init) ?? "",
        finding.name, finding.retryAfterSeconds.map { CSVTable.number($0) } ?? "", String(finding.records.count),
        finding.records.first ?? "", finding.detail, finding.meaning, finding.action, finding.source,
        String(finding.repeats),
      ])
    }
    return table
  }

  var timeline: CSVTable {
    var table = CSVTable(columns: ["scenario", "seed", "time", "device", "app", "batteryPercent", "pluggedIn", "lowPowerMode"])
    var state: [(app: String, battery: String, plugged: String, lowPower: String)] = trace.devices.map { _ in ("", "", "", "") }
    for event in log.events {
      switch event.kind {
      case .appState(let app):
        state[event.device].app = app == "launch" ? "foreground" : app == "terminate" ? "notRunning" : app
      case .power(let battery, let lowPower, let plugged):
        if let battery { state[event.device].battery = CSVTable.number(battery) }
        if let lowPower { state[event.device].lowPower = lowPower ? "1" : "0" }
        if let plugged { state[event.device].plugged = plugged ? "1" : "0" }
      default: continue
      }
      let now = state[event.device]
      table.append(
        [name, "", time(event.time), trace.devices[event.device].name, now.app, now.battery, now.plugged, now.lowPower])
    }
    return table
  }

  var summary: CSVTable {
    let visible = trace.rows.compactMap { row in row.visibleAt.map { Double($0 - trace.saves[row.save].time) / 1e6 } }
      .sorted()
    func quantile(_ q: Double) -> String {
      visible.isEmpty ? "" : seconds(TwinStatistics.quantile(visible, q))
    }
    var table = CSVTable(
      columns: ["scenario", "seed", "syncsimVersion", "scenarioHash", "fingerprint", "source", "simulatedSeconds",
        "latency.p50", "latency.p90", "latency.p95", "latency.p99", "latency.max", "latency.isLowerBound", "writes",
        "rows", "rowsVisible", "rowsNotVisible", "exports", "exportsFailed", "imports", "importsFailed",
        "pushes.delivered", "linesRead", "linesSkipped", "problems", "events", "findings", "timed"])
    let exports = trace.activities.filter { $0.work == .export }
    let imports = trace.activities.filter { $0.work == .import }
    table.append([
      name, "", version, "", "", "trace", seconds(trace.seconds(trace.end)), quantile(0.5),
      quantile(0.9), quantile(0.95), quantile(0.99), visible.last.map { seconds($0) } ?? "",
      visible.count < trace.rows.count ? "1" : "0", String(trace.saves.count), String(trace.rows.count),
      String(visible.count), String(trace.rows.count - visible.count), String(exports.count),
      String(exports.filter { $0.finishedAt != nil && !$0.succeeded }.count), String(imports.count),
      String(imports.filter { $0.finishedAt != nil && !$0.succeeded }.count), String(trace.pushes.count),
      String(log.linesRead), String(log.linesSkipped), String(log.problems.count), String(log.events.count),
      String(log.findings.count), log.isTimed ? "1" : "0",
    ])
    return table
  }
}
