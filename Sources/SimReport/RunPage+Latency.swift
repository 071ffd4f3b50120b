import Foundation

/// The latency distribution and the stage breakdown.
extension RunPage {
  /// The CDF of save-to-visible latency per observer group on a log time axis, with the run's
  /// p50, p95 and p99 (from `summary.csv`) marked.
  func latencyCDF() -> String {
    guard latency != nil else { return missing("latency.csv") }
    let groups = latenciesByGroup()
    let all = groups.flatMap(\.values)
    guard let smallest = all.first(where: { $0 > 0 }) ?? all.first, let largest = all.max(), largest > 0 else {
      return "<p class=\"note\">No row became visible: there is no latency to draw.</p>\n"
    }
    let low = SVG.timeTicks.last { $0.seconds <= smallest }?.seconds ?? SVG.timeTicks[0].seconds
    let high = SVG.timeTicks.first { $0.seconds >= largest }?.seconds ?? largest * 1.2
    let (left, right, top, bottom) = (70.0, Self.width - 20, 20.0, 300.0)
    let x = SVG.Scale(low: low, high: high, from: left, to: right, logarithmic: true)
    let y = SVG.Scale(low: 0, high: 1, from: bottom, to: top)
    let legendEntries = groups.enumerated().map {
      ("observer group \($1.group) (\($1.values.count) rows)", SVG.color($0))
    }
    let legendHeight = SVG.legendHeight(legendEntries.map(\.0), width: right - left)
    let height = bottom + 50 + legendHeight
    var svg = SVG.open(
      id: "latency-cdf", width: Self.width, height: height, label: "Cumulative distribution of save-to-visible latency")
    let shownTicks = SVG.timeTicks.filter { $0.seconds >= low && $0.seconds <= high }
    svg += SVG.verticalGrid(shownTicks.map { ($0.seconds, $0.label) }, x: x, top: top, bottom: bottom)
    svg += SVG.horizontalGrid([0, 0.25, 0.5, 0.75, 1], y: y, left: left, right: right)
    svg += axisLabels(
      x: "save-to-visible latency (log scale)", y: "fraction of visible rows", left: left, right: right, top: top,
      bottom: bottom)
    for (index, group) in groups.enumerated() {
      svg +=
        "<polyline class=\"cdf\" data-group=\"\(XMLText.escaped(group.group))\" fill=\"none\" stroke=\"\(SVG.color(index))\" "
      svg += "stroke-width=\"2\" points=\"\(cdfPoints(group.values, x: x, y: y))\"/>\n"
    }
    for (name, dash) in [("p50", "6 3"), ("p95", "3 3"), ("p99", "1 3")] {
      guard let value = metric("latency." + name) else { continue }
      let px = x(max(value, low))
      svg += "<line id=\"marker-\(name)\" x1=\"\(SVG.n(px))\" y1=\"\(SVG.n(top))\" x2=\"\(SVG.n(px))\" "
      svg +=
        "y2=\"\(SVG.n(bottom))\" stroke=\"#222\" stroke-dasharray=\"\(dash)\" data-seconds=\"\(XMLText.escaped(summary.text(row, "latency." + name)))\"/>"
      let labelY = top + 12 + Double(["p50", "p95", "p99"].firstIndex(of: name)!) * 14
      // Near the right edge the label goes left of its line, so it is never cut off.
      let text = "\(name) \(SVG.duration(value))"
      let leftOfLine = px + 8 + Double(text.count) * 7.5 > right
      let anchor = leftOfLine ? "end" : "start"
      svg += "<text id=\"label-\(name)\" x=\"\(SVG.n(leftOfLine ? px - 4 : px + 4))\" y=\"\(SVG.n(labelY))\" "
      svg += "class=\"marker\" text-anchor=\"\(anchor)\">"
      svg += "\(text)</text>\n"
    }
    svg += SVG.legend(legendEntries, x: left, y: bottom + 46, width: right - left)
    svg += "</svg>\n"
    let notVisible = Int(min(max(metric("rowsNotVisible") ?? 0, 0), 1e15))
    var caption = "Each curve: the share of (write, observer) rows of one observer group visible within the time on "
    caption += "the axis. Dashed lines: the run's p50, p95 and p99 over all visible rows (summary.csv)."
    if notVisible > 0 {
      caption += " \(notVisible) rows never became visible and are not in the curves: they are censored, so "
      caption += "p50, p95 and p99 are lower bounds."
    }
    return svg + "<p class=\"caption\">\(caption)</p>\n"
  }

  /// At most 400 points per curve: the sorted values at evenly spaced ranks, plus the last.
  func cdfPoints(_ values: [Double], x: SVG.Scale, y: SVG.Scale) -> String {
    let count = values.count
    let step = max(1, count / 400)
    var points: [String] = []
    var rank = 0
    while rank < count {
      points.append("\(SVG.n(x(values[rank]))),\(SVG.n(y(Double(rank + 1) / Double(count))))")
      rank += step
    }
    if (count - 1) % step != 0 { points.append("\(SVG.n(x(values[count - 1]))),\(SVG.n(y(1)))") }
    return points.joined(separator: " ")
  }

  /// Both axes of a chart with their titles.
  func axisLabels(x: String, y: String, left: Double, right: Double, top: Double, bottom: Double) -> String {
    SVG.xAxis(x, left: left, right: right, bottom: bottom)
      + "<line x1=\"\(SVG.n(left))\" y1=\"\(SVG.n(top))\" x2=\"\(SVG.n(left))\" y2=\"\(SVG.n(bottom))\" class=\"axis\"/>\n"
      + SVG.yTitle(y, top: top, bottom: bottom)
  }

  /// Mean time per stage as stacked horizontal bars: all visible rows (from `summary.csv`), then
  /// each observer group (from `latency.csv`).
  func stageBars() -> String {
    var bars: [(label: String, means: [Double])] = [
      ("all observers", Self.stageNames.map { metric("stage.\($0).mean") ?? 0 })
    ]
    if let latency {
      var sums: [(group: String, sums: [Double], count: Int)] = []
      var position: [String: Int] = [:]  // lookup only
      for row in latency.rows where latency.text(row, "outcome") == "visible" {
        let group = Self.observerGroup(latency, row)
        if position[group] == nil {
          position[group] = sums.count
          sums.append((group, Array(repeating: 0, count: Self.stageNames.count), 0))
        }
        let index = position[group]!
        for (stage, name) in Self.stageNames.enumerated() { sums[index].sums[stage] += latency.number(row, name) ?? 0 }
        sums[index].count += 1
      }
      if sums.count > 1 {
        for entry in sums {
          let count = Double(max(entry.count, 1))
          bars.append(("observer group \(entry.group)", entry.sums.map { $0 / count }))
        }
      }
    }
    let largest = bars.map { $0.means.reduce(0, +) }.max() ?? 0
    guard largest > 0 else { return "<p class=\"note\">No visible row: no stage to break down.</p>\n" }
    let (unit, divisor) = largest >= 7200 ? ("h", 3600.0) : largest >= 120 ? ("min", 60.0) : ("s", 1.0)
    let ticks = SVG.linearTicks(upTo: largest / divisor)
    let (left, right, top) = (170.0, Self.width - 30, 10.0)
    let barHeight = 22.0
    let bottom = top + Double(bars.count) * (barHeight + 10)
    let x = SVG.Scale(low: 0, high: ticks.last ?? 1, from: left, to: right)
    let legendEntries = Self.stageNames.enumerated().map { ($1, SVG.color($0)) }
    let height = bottom + 50 + SVG.legendHeight(Self.stageNames, width: right - left)
    var svg = SVG.open(id: "stage-bars", width: Self.width, height: height, label: "Mean time per stage")
    svg += SVG.verticalGrid(ticks.map { ($0, SVG.number($0)) }, x: x, top: top, bottom: bottom)
    for (index, bar) in bars.enumerated() {
      let barTop = top + Double(index) * (barHeight + 10)
      svg +=
        "<text x=\"\(SVG.n(left - 8))\" y=\"\(SVG.n(barTop + 15))\" class=\"tick\" text-anchor=\"end\">\(XMLText.escaped(bar.label))</text>"
      var start = 0.0
      for (stage, mean) in bar.means.enumerated() where mean > 0 {
        let x0 = x(start / divisor), x1 = x((start + mean) / divisor)
        svg += "<rect class=\"stage\" data-stage=\"\(Self.stageNames[stage])\" data-seconds=\"\(SVG.number(mean))\" "
        svg +=
          "x=\"\(SVG.n(x0))\" y=\"\(SVG.n(barTop))\" width=\"\(SVG.n(max(x1 - x0, 0.5)))\" height=\"\(SVG.n(barHeight))\" "
        svg +=
          "fill=\"\(SVG.color(stage))\"><title>\(XMLText.escaped(bar.label)): \(Self.stageNames[stage]) \(SVG.duration(mean))</title></rect>\n"
        start += mean
      }
    }
    svg += SVG.xAxis("mean time per visible row (\(unit))", left: left, right: right, bottom: bottom)
    svg += SVG.legend(legendEntries, x: left, y: bottom + 50, width: right - left)
    svg += "</svg>\n"
    return svg
      + "<p class=\"caption\">The stages of spec §10 in order; their means add up to the mean latency. "
      + "Hover a segment for its value.</p>\n"
  }
}
