import SimKernel
import SimMetrics
import SimModel

extension RunReport {
  /// The result files of this run, in a fixed order: the summary and `resolved.json` as text,
  /// the per-row files as streams of rows (written as they are produced, never held whole).
  /// Nothing here depends on the wall clock or on hashing order.
  public func resultFiles(version: String, includeTrace: Bool) -> [ResultFile] {
    let summary = summaryTable(version: version)
    var files = [
      ResultFile(name: "summary.csv", text: summary.text),
      ResultFile(name: "resolved.json", text: ScenarioResolver.file(resolved, seeds: [seed], version: version, hash: scenarioHash)),
    ]
    let streamed: [(wanted: Bool, name: String, columns: [String], rows: (inout CSVStream) -> Void)] = [
      (scenario.outputs.contains("latency"), "latency.csv", latencyColumns, latencyRows(into:)),
      (scenario.outputs.contains("activities"), "activities.csv", activitiesColumns, activitiesRows(into:)),
      (scenario.outputs.contains("timeline"), "timeline.csv", timelineColumns, timelineRows(into:)),
      (scenario.outputs.contains("timeline"), "states.csv", statesColumns, statesRows(into:)),
      (scenario.outputs.contains("objects"), "objects.csv", objectsColumns, objectsRows(into:)),
      (includeTrace, "trace.csv", traceColumns, traceRows(into:)),
    ]
    for file in streamed where file.wanted {
      var result = ResultFile(name: file.name, columns: file.columns, rows: file.rows)
      // Written part by part while the run went (`ScenarioRunner.run(spill:)`).
      result.written = spilled.contains(file.name)
      files.append(result)
    }
    // Every CSV of the set described column by column (units and meanings ship with the data).
    let described = [("summary.csv", summary.columns)] + streamed.filter(\.wanted).map { ($0.name, $0.columns) }
    files.append(ResultFile(name: "datapackage.json", text: DataPackage.json(name: scenario.name, files: described)))
    if shard != nil {
      files.append(ResultFile(name: RunShardFile.name, lazyText: { RunShardFile.text(self, version: version) }))
    }
    return files
  }

  /// The result files as text, by file name (for comparing with committed results).
  public func files(version: String, includeTrace: Bool) -> [(name: String, text: String)] {
    resultFiles(version: version, includeTrace: includeTrace).map { ($0.name, $0.renderedText()) }
  }

  var runColumns: [String] { partRows.runColumns }

  public func summaryTable(version: String) -> CSVTable {
    Self.summaryTable(
      name: scenario.name, seed: seed, version: version, scenarioHash: scenarioHash, fingerprint: fingerprint,
      endTime: outcome.endTime, summary: summary, expectations: expectations)
  }

  /// `summary.csv` of a run (or of a run's shards merged: `RunShardMerge`).
  static func summaryTable(
    name: String, seed: UInt64, version: String, scenarioHash: String, fingerprint: String, endTime: SimTime,
    summary: RunSummary, expectations: [ExpectationResult]
  ) -> CSVTable {
    var table = CSVTable(
      columns: ["scenario", "seed", "syncsimVersion", "scenarioHash", "fingerprint", "simulatedSeconds"]
        + summary.catalog.map(\.name) + ["expectationsMet", "expectationsFailed"])
    var row = [name, String(seed), version, scenarioHash, fingerprint, CSVTable.seconds(endTime)]
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
  public var latencyColumns: [String] { partRows.latencyColumns }

  /// Each row of `latency.csv`, in order, into `table` (a table in memory or a stream to a file).
  public func latencyRows<Sink: CSVRowSink>(into table: inout Sink) {
    for part in parts { partRows.latencyRows(of: part, into: &table) }
  }

  /// `objects.csv`: per device and store, every object of its zone at the end: whether the store
  /// holds it live and the newest write it holds, beside the server's, and whether they agree.
  public func objectsTable() -> CSVTable {
    var table = CSVTable(columns: objectsColumns)
    objectsRows(into: &table)
    return table
  }

  /// The columns of `objects.csv`.
  public var objectsColumns: [String] { partRows.objectsColumns }

  /// Each row of `objects.csv`, in order, into `table` (a table in memory or a stream to a file).
  public func objectsRows<Sink: CSVRowSink>(into table: inout Sink) {
    for part in parts { partRows.objectsRows(of: part, into: &table) }
  }

  public func activitiesTable() -> CSVTable {
    var table = CSVTable(columns: activitiesColumns)
    activitiesRows(into: &table)
    return table
  }

  /// The columns of `activities.csv`.
  public var activitiesColumns: [String] { partRows.activitiesColumns }

  /// Each row of `activities.csv`, in order, into `table` (a table in memory or a stream to a file).
  public func activitiesRows<Sink: CSVRowSink>(into table: inout Sink) {
    for part in parts { partRows.activitiesRows(of: part, into: &table) }
  }

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
