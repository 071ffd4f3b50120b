import Foundation

/// One write's way to every other device.
extension RunPage {
  /// The slowest write: the visible row with the longest latency (the lowest write id on a tie);
  /// with no visible row, the first stuck one.
  func slowestWrite() -> Int? {
    guard let latency else { return nil }
    var best: (latency: Double, write: Int)?
    for row in latency.rows where latency.text(row, "outcome") == "visible" {
      guard let value = latency.number(row, "latency"), let write = Int(latency.text(row, "write")) else { continue }
      if best == nil || value > best!.latency || (value == best!.latency && write < best!.write) {
        best = (value, write)
      }
    }
    if let best { return best.write }
    // No row became visible: the first write that is stuck somewhere (its journey runs to the end).
    for row in latency.rows where !latency.text(row, "stuckStage").isEmpty {
      if let write = Int(latency.text(row, "write")) { return write }
    }
    return nil
  }

  /// What a stage of `row` waited on most: the largest of its cause columns, or the stage itself.
  func cause(of stage: String, _ row: ReportTable.Row) -> String {
    guard let latency else { return stage }
    let candidates: [(name: String, column: String)]
    switch stage {
    case "exportSchedule":
      candidates =
        [("scheduler decision", "exportDecision")]
        + latency.columns.filter { $0.hasPrefix("exportBlocked.") }.map { (String($0.dropFirst(14)), $0) }
        + latency.columns.filter { $0.hasPrefix("exportHeld.") }.map { (String($0.dropFirst(11)), $0) }
    case "importSchedule":
      candidates =
        [("scheduler decision", "importDecision")]
        + latency.columns.filter { $0.hasPrefix("importBlocked.") }.map { (String($0.dropFirst(14)), $0) }
        + latency.columns.filter { $0.hasPrefix("importHeld.") }.map { (String($0.dropFirst(11)), $0) }
    case "notify":
      candidates = latency.columns.filter { $0.hasPrefix("notify.") }.map { (String($0.dropFirst(7)), $0) }
    case "save": return "save policy"
    case "ui": return "UI refresh"
    default: return "transfer"
    }
    var best: (name: String, seconds: Double)?
    for candidate in candidates {
      let seconds = latency.number(row, candidate.column) ?? 0
      if seconds > (best?.seconds ?? 0) { best = (candidate.name, seconds) }
    }
    return best?.name ?? "none"
  }

  /// A Gantt chart of the chosen write: a bar per observer, a segment per stage with its main
  /// cause, and the same as a table.
  func journey() -> Result<String, ReportProblem> {
    guard let latency else { return .success(missing("latency.csv")) }
    guard let write = chosenWrite ?? slowestWrite() else {
      return .success("<p class=\"note\">No row was made: no journey to draw.</p>\n")
    }
    let rows = latency.rows.filter { latency.text($0, "write") == String(write) }
    guard let first = rows.first, let edited = latency.number(first, "editedAt") else {
      return .failure(
        ReportProblem(
          message: "write \(write) has no rows in latency.csv",
          hint: "writes are numbered from 1; the slowest is drawn without --write"))
    }
    let stops = rows.map { row -> Double in
      latency.number(row, "visibleAt")
        ?? edited + Self.stageNames.reduce(0) { $0 + (latency.number(row, $1) ?? 0) }
    }
    let span = max((stops.max() ?? edited) - edited, 1e-9)
    let unit = timeUnit(span)
    let (left, right, top) = (150.0, Self.width - 20, 10.0)
    let barHeight = 22.0
    let bottom = top + Double(rows.count) * (barHeight + 10)
    let x = SVG.Scale(low: 0, high: span, from: left, to: right)
    let legendEntries = Self.stageNames.enumerated().map { ($1, SVG.color($0)) }
    let height = bottom + 50 + SVG.legendHeight(Self.stageNames, width: right - left)
    var svg = SVG.open(
      id: "write-journey", width: Self.width, height: height, label: "The journey of write \(write)",
      extra: " data-write=\"\(write)\"")
    var table = "<table class=\"journey\"><tr><th>observer</th><th>outcome</th>"
    table += Self.stageNames.map { "<th>\($0)</th>" }.joined() + "</tr>\n"
    for (index, row) in rows.enumerated() {
      let barTop = top + Double(index) * (barHeight + 10)
      let observer = latency.text(row, "observer")
      svg +=
        "<text x=\"\(SVG.n(left - 8))\" y=\"\(SVG.n(barTop + 15))\" class=\"tick\" text-anchor=\"end\">\(XMLText.escaped(observer))</text>"
      table += "<tr><td>\(XMLText.escaped(observer))</td><td>\(XMLText.escaped(latency.text(row, "outcome")))</td>"
      var start = 0.0
      for (stage, name) in Self.stageNames.enumerated() {
        guard let seconds = latency.number(row, name) else {
          table += "<td></td>"
          continue
        }
        let why = cause(of: name, row)
        table += "<td>\(SVG.duration(seconds))<br><span class=\"small\">\(XMLText.escaped(why))</span></td>"
        guard seconds > 0 else { continue }
        let x0 = x(start), x1 = x(start + seconds)
        svg +=
          "<rect class=\"segment\" data-stage=\"\(name)\" data-cause=\"\(XMLText.escaped(why))\" x=\"\(SVG.n(x0))\" "
        svg +=
          "y=\"\(SVG.n(barTop))\" width=\"\(SVG.n(max(x1 - x0, 0.5)))\" height=\"\(SVG.n(barHeight))\" fill=\"\(SVG.color(stage))\">"
        svg += "<title>\(name): \(XMLText.escaped(why)), \(SVG.duration(seconds))</title></rect>"
        if x1 - x0 > Double(why.count) * 6.5 + 8 {
          svg +=
            "<text x=\"\(SVG.n(x0 + 4))\" y=\"\(SVG.n(barTop + 15))\" class=\"inbar\">\(XMLText.escaped(why))</text>"
        }
        start += seconds
      }
      let stuck = latency.text(row, "stuckStage")
      if !stuck.isEmpty {
        let px = x(start)
        svg += "<text x=\"\(SVG.n(min(px + 4, right - 150)))\" y=\"\(SVG.n(barTop + 15))\" class=\"small\">"
        svg += "not visible: \(XMLText.escaped(stuck)), \(XMLText.escaped(latency.text(row, "stuckCause")))</text>"
      }
      svg += "\n"
      table += "</tr>\n"
    }
    svg += timeAxisTicks(x: x, end: span, y: bottom)
    svg += SVG.xAxis("time since the edit (\(unit.name))", left: left, right: right, bottom: bottom)
    svg += SVG.legend(legendEntries, x: left, y: bottom + 50, width: right - left)
    svg += "</svg>\n"
    let writer = latency.text(first, "writer")
    let which = chosenWrite == nil ? "the slowest write" : "write \(write)"
    var caption = "Write \(write) (\(which == "the slowest write" ? "the slowest" : "chosen with --write")), "
    caption += "edited on \(XMLText.escaped(writer)) at \(when(edited)): one bar per observer, one "
    caption += "segment per stage, labelled with what it waited on most."
    return .success(svg + "<p class=\"caption\">\(caption)</p>\n" + table + "</table>\n")
  }
}
