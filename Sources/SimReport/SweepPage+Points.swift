import Foundation
import SimMetrics

/// Per point, where the time goes and how latency spreads (issue 73, item 11): the stage means
/// as stacked bars, and the latency quantiles as a distribution function, one line per point.
/// Both from sweep-summary.csv's means over each point's replications.
extension SweepPage {
  /// The most points the per-point charts draw: past it a bar or line per point is unreadable.
  static let pointChartLimit = 40
  static let cdfLimit = 12

  /// The quantiles a latency distribution is drawn through, with their probabilities.
  static let quantiles: [(metric: String, probability: Double)] = [
    ("latency.p50", 0.5), ("latency.p90", 0.9), ("latency.p95", 0.95), ("latency.p99", 0.99), ("latency.max", 1),
  ]

  /// Each point: its number, its label and its metrics' rows.
  typealias Points = [(point: String, label: String, rows: [String: ReportTable.Row])]

  /// The points in order, each with the rows of its metrics and its label (its factors' values).
  func points() -> Points {
    var order: [String] = []
    var rows: [String: [String: ReportTable.Row]] = [:]  // lookup only: `order` keeps the order
    for row in summary.rows {
      let point = summary.text(row, "point")
      if rows[point] == nil {
        order.append(point)
        rows[point] = [:]
      }
      rows[point]![summary.text(row, "metric")] = row
    }
    return order.map { point in
      let first = rows[point]!.values.first
      let name =
        factors.isEmpty || first == nil
        ? "point \(point)"
        : factors.map { "\(self.label($0))=\(summary.text(first!, $0))" }.joined(separator: ", ")
      return (point, name, rows[point]!)
    }
  }

  /// A label cut to `limit` characters, with an ellipsis.
  static func cut(_ text: String, _ limit: Int) -> String {
    text.count <= limit ? text : String(text.prefix(limit - 1)) + "…"
  }

  /// Stacked bars of each point's mean time per stage; nil when the summary has no stage means.
  func stageBars(_ all: Points) -> String? {
    let stages = LatencyRow.stageNames
    let shown = Array(all.prefix(Self.pointChartLimit))
    let means = shown.map { point in stages.map { stage in point.rows["stage.\(stage).mean"].flatMap { summary.number($0, "mean") } } }
    guard means.contains(where: { $0.contains { $0 != nil } }) else { return nil }
    let totals = means.map { $0.reduce(0) { $0 + ($1 ?? 0) } }
    let axis = YAxis(high: totals.max() ?? 0, isDuration: true)
    let (left, right, top, rowHeight) = (250.0, 840.0, 16.0, 22.0)
    let bottom = top + rowHeight * Double(shown.count)
    let x = SVG.Scale(low: 0, high: axis.top, from: left, to: right)
    let legend = stages.enumerated().map { ($1, SVG.color($0)) }
    let height = bottom + 50 + SVG.legendHeight(legend.map(\.0), width: right - left)
    var svg = SVG.open(
      id: "chart-stages-per-point", width: 920, height: height, label: "mean time per stage at each point",
      extra: " data-y-unit=\"\(axis.unitName)\"")
    svg += SVG.verticalGrid(axis.ticks.map { ($0, axis.label($0)) }, x: x, top: top, bottom: bottom)
    for (index, point) in shown.enumerated() {
      let y = top + rowHeight * Double(index)
      svg += "<text x=\"\(SVG.n(left - 6))\" y=\"\(SVG.n(y + 15))\" class=\"tick\" text-anchor=\"end\">"
      svg += "\(XMLText.escaped(Self.cut(point.label, 36)))</text>\n"
      var start = 0.0
      for (stage, mean) in means[index].enumerated() {
        guard let mean, mean > 0 else { continue }
        let (from, to) = (x(start), x(start + mean))
        svg += "<rect class=\"stage\" data-point=\"\(point.point)\" data-stage=\"\(stages[stage])\" "
        svg += "data-seconds=\"\(SVG.number(mean))\" x=\"\(SVG.n(from))\" y=\"\(SVG.n(y + 3))\" width=\"\(SVG.n(max(to - from, 0.5)))\" "
        svg += "height=\"\(SVG.n(rowHeight - 6))\" fill=\"\(SVG.color(stage))\"><title>\(XMLText.escaped(point.label)): "
        svg += "\(stages[stage]) \(SVG.duration(mean))</title></rect>"
        start += mean
      }
      svg += "<text class=\"small total\" data-point=\"\(point.point)\" x=\"\(SVG.n(x(start) + 4))\" y=\"\(SVG.n(y + 15))\">"
      svg += "\(SVG.duration(totals[index]))</text>\n"
    }
    svg += SVG.xAxis("mean time per stage over visible rows", left: left, right: right, bottom: bottom)
    svg += SVG.legend(legend, x: left, y: bottom + 50, width: right - left)
    return svg + "</svg>\n"
  }

  /// Each point's latency distribution through its mean p50, p90, p95, p99 and max; nil when
  /// no point has a latency.
  func latencyDistribution(_ all: Points) -> String? {
    let shown = all.prefix(Self.cdfLimit).compactMap {
      point -> (point: String, label: String, steps: [(Double, Double)], lowerBound: Bool)? in
      let steps = Self.quantiles.compactMap { quantile in
        point.rows[quantile.metric].flatMap { summary.number($0, "mean") }.map { ($0, quantile.probability) }
      }
      guard !steps.isEmpty else { return nil }
      let lowerBound = point.rows["latency.isLowerBound"].flatMap { summary.number($0, "mean") }.map { $0 > 0 } ?? false
      return (point.point, point.label, steps, lowerBound)
    }
    guard !shown.isEmpty else { return nil }
    let values = shown.flatMap { $0.steps.map(\.0) }.filter { $0 > 0 }
    guard !values.isEmpty else { return nil }
    let unit = XAxis.durationUnit(values.max()!)
    let (left, right, top, bottom) = (80.0, 900.0, 16.0, 250.0)
    let logarithmic = values.max()! / values.min()! >= 100
    var x: SVG.Scale
    var ticks: [(value: Double, label: String)]
    if logarithmic {
      // The run report's latency axis: ends and ticks at times people read (1 s, 1 min, 1 h).
      let (smallest, largest) = (values.min()!, values.max()!)
      let low = SVG.timeTicks.last { $0.seconds <= smallest }?.seconds ?? SVG.timeTicks[0].seconds
      let high = SVG.timeTicks.first { $0.seconds >= largest }?.seconds ?? largest * 1.2
      x = SVG.Scale(low: low, high: high, from: left, to: right, logarithmic: true)
      ticks = SVG.timeTicks.filter { $0.seconds >= low && $0.seconds <= high }.map { ($0.seconds, $0.label) }
    } else {
      let axis = YAxis(high: values.max()!, isDuration: true)
      x = SVG.Scale(low: 0, high: axis.top, from: left, to: right)
      ticks = axis.ticks.map { ($0, XAxis.label($0, unit)) }
    }
    let y = SVG.Scale(low: 0, high: 1, from: bottom, to: top)
    let legend = shown.enumerated().map { index, point in
      (Self.cut(point.label, 60) + (point.lowerBound ? " (lower bound)" : ""), SVG.color(index))
    }
    let height = bottom + 50 + SVG.legendHeight(legend.map(\.0), width: right - left)
    var svg = SVG.open(
      id: "chart-latency-distribution", width: 920, height: height, label: "latency distribution at each point",
      extra: " data-x-axis=\"\(logarithmic ? "log" : "linear")\"")
    svg += SVG.horizontalGrid([0, 0.5, 0.9, 1], y: y, left: left, right: right) { SVG.number($0) }
    svg += SVG.verticalGrid(ticks, x: x, top: top, bottom: bottom)
    for (index, point) in shown.enumerated() {
      let color = SVG.color(index)
      let line = point.steps.map { "\(SVG.n(x($0.0))),\(SVG.n(y($0.1)))" }
      svg += "<polyline class=\"distribution\" fill=\"none\" stroke=\"\(color)\" stroke-width=\"2\" points=\""
      svg += line.joined(separator: " ") + "\"/>\n"
      for (seconds, probability) in point.steps {
        svg += "<circle class=\"quantile\" data-point=\"\(point.point)\" data-probability=\"\(SVG.number(probability))\" "
        svg += "data-seconds=\"\(SVG.number(seconds))\" cx=\"\(SVG.n(x(seconds)))\" cy=\"\(SVG.n(y(probability)))\" r=\"3\" fill=\"\(color)\">"
        svg += "<title>\(XMLText.escaped(point.label)): \(Self.quantileName(probability)) \(SVG.duration(seconds))</title></circle>"
      }
      svg += "\n"
    }
    svg += SVG.xAxis("save-to-visible latency" + (logarithmic ? " (log scale)" : ""), left: left, right: right, bottom: bottom)
    svg += SVG.yTitle("share of visible rows", top: top, bottom: bottom)
    svg += SVG.legend(legend, x: left, y: bottom + 50, width: right - left)
    return svg + "</svg>\n"
  }

  static func quantileName(_ probability: Double) -> String {
    probability == 1 ? "max" : "p" + SVG.number(probability * 100)
  }

  /// The two per-point sections of the page, with their captions and standalone files.
  func pointSections() -> (body: String, charts: [Chart]) {
    var body = ""
    var charts: [Chart] = []
    let all = points()
    let count = all.count
    /// A section of `svg` under `heading`, its caption, and its chart as `<prefix>-<name>.svg`.
    func add(_ svg: String?, _ name: String, _ heading: String, _ caption: String, limit: Int) {
      guard let svg else { return }
      let file = chartPrefix + "-" + name + ".svg"
      charts.append(Chart(file: file, svg: Self.standalone(svg)))
      body += "<section><h2>\(heading)</h2>\n" + svg + "<p class=\"caption\">" + caption
      if count > limit { body += "The first \(limit) of \(count) points. " }
      body += "Also <code>\(XMLText.escaped(file))</code>.</p></section>\n"
    }
    add(
      stageBars(all), "stages-per-point", "Where the time goes, per point",
      "Each point's mean time in each stage over its visible rows (stage.*.mean, averaged over its replications), "
        + "in pipeline order; the bar's end is their sum, the mean latency. ",
      limit: Self.pointChartLimit)
    add(
      latencyDistribution(all), "latency-distribution", "Latency distribution, per point",
      "Each point's distribution function of save-to-visible latency, drawn through its p50, p90, p95, p99 and max "
        + "(each the mean over the point's replications; sweep-summary.csv keeps no finer quantiles): a line reaching "
        + "1 at its max. \"Lower bound\": some rows were never visible, so the true distribution lies to the right. ",
      limit: Self.cdfLimit)
    return (body, charts)
  }
}
