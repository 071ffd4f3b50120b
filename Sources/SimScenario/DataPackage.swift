import SimMetrics

/// `datapackage.json`: a Frictionless Data Package (<https://specs.frictionlessdata.io/data-package/>)
/// describing every CSV file of a result set, column by column, with type, unit and meaning, so
/// pandas, R or a reviewer can read the data without reading this code. Written from the columns
/// each file actually has; a column no rule here describes gets an empty description, which a test
/// refuses.
public enum DataPackage {
  /// One column's description: Frictionless type, unit (`s` for seconds), and meaning.
  public struct Field: Sendable, Equatable {
    public var type: String
    public var unit: String
    public var description: String
  }

  /// The package for `files` (name and columns of each CSV), named after the scenario. A sweep's
  /// `labels` give its title and its factor columns' titles and axis scales.
  public static func json(
    name: String, files: [(name: String, columns: [String])], sweep labels: SweepLabels? = nil
  ) -> String {
    var out = "{\n  \"profile\": \"tabular-data-package\",\n  \"name\": \(quote(packageName(name))),\n"
    if let title = labels?.title { out += "  \"title\": \(quote(title)),\n" }
    out += "  \"resources\": [\n"
    out += files.map { file in
      let fields = file.columns.map { column -> String in
        let factor = file.name.hasPrefix("sweep") ? labels?.factors.first { $0.path == column } : nil
        let field =
          factor != nil
          ? text("a factor of the sweep: the value set at this JSON path of the scenario (JSON text for an object)")
          : describe(file: file.name, column: column)
        var text = "          {\"name\": \(quote(column))"
        if let title = factor?.label { text += ", \"title\": \(quote(title))" }
        text += ", \"type\": \(quote(field.type))"
        if let scale = factor?.scale { text += ", \"axisScale\": \(quote(scale))" }
        if !field.unit.isEmpty { text += ", \"unit\": \(quote(field.unit))" }
        return text + ", \"description\": \(quote(field.description))}"
      }
      return "    {\n      \"name\": \(quote(String(file.name.prefix { $0 != "." }))),\n"
        + "      \"path\": \(quote(file.name)),\n      \"profile\": \"tabular-data-resource\",\n"
        + "      \"format\": \"csv\",\n      \"mediatype\": \"text/csv\",\n      \"encoding\": \"utf-8\",\n"
        + "      \"schema\": {\n        \"missingValues\": [\"\"],\n        \"fields\": [\n"
        + fields.joined(separator: ",\n") + "\n        ]\n      }\n    }"
    }.joined(separator: ",\n")
    return out + "\n  ]\n}\n"
  }

  /// A package name as Frictionless wants it: lower case, `-`, `_` and `.` only.
  static func packageName(_ name: String) -> String {
    String(name.lowercased().map { $0.isLetter || $0.isNumber || "-_.".contains($0) ? $0 : "-" })
  }

  static func quote(_ text: String) -> String { JSONNode.quote(text) }

  static let seconds = "s"

  /// The description of `column` in `file`.
  public static func describe(file: String, column: String) -> Field {
    if let field = common[column] { return field }
    if let field = (perFile[file] ?? [:])[column] { return field }
    if file == "summary.csv", let metric = RunSummary.metric(named: column) {
      return Field(
        type: metric.isDuration ? "number" : "number", unit: metric.isDuration ? seconds : "",
        description: metric.meaning)
    }
    if file == "latency.csv" {
      if RunPageStages.names.contains(column) {
        return Field(
          type: "number", unit: seconds,
          description: "time of the row's latency spent in the \(column) stage (spec §10)")
      }
      for (prefix, stage) in [("exportBlocked.", "exportSchedule"), ("importBlocked.", "importSchedule")]
      where column.hasPrefix(prefix) {
        return Field(
          type: "number", unit: seconds,
          description:
            "time of the \(stage) stage held by \(column.dropFirst(prefix.count)) (a scheduler policy or wait cause)")
      }
      for (prefix, stage) in [("exportHeld.", "exportSchedule"), ("importHeld.", "importSchedule")]
      where column.hasPrefix(prefix) {
        return Field(
          type: "number", unit: seconds,
          description:
            "time of the \(stage) stage with no activity of the row's chain waiting, held by "
            + "\(column.dropFirst(prefix.count)) (running: an earlier activity ran; failed: the last one failed "
            + "and none was asked for since; else the device's or store's state)")
      }
      if let cause = ["upload.suspended": "upload", "download.suspended": "download"][column] {
        return Field(
          type: "number", unit: seconds,
          description: "time of the \(cause) stage during which the app's process was suspended mid-transfer")
      }
      if column == "download.hidden" {
        return Field(
          type: "number", unit: seconds,
          description: "a hidden row's download stage: a record type its model never reads, which no download took")
      }
      if column.hasPrefix("notify.") {
        return Field(
          type: "number", unit: seconds,
          description:
            "time of the notify stage spent on \(column.dropFirst(7)) (push fan-out, delivery, holding, the wait "
            + "for a poll, a ghost's: a public delete the reader never fetches, the observer's store disabled, a "
            + "push withheld, or the store's setup)"
        )
      }
    }
    if file == "activities.csv", column.hasPrefix("blocked.") {
      return Field(
        type: "number", unit: seconds,
        description: "time the activity waited on \(column.dropFirst(8)) (a scheduler policy or wait cause)")
    }
    return Field(type: "string", unit: "", description: "")
  }

  /// The stage columns of `latency.csv`, in order.
  enum RunPageStages {
    static let names = ["save", "exportSchedule", "upload", "notify", "importSchedule", "download", "ui"]
  }

  static func text(_ description: String) -> Field { Field(type: "string", unit: "", description: description) }
  static func integer(_ description: String) -> Field { Field(type: "integer", unit: "", description: description) }
  static func time(_ description: String) -> Field { Field(type: "number", unit: seconds, description: description) }
  static func flag(_ description: String) -> Field {
    Field(type: "integer", unit: "", description: description + " (1 yes, 0 no)")
  }

  /// Columns that mean the same in every file.
  static let common: [String: Field] = [
    "scenario": text("the scenario's name"),
    "seed": Field(type: "integer", unit: "", description: "the random seed of the run"),
  ]

  static let perFile: [String: [String: Field]] = [
    "summary.csv": [
      "syncsimVersion": text("the syncsim version that wrote the file"),
      "scenarioHash": text("hash of the scenario as run, blind to formatting, description, seed and sweep"),
      "fingerprint": text("hash of the run's event trajectory and observations: equal means the same behaviour"),
      "simulatedSeconds": time("simulated time the run covered"),
      "expectationsMet": integer("expectations of the scenario that held"),
      "expectationsFailed": integer("expectations of the scenario that did not hold"),
    ],
    "latency.csv": [
      "write": integer("the write's id, from 1 in edit order"),
      "zone": integer("the zone the write's object lives in"),
      "object": integer("the object's id within its zone"),
      "writer": text("the device that made the write"),
      "observer": text("the device that should see it"),
      "writerClient": text("the writer's sync client, coreData or syncEngine (in worlds with a CKSyncEngine device)"),
      "observerClient": text("the observer's sync client (in worlds with a CKSyncEngine device)"),
      "kind": text("insert, update, delete, increment or contribution"),
      "outcome": text("visible, pending, notVisible, hidden or lost"),
      "editedAt": time("when the write was made, from the start of the run"),
      "committedAt": time("when the server committed it (empty: never)"),
      "visibleAt": time("when the observer's UI first showed it (empty: never)"),
      "latency": time("visibleAt − editedAt (empty for a row never visible)"),
      "stuckStage": text("for a row never visible: the stage holding it at the end"),
      "stuckCause": text("for a row never visible: the cause holding it at the end"),
      "exportDecision": time(
        "time of the exportSchedule stage an export of the row's chain waited for the scheduler's decision, "
          + "a re-evaluation or its start, with no policy or wait cause refusing it"),
      "importDecision": time(
        "time of the importSchedule stage an import of the row's chain waited for the scheduler's decision, "
          + "a re-evaluation or its start, with no policy or wait cause refusing it"),
    ],
    "activities.csv": [
      "activity": integer("the activity's id, in order of request"),
      "device": text("the device whose scheduler ran it"),
      "store": integer("the store's index on its device"),
      "kind": text("export, import or setup"),
      "client": text("the store's sync client, coreData or syncEngine (in worlds with a CKSyncEngine device)"),
      "trigger": text("what asked for it (save, push, poll, activation, retry, ...)"),
      "requestedAt": time("when it was submitted to the scheduler"),
      "approvedAt": time("when every policy allowed it (empty: never)"),
      "startedAt": time("when it began its work (empty: never)"),
      "finishedAt": time("when it ended (empty: still running at the end)"),
      "succeeded": flag("whether it ended well"),
      "cancelled": text("why the scheduler dropped it before it ran, if it did"),
      "records": integer("records it uploaded or downloaded"),
      "waited": time("time from request to start"),
    ],
    "timeline.csv": [
      "time": time("the sample's time"),
      "clock": text("the sample's time of day, HH:MM:SS (with the scenario's start)"),
      "device": text("the device"),
      "app": text("the app's state: foreground, background, suspended or notRunning"),
      "batteryPercent": Field(type: "number", unit: "%", description: "battery level"),
      "pluggedIn": flag("whether the device is charging"),
      "lowPowerMode": flag("whether Low Power Mode is on"),
      "online": flag("whether the device has a network"),
      "pendingWrites": integer("its writes not yet committed"),
      "behindWrites": integer("others' committed writes it does not show yet"),
      "converged": flag("whether both counts are 0"),
    ],
    "states.csv": [
      "time": time("when the device's state changed (0: its state at the start)"),
      "clock": text("that time of day, HH:MM:SS (with the scenario's start)"),
      "device": text("the device"),
      "app": text("the app's state from then: foreground, background, suspended or notRunning"),
      "pluggedIn": flag("whether the device is charging from then"),
      "lowPowerMode": flag("whether Low Power Mode is on from then"),
      "online": flag("whether the device has a network from then"),
    ],
    "objects.csv": [
      "device": text("the device"),
      "store": integer("the store's index on its device"),
      "zone": integer("the zone"),
      "object": integer("the object's id within its zone"),
      "entity": text("the object's entity (CDMR for a many-to-many link record)"),
      "held": flag("whether the store holds it live"),
      "write": integer("the newest write the store holds among its fields"),
      "serverLive": flag("whether the server holds it live"),
      "serverWrite": integer("the newest write the server holds among its fields"),
      "matchesServer": flag("whether the store's copy equals the server's"),
    ],
    "sweep.csv": [
      "point": integer("the sweep point (points/point-NNNN holds its scenario)"),
      "replication": integer("the replication of the point, from 0"),
      "metric": text("the metric's name, as a column of a run's summary.csv (datapackage of a run describes it)"),
      "value": Field(
        type: "number", unit: "", description: "the metric's value: seconds for a duration, else a count or ratio"),
      "fingerprint": text("the run's fingerprint"),
      "scenarioHash": text("hash of the point's scenario as run"),
      "syncsimVersion": text("the syncsim version that wrote the file"),
    ],
    "sweep-summary.csv": [
      "point": integer("the sweep point"),
      "metric": text("the metric's name"),
      "runs": integer("replications run"),
      "n": integer("replications with a value (fewer when some never converged)"),
      "mean": Field(
        type: "number", unit: "", description: "mean over the replications with a value (seconds for a duration)"),
      "sd": Field(type: "number", unit: "", description: "standard deviation over them"),
      "ci95Low": Field(type: "number", unit: "", description: "lower bound of the 95 % interval, never below 0"),
      "ci95High": Field(type: "number", unit: "", description: "upper bound of the 95 % interval"),
      "interval": text("how the interval was made: t (Student's), wilson (a proportion), or empty"),
      "scenarioHash": text("hash of the point's scenario as run"),
      "syncsimVersion": text("the syncsim version that wrote the file"),
    ],
    "trace.csv": [
      "time": time("when the event was processed"),
      "kind": text("the event's kind"),
      "entity": integer("the id the event is about, within its part"),
    ],
  ]
}
