import Foundation

/// What held activities back over time, and each device's state.
extension RunPage {
  /// Waiting time per policy or wait cause in 48 bins of simulated time, stacked. Each activity's
  /// blocked seconds for a cause are spread evenly over its wait (request to start).
  func blockedOverTime() -> String {
    guard let activities else { return missing("activities.csv") }
    let causes = activities.columns.filter { $0.hasPrefix("blocked.") }
    let end = max(endSeconds, 1e-9)
    let binCount = 48
    var bins = Array(repeating: Array(repeating: 0.0, count: causes.count), count: binCount)
    for row in activities.rows {
      guard let requested = activities.number(row, "requestedAt") else { continue }
      let waitEnd = activities.number(row, "startedAt") ?? activities.number(row, "finishedAt") ?? end
      for (cause, column) in causes.enumerated() {
        guard let seconds = activities.number(row, column), seconds > 0 else { continue }
        spread(seconds, from: requested, to: max(waitEnd, requested), end: end, into: &bins, cause: cause)
      }
    }
    let used = causes.indices.filter { cause in bins.contains { $0[cause] > 0 } }
    guard !used.isEmpty else {
      // A trace whose log has no dasd lines cannot tell: that is not "nothing waited".
      if isTrace && !(activities.rows.contains { !activities.text($0, "decidedAt").isEmpty }) {
        return "<p class=\"note\">The log has no scheduler (dasd) lines: the policies that held exports and imports "
          + "are unknown, so nothing is drawn here.</p>\n"
      }
      return "<p class=\"note\">No activity waited on a policy or wait cause in this run.</p>\n"
    }
    let largest = bins.map { bin in used.reduce(0) { $0 + bin[$1] } }.max() ?? 0
    let (unit, divisor) =
      largest >= 7200
      ? ("activity-hours", 3600.0) : largest >= 120 ? ("activity-minutes", 60.0) : ("activity-seconds", 1.0)
    let ticks = SVG.linearTicks(upTo: largest / divisor)
    let (left, right, top, bottom) = (70.0, Self.width - 20, 20.0, 240.0)
    let x = SVG.Scale(low: 0, high: end, from: left, to: right)
    let y = SVG.Scale(low: 0, high: ticks.last ?? 1, from: bottom, to: top)
    let names = used.map { XMLText.escaped(String(causes[$0].dropFirst("blocked.".count))) }
    let legendEntries = used.map { (String(causes[$0].dropFirst("blocked.".count)), SVG.color($0)) }
    let height = bottom + 50 + SVG.legendHeight(legendEntries.map(\.0), width: right - left)
    var svg = SVG.open(
      id: "blocked-over-time", width: Self.width, height: height, label: "Blocked time per policy over time")
    svg += SVG.horizontalGrid(ticks, y: y, left: left, right: right)
    svg += runTimeAxisTicks(x: x, end: end, y: bottom)
    let binWidth = (right - left) / Double(binCount)
    for (index, bin) in bins.enumerated() {
      var stacked = 0.0
      for (position, cause) in used.enumerated() where bin[cause] > 0 {
        let value = bin[cause] / divisor
        let y0 = y(stacked), y1 = y(stacked + value)
        svg +=
          "<rect class=\"blocked\" data-cause=\"\(names[position])\" x=\"\(SVG.n(left + Double(index) * binWidth + 1))\" "
        svg +=
          "y=\"\(SVG.n(y1))\" width=\"\(SVG.n(binWidth - 2))\" height=\"\(SVG.n(max(y0 - y1, 0.5)))\" fill=\"\(SVG.color(cause))\">"
        svg += "<title>\(names[position]): \(SVG.number(value)) \(unit)</title></rect>\n"
        stacked += value
      }
    }
    svg += axisLabels(
      x: runTimeTitle(end), y: "waiting (\(unit))", left: left, right: right, top: top,
      bottom: bottom)
    svg += SVG.legend(legendEntries, x: left, y: bottom + 50, width: right - left)
    svg += "</svg>\n"
    return svg
      + "<p class=\"caption\">Each bar: the time activities spent waiting in that slice of the run, by what "
      + "held them (a scheduler policy or a wait cause), from activities.csv.</p>\n"
  }

  func spread(
    _ seconds: Double, from start: Double, to stop: Double, end: Double, into bins: inout [[Double]], cause: Int
  ) {
    let count = bins.count
    let width = end / Double(count)
    let bin = { (time: Double) in Int(min(max(time / width, 0), Double(count - 1))) }
    let first = bin(start)
    let last = max(first, bin(stop))
    guard stop > start, last > first else {
      bins[first][cause] += seconds
      return
    }
    for bin in first...last {
      let overlap = min(stop, Double(bin + 1) * width) - max(start, Double(bin) * width)
      if overlap > 0 { bins[bin][cause] += seconds * overlap / (stop - start) }
    }
  }

  /// The unit for a time axis that ends at `end` seconds.
  func timeUnit(_ end: Double) -> (name: String, seconds: Double) {
    end >= 172_800 ? ("d", 86400) : end >= 7200 ? ("h", 3600) : end >= 120 ? ("min", 60) : ("s", 1)
  }

  /// The time of day at the run's start, read from timeline.csv's `clock` column (a scenario with
  /// a `start`); nil otherwise.
  var clockStart: Double? {
    guard let timeline, timeline.columns.contains("clock"), let first = timeline.rows.first,
      timeline.number(first, "time") == 0
    else { return nil }
    let parts = timeline.text(first, "clock").split(separator: ":").compactMap { Double($0) }
    guard parts.count == 3 else { return nil }
    return parts[0] * 3600 + parts[1] * 60 + parts[2]
  }

  /// A moment of the run in the frame its time axes use: the time of day with a start ("23:30,
  /// 1.50 h into the run"), else the offset ("1.50 h into the run").
  func when(_ seconds: Double) -> String {
    let offset = SVG.duration(seconds) + " into the run"
    guard let start = clockStart else { return offset }
    return Self.clock(start + seconds) + ", " + offset
  }

  /// Seconds from midnight as a time of day, "23:00" (past midnight, the next day's).
  static func clock(_ seconds: Double) -> String {
    let clock = Int(seconds.rounded()) % 86_400
    return String(format: "%02d:%02d", clock / 3600, clock / 60 % 60)
  }

  /// The title of a run-time axis: the time of day with a start, else the offset's unit.
  func runTimeTitle(_ end: Double) -> String {
    clockStart == nil ? "simulated time (\(timeUnit(end).name))" : "time of day (from the scenario's start)"
  }

  /// Ticks of a run-time axis: offsets, or with a start the time of day ("23:00").
  func runTimeAxisTicks(x: SVG.Scale, end: Double, y: Double) -> String {
    guard let start = clockStart else { return timeAxisTicks(x: x, end: end, y: y) }
    let unit = timeUnit(end)
    var out = ""
    for tick in SVG.linearTicks(upTo: end / unit.seconds) where tick * unit.seconds <= end * 1.0001 {
      let offset = tick * unit.seconds
      let label = Self.clock(start + offset)
      let px = x(offset)
      out += "<line x1=\"\(SVG.n(px))\" y1=\"\(SVG.n(y))\" x2=\"\(SVG.n(px))\" y2=\"\(SVG.n(y + 4))\" class=\"axis\"/>"
      out += "<text x=\"\(SVG.n(px))\" y=\"\(SVG.n(y + 16))\" class=\"tick\" text-anchor=\"middle\">\(label)</text>\n"
    }
    return out
  }

  func timeAxisTicks(x: SVG.Scale, end: Double, y: Double) -> String {
    let unit = timeUnit(end)
    var out = ""
    // linearTicks ends at or past `end`; a time axis stops at `end`, so no tick falls outside it.
    for tick in SVG.linearTicks(upTo: end / unit.seconds) where tick * unit.seconds <= end * 1.0001 {
      let px = x(tick * unit.seconds)
      out += "<line x1=\"\(SVG.n(px))\" y1=\"\(SVG.n(y))\" x2=\"\(SVG.n(px))\" y2=\"\(SVG.n(y + 4))\" class=\"axis\"/>"
      out +=
        "<text x=\"\(SVG.n(px))\" y=\"\(SVG.n(y + 16))\" class=\"tick\" text-anchor=\"middle\">\(SVG.number(tick))</text>\n"
    }
    return out
  }

  static let appStateColors = [
    ("foreground", "#59a14f"), ("background", "#edc948"), ("suspended", "#bab0ac"), ("notRunning", "#eeeeee"),
  ]

  /// One lane per device (the first 24): the app's state from `timeline.csv`, offline and Low
  /// Power Mode beneath it, plugged in above it, each write the device made (▲) and each import
  /// that brought records (●).
  func deviceTimeline() -> String {
    // Every change from states.csv where the folder has it; else timeline.csv's samples, which
    // miss a session shorter than their interval.
    guard let timeline = states ?? timeline else { return missing("timeline.csv") }
    let fromChanges = states != nil
    var devices: [String] = []
    var samples: [String: [(time: Double, row: ReportTable.Row)]] = [:]  // lookup only; order is `devices`
    for row in timeline.rows {
      let device = timeline.text(row, "device")
      if samples[device] == nil {
        devices.append(device)
        samples[device] = []
      }
      samples[device]!.append((timeline.number(row, "time") ?? 0, row))
    }
    let shown = Array(devices.prefix(Self.timelineDeviceLimit))
    let end = max(endSeconds, 1e-9)
    let (left, right, top) = (120.0, Self.width - 20, 10.0)
    let lane = 26.0
    let bottom = top + Double(shown.count) * lane
    let x = SVG.Scale(low: 0, high: end, from: left, to: right)
    // The declared conditions timeline.csv samples beyond the built-in four (its columns between
    // "online" and "pendingWrites"): each drawn beneath the lane while above its lowest level.
    let extra = Self.extraConditionColumns(timeline)
    let legend: [(String, String)] =
      Self.appStateColors.map { ("app \($0.0)", $0.1) } + [
        ("offline", "#e15759"), ("Low Power Mode", "#f28e2b"), ("plugged in (line above)", "#4e79a7"),
      ] + extra.map { ("\($0) raised (line beneath)", "#76b7b2") } + [
        ("▲ write", "#222"),
        ("● import with records", "#4e79a7"),
      ] + (marks?.actions.isEmpty == false ? [("▼ timeline action", "#b07aa1")] : [])
    let height = bottom + 50 + SVG.legendHeight(legend.map(\.0), width: right - left)
    var svg = SVG.open(id: "device-timeline", width: Self.width, height: height, label: "Device states over time")
    var laneOf: [String: Double] = [:]  // lookup only
    for (index, device) in shown.enumerated() {
      let laneTop = top + Double(index) * lane
      laneOf[device] = laneTop
      svg +=
        "<text x=\"\(SVG.n(left - 8))\" y=\"\(SVG.n(laneTop + 12))\" class=\"tick\" text-anchor=\"end\">\(XMLText.escaped(device))</text>"
      let points = samples[device]!
      for (position, sample) in points.enumerated() {
        let next = position + 1 < points.count ? points[position + 1].time : end
        let x0 = x(sample.time), x1 = x(next)
        let state = timeline.text(sample.row, "app")
        let color = Self.appStateColors.first { $0.0 == state }?.1 ?? "#ffffff"
        svg +=
          "<rect class=\"app\" data-device=\"\(XMLText.escaped(device))\" data-state=\"\(XMLText.escaped(state))\" x=\"\(SVG.n(x0))\" y=\"\(SVG.n(laneTop))\" "
        svg += "width=\"\(SVG.n(max(x1 - x0, 0.3)))\" height=\"14\" fill=\"\(color)\"/>"
        if timeline.text(sample.row, "online") == "0" {
          svg +=
            "<rect class=\"offline\" x=\"\(SVG.n(x0))\" y=\"\(SVG.n(laneTop + 15))\" width=\"\(SVG.n(max(x1 - x0, 0.3)))\" height=\"4\" fill=\"#e15759\"/>"
        }
        if timeline.text(sample.row, "lowPowerMode") == "1" {
          svg +=
            "<rect class=\"lowpower\" x=\"\(SVG.n(x0))\" y=\"\(SVG.n(laneTop + 20))\" width=\"\(SVG.n(max(x1 - x0, 0.3)))\" height=\"4\" fill=\"#f28e2b\"/>"
        }
        for column in extra where !Self.isLowest(timeline.text(sample.row, column)) {
          let value = XMLText.escaped(timeline.text(sample.row, column))
          svg +=
            "<rect class=\"condition\" data-condition=\"\(XMLText.escaped(column))\" data-value=\"\(value)\" x=\"\(SVG.n(x0))\" y=\"\(SVG.n(laneTop + 24.5))\" width=\"\(SVG.n(max(x1 - x0, 0.3)))\" height=\"1.5\" fill=\"#76b7b2\"/>"
        }
        if timeline.text(sample.row, "pluggedIn") == "1" {
          svg +=
            "<rect class=\"plugged\" x=\"\(SVG.n(x0))\" y=\"\(SVG.n(laneTop - 2))\" width=\"\(SVG.n(max(x1 - x0, 0.3)))\" height=\"2\" fill=\"#4e79a7\"/>"
        }
      }
      svg += "\n"
    }
    let batteryDrawn = batteryLines(laneOf: laneOf, x: x)
    svg += batteryDrawn
    let thresholds = batteryDrawn.isEmpty ? "" : thresholdLines(laneOf: laneOf, left: left, right: right)
    svg += thresholds
    svg += marks(laneOf: laneOf, x: x)
    let actions = actionMarks(laneOf: laneOf, x: x)
    svg += actions
    svg += runTimeAxisTicks(x: x, end: end, y: bottom)
    svg += SVG.xAxis(runTimeTitle(end), left: left, right: right, bottom: bottom)
    svg += SVG.legend(legend, x: left, y: bottom + 50, width: right - left)
    svg += "</svg>\n"
    var caption =
      (fromChanges ? "App state at every change (states.csv)" : "App state per sample of timeline.csv")
      + "; red beneath: offline; orange: Low Power Mode; a blue line above: "
    caption += "plugged in."
    if !batteryDrawn.isEmpty {
      caption += " A dark line in each lane: its battery level from timeline.csv (the lane's bottom 0 %, its top 100 %)."
    }
    if !thresholds.isEmpty, let levels = marks?.thresholds {
      caption += " Dotted across each lane: the battery levels below which a policy holds background work ("
      caption += levels.map { "\(XMLText.escaped($0.policy)) \(SVG.number($0.percent)) %" }.joined(separator: ", ") + ")."
    }
    if !actions.isEmpty, let listed = marks?.actions {
      caption += " ▼ above a lane: the scenario's timeline actions on that device"
      if listed.count <= Self.actionLabelLimit {
        caption += ": " + listed.map { "\(XMLText.escaped($0.name)) on \(XMLText.escaped($0.device)) at \(when($0.seconds))" }
          .joined(separator: "; ") + "."
      } else {
        caption += " (\(listed.count); each named in its tooltip)."
      }
    }
    if !extra.isEmpty {
      caption += " A teal line beneath: " + extra.joined(separator: ", ") + " above its lowest level."
    }
    if devices.count > shown.count { caption += " The first \(shown.count) of \(devices.count) devices are drawn." }
    return svg + "<p class=\"caption\">\(caption)</p>\n"
  }

  /// Each shown device's battery level from `timeline.csv` as a line inside its lane (0 % at the
  /// lane's bottom, 100 % at its top): a battery question's answer next to the states it caused
  /// (issue 73: the report had no battery although timeline.csv has it). Empty when no device's
  /// level is below 100 % anywhere.
  func batteryLines(laneOf: [String: Double], x: SVG.Scale) -> String {
    guard let timeline, timeline.columns.contains("batteryPercent") else { return "" }
    var levels: [String: [(Double, Double)]] = [:]  // lookup only; drawn in the lanes' order
    for row in timeline.rows {
      let device = timeline.text(row, "device")
      guard laneOf[device] != nil, let time = timeline.number(row, "time"), let level = timeline.number(row, "batteryPercent")
      else { continue }
      levels[device, default: []].append((time, level))
    }
    guard levels.values.contains(where: { $0.contains { $0.1 < 100 } }) else { return "" }
    var out = ""
    for (device, top) in laneOf.sorted(by: { $0.value < $1.value }) {
      guard let points = levels[device], points.count > 1 else { continue }
      let path = points.map { "\(SVG.n(x($0.0))),\(SVG.n(top + 14 - max(0, min(100, $0.1)) / 100 * 14))" }.joined(separator: " ")
      out += "<polyline class=\"battery\" data-device=\"\(XMLText.escaped(device))\" points=\"\(path)\" fill=\"none\" stroke=\"#222\" stroke-width=\"1\"/>"
    }
    return out.isEmpty ? "" : out + "\n"
  }

  /// Most timeline actions the caption lists in words (past it, tooltips only).
  static let actionLabelLimit = 24

  /// The battery levels the scheduler's policies act at, dotted across each lane on the battery
  /// line's scale (0 % at the lane's bottom, 100 % at its top).
  func thresholdLines(laneOf: [String: Double], left: Double, right: Double) -> String {
    guard let levels = marks?.thresholds, !levels.isEmpty else { return "" }
    var out = ""
    for (_, top) in laneOf.sorted(by: { $0.value < $1.value }) {
      for level in levels {
        let py = top + 14 - max(0, min(100, level.percent)) / 100 * 14
        out += "<line class=\"threshold\" data-percent=\"\(SVG.number(level.percent))\" x1=\"\(SVG.n(left))\" "
        out += "y1=\"\(SVG.n(py))\" x2=\"\(SVG.n(right))\" y2=\"\(SVG.n(py))\" stroke=\"#222\" stroke-width=\"0.6\" "
        out += "stroke-dasharray=\"1 3\"><title>\(XMLText.escaped(level.policy)): below \(SVG.number(level.percent)) %</title></line>"
      }
    }
    return out.isEmpty ? "" : out + "\n"
  }

  /// The scenario's timeline actions, a ▼ above their device's lane at their time, named in its
  /// tooltip.
  func actionMarks(laneOf: [String: Double], x: SVG.Scale) -> String {
    guard let actions = marks?.actions, !actions.isEmpty else { return "" }
    var out = ""
    var count = 0
    for action in actions where count < Self.timelineMarkLimit {
      guard let top = laneOf[action.device] else { continue }
      count += 1
      let px = x(action.seconds)
      out += "<path class=\"action\" data-device=\"\(XMLText.escaped(action.device))\" data-action=\"\(XMLText.escaped(action.name))\" "
      out += "data-seconds=\"\(SVG.number(action.seconds))\" d=\"M\(SVG.n(px - 3.5)) \(SVG.n(top - 6))L\(SVG.n(px + 3.5)) \(SVG.n(top - 6))"
      out += "L\(SVG.n(px)) \(SVG.n(top))Z\" fill=\"#b07aa1\"><title>\(XMLText.escaped(action.name)) on "
      out += "\(XMLText.escaped(action.device)) at \(when(action.seconds))</title></path>"
    }
    return out.isEmpty ? "" : out + "\n"
  }

  /// The columns of `timeline.csv` or `states.csv` for declared conditions beyond the built-in
  /// four: those after `online` (and before `pendingWrites`, which only timeline.csv has).
  static func extraConditionColumns(_ table: ReportTable) -> [String] {
    guard let start = table.columns.firstIndex(of: "online") else { return [] }
    let end = table.columns.firstIndex(of: "pendingWrites") ?? table.columns.count
    return start < end ? Array(table.columns[(start + 1)..<end]) : []
  }

  /// Whether a condition's sampled text is its lowest level: off, zero, empty, or a first level
  /// such as `nominal`.
  static func isLowest(_ text: String) -> Bool { ["", "0", "nominal"].contains(text) }

  /// Writes (from `latency.csv`, once per write) and imports that brought records (from
  /// `activities.csv`) on their device's lane; at most `timelineMarkLimit` of each.
  func marks(laneOf: [String: Double], x: SVG.Scale) -> String {
    var out = ""
    if let latency {
      var seen = Set<String>()
      var count = 0
      for row in latency.rows where count < Self.timelineMarkLimit {
        let write = latency.text(row, "write")
        guard !seen.contains(write), let laneTop = laneOf[latency.text(row, "writer")],
          let at = latency.number(row, "editedAt")
        else { continue }
        seen.insert(write)
        count += 1
        let px = x(at)
        out +=
          "<path class=\"write\" d=\"M\(SVG.n(px - 4)) \(SVG.n(laneTop + 13))L\(SVG.n(px + 4)) \(SVG.n(laneTop + 13))"
        out +=
          "L\(SVG.n(px)) \(SVG.n(laneTop + 5))Z\" fill=\"#222\"><title>write \(XMLText.escaped(write))</title></path>"
      }
    }
    if let activities {
      var count = 0
      for row in activities.rows where count < Self.timelineMarkLimit {
        guard activities.text(row, "kind") == "import", activities.text(row, "succeeded") == "1",
          (activities.number(row, "records") ?? 0) > 0, let laneTop = laneOf[activities.text(row, "device")],
          let at = activities.number(row, "finishedAt")
        else { continue }
        count += 1
        out += "<circle class=\"import\" cx=\"\(SVG.n(x(at)))\" cy=\"\(SVG.n(laneTop + 7))\" r=\"3\" fill=\"#4e79a7\" "
        out +=
          "stroke=\"#fff\" stroke-width=\"0.8\"><title>import of \(XMLText.escaped(activities.text(row, "records"))) records</title></circle>"
      }
    }
    return out + "\n"
  }
}
