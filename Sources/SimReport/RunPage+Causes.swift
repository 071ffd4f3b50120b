import Foundation

/// The table of where every row's time went, by cause, visible and stuck rows alike: what a
/// person asks first ("what is it waiting on?"), which the stage means (visible rows only) and
/// the blocked-time chart (scheduler waits only) do not answer.
extension RunPage {
  /// The causes in pipeline order: stages without causes, then each split stage's columns.
  func causeColumns(_ latency: ReportTable) -> [String] {
    let split = { (prefix: String) in latency.columns.filter { $0.hasPrefix(prefix) } }
    return ["save", "exportDecision"] + split("exportBlocked.") + split("exportHeld.") + ["upload"]
      + split("upload.") + split("notify.") + ["importDecision"] + split("importBlocked.") + split("importHeld.")
      + ["download"] + split("download.") + ["ui"]
  }

  func causeTable() -> String {
    guard let latency else { return missing("latency.csv") }
    var totals: [String: Double] = [:]
    let columns = causeColumns(latency)
    for row in latency.rows {
      for column in columns { totals[column, default: 0] += latency.number(row, column) ?? 0 }
      // upload and download less their parts that are not transfer (a suspended process, a
      // hidden row), which have columns of their own.
      for (stage, parts) in [("upload", ["upload.suspended"]), ("download", ["download.suspended", "download.hidden"])] {
        for part in parts where latency.columns.contains(part) {
          totals[stage, default: 0] -= latency.number(row, part) ?? 0
        }
      }
      // A stage without its cause split (a ghost's notify): the stage itself.
      for (stage, first) in [
        ("exportSchedule", "exportDecision"), ("notify", "notify.fanout"), ("importSchedule", "importDecision"),
      ]
      where latency.text(row, first).isEmpty {
        totals[stage, default: 0] += latency.number(row, stage) ?? 0
      }
    }
    let ordered = (columns + ["exportSchedule", "notify", "importSchedule"]).filter { (totals[$0] ?? 0) > 0 }
    let all = ordered.map { totals[$0]! }.reduce(0, +)
    guard all > 0 else {
      if isTrace && (metric("rows") ?? 0) == 0 {
        return "<p class=\"note\">The log has no save-to-visible row (a save with a second device of its account): "
          + "no time to book to a cause.</p>\n"
      }
      return "<p class=\"note\">No row spent any time.</p>\n"
    }
    let ranked = ordered.enumerated().sorted { a, b in
      let (x, y) = (totals[a.element]!, totals[b.element]!)
      return x != y ? x > y : a.offset < b.offset
    }.map(\.element)
    var out = "<table class=\"metrics\" id=\"causes\"><tr><th>cause</th><th>time</th><th>share</th></tr>"
    for name in ranked.prefix(10) {
      let seconds = totals[name]!
      out += "<tr><th>\(XMLText.escaped(name))</th><td>\(SVG.duration(seconds))</td>"
      out += "<td>\(String(format: "%.1f", seconds / all * 100)) %</td></tr>"
    }
    out += "</table>\n<p class=\"caption\">Every row of latency.csv, visible or not (a stuck row's time runs to "
    out += "the end of the run), summed by its cause columns; the ten largest of \(ordered.count).</p>\n"
    return out
  }
}
