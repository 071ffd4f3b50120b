import Foundation

/// The report of one run folder: its CSV files drawn as inline SVG charts in one HTML page.
///
/// Every number drawn comes from the folder's files (`summary.csv`, `latency.csv`,
/// `activities.csv`, `timeline.csv`, `resolved.json`): the report never re-runs the scenario.
struct RunPage {
  let summary: ReportTable
  let latency: ReportTable?
  let activities: ReportTable?
  let timeline: ReportTable?
  /// Each device's state at every change (`states.csv`; a folder written before it has none).
  let states: ReportTable?
  /// What failed, for a trace of an app's logs (`findings.csv`).
  let findings: ReportTable?
  /// The write whose journey is drawn; nil for the slowest.
  let chosenWrite: Int?
  /// The standalone charts' names begin with it (`ReportPage.files`).
  var chartPrefix = "report"
  /// The page's title (nil: the scenario's name).
  var title: String?
  /// The scenario's timeline actions and battery thresholds (`syncsim report` reads them from
  /// resolved.json).
  var marks: RunMarks?

  static let width = 920.0
  static let stageNames = ["save", "exportSchedule", "upload", "notify", "importSchedule", "download", "ui"]
  /// Most devices drawn in the timeline (the rest are counted in its caption).
  static let timelineDeviceLimit = 24
  /// Most write and import marks drawn in the timeline.
  static let timelineMarkLimit = 4000

  init?(directory: String, write: Int?) {
    guard let summary = ReportTable.read(directory, "summary.csv"), summary.rows.count == 1 else { return nil }
    self.summary = summary
    latency = ReportTable.read(directory, "latency.csv")
    activities = ReportTable.read(directory, "activities.csv")
    timeline = ReportTable.read(directory, "timeline.csv")
    states = ReportTable.read(directory, "states.csv")
    findings = ReportTable.read(directory, "findings.csv")
    chosenWrite = write
  }

  var row: ReportTable.Row { summary.rows[0] }
  func metric(_ name: String) -> Double? { summary.number(row, name) }
  var name: String { summary.text(row, "scenario") }
  /// Whether the folder is a trace of an app's logs (`syncsim trace`), not a run.
  var isTrace: Bool { summary.text(row, "source") == "trace" }
  var endSeconds: Double { metric("simulatedSeconds") ?? 0 }

  /// The page, or the problem that stops it (a `--write` with no rows).
  func html() -> Result<String, ReportProblem> {
    var body = header()
    if isTrace {
      body += section("What the log shows, and what it cannot see", LogCoverage(page: self).html())
      if let findings, !findings.rows.isEmpty { body += section("What failed", LogCoverage.findingsTable(findings)) }
    }
    body += section("Save-to-visible latency", latencyCDF())
    body += section("What rows waited on: every row's time by cause", causeTable())
    body += section("Where the time goes: mean time per stage", stageBars())
    body += section("Blocked time per scheduler policy and wait cause, over simulated time", blockedOverTime())
    body += section("Device states", deviceTimeline())
    switch journey() {
    case .success(let chart): body += section("One write's journey", chart)
    case .failure(let problem): return .failure(problem)
    }
    body += "<p class=\"caption\">Each chart is also a file of its own beside this page, for a paper: "
    body += "<code>\(XMLText.escaped(chartPrefix))-&lt;chart&gt;.svg</code> (latency-cdf, stage-bars, "
    body += "blocked-over-time, device-timeline, write-journey).</p>\n"
    return .success(ReportPage.document(title: "SyncSim report: \(title ?? name)", body: body))
  }

  func section(_ title: String, _ content: String) -> String {
    "<section><h2>\(XMLText.escaped(title))</h2>\n\(content)</section>\n"
  }

  func header() -> String {
    var out = "<h1>\(XMLText.escaped(title ?? name))</h1>\n<p class=\"meta\">"
    if title != nil { out += "scenario \(XMLText.escaped(name)) · " }
    // A trace has no seed, hash or fingerprint: no empty field is shown.
    var fields: [String] = []
    if !summary.text(row, "seed").isEmpty { fields.append("seed \(XMLText.escaped(summary.text(row, "seed")))") }
    for column in ["syncsimVersion", "scenarioHash", "fingerprint"] where !summary.text(row, column).isEmpty {
      fields.append("\(column) <code>\(XMLText.escaped(summary.text(row, column)))</code>")
    }
    if isTrace {
      fields.append(metric("simulatedSeconds") == nil ? "a log without times" : "the log spans \(SVG.duration(endSeconds))")
    } else {
      fields.append("simulated \(SVG.duration(endSeconds))")
    }
    out += fields.joined(separator: " · ") + "</p>\n<table class=\"metrics\">"
    let shown: [(String, Bool)] =
      isTrace
      ? [
        ("latency.p50", true), ("latency.p95", true), ("latency.max", true), ("writes", false), ("rowsVisible", false),
        ("rowsNotVisible", false), ("exports", false), ("exportsFailed", false), ("imports", false), ("findings", false),
      ]
      : [
        ("latency.p50", true), ("latency.p95", true), ("latency.p99", true), ("latency.max", true),
        ("converged", false), ("convergenceTime", true), ("writes", false), ("rowsVisible", false),
        ("rowsNotVisible", false), ("events", false),
      ]
    for (name, isDuration) in shown {
      let value =
        metric(name).map { isDuration ? SVG.duration($0) : SVG.number($0) }
        ?? (isTrace && isDuration && summary.text(row, "timed") == "0" ? "unknown (no times)" : "undefined")
      out += "<tr><th>\(name)</th><td id=\"metric-\(name)\">\(value)</td></tr>"
    }
    return out + "</table>\n"
  }

  /// Observer groups in first-seen order: a device's name before `#` (`phone#3` is in `phone`).
  static func group(_ device: String) -> String {
    device.firstIndex(of: "#").map { String(device[..<$0]) } ?? device
  }

  /// The row's observer group, with its sync client where the run names clients (a world with a
  /// CKSyncEngine device), so that a contrast draws each client's curve apart.
  static func observerGroup(_ latency: ReportTable, _ row: ReportTable.Row) -> String {
    let group = Self.group(latency.text(row, "observer"))
    let client = latency.text(row, "observerClient")
    return client.isEmpty ? group : "\(group) (\(client))"
  }

  /// The visible rows' latencies per observer group, each sorted.
  func latenciesByGroup() -> [(group: String, values: [Double])] {
    guard let latency else { return [] }
    var groups: [(group: String, values: [Double])] = []
    var position: [String: Int] = [:]  // lookup only
    for row in latency.rows where latency.text(row, "outcome") == "visible" {
      guard let value = latency.number(row, "latency") else { continue }
      let group = Self.observerGroup(latency, row)
      if position[group] == nil {
        position[group] = groups.count
        groups.append((group, []))
      }
      groups[position[group]!].values.append(value)
    }
    return groups.map { ($0.group, $0.values.sorted()) }
  }

  func missing(_ file: String) -> String {
    "<p class=\"note\">\(file) was not written for this run (the scenario's <code>outputs</code> leave it out).</p>\n"
  }
}

/// Why a report cannot be written.
public struct ReportProblem: Error, Sendable {
  public var message: String
  public var hint: String?
}
