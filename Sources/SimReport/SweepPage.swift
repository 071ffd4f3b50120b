import Foundation
import SimMetrics

/// The report of a sweep folder: each chosen metric against each factor, with 95 % interval bars
/// (from `sweep-summary.csv`), one panel per metric and factor.
struct SweepPage {
  let summary: ReportTable
  let factors: [String]
  let metrics: [String]

  static let defaultMetrics = ["latency.p50", "latency.p95", "converged", "convergenceTime", "rowsNotVisible"]

  init?(directory: String, metrics: [String]) {
    guard let summary = ReportTable.read(directory, "sweep-summary.csv"),
      let point = summary.columns.firstIndex(of: "point"), let metric = summary.columns.firstIndex(of: "metric"),
      point < metric
    else { return nil }
    self.summary = summary
    factors = Array(summary.columns[(point + 1)..<metric])
    self.metrics = metrics.isEmpty ? Self.defaultMetrics : metrics
  }

  func html() -> Result<String, ReportProblem> {
    let available = Set(summary.rows.map { summary.text($0, "metric") })
    if let unknown = metrics.first(where: { !available.contains($0) }) {
      return .failure(
        ReportProblem(
          message: "no metric \"\(unknown)\" in sweep-summary.csv",
          hint: "metrics are named as in summary.csv, e.g. latency.p95"))
    }
    let name = summary.rows.first.map { summary.text($0, "scenario") } ?? ""
    var body = "<h1>\(XMLText.escaped(name)) sweep</h1>\n<p class=\"meta\">"
    let points = Set(summary.rows.map { summary.text($0, "point") }).count
    body +=
      "\(points) points; factors: \(factors.isEmpty ? "none" : factors.map(XMLText.escaped).joined(separator: ", "))"
    if let row = summary.rows.first {
      body += " · syncsimVersion <code>\(XMLText.escaped(summary.text(row, "syncsimVersion")))</code>"
    }
    body += "</p>\n"
    let panelFactors = factors.isEmpty ? [""] : factors
    for metric in metrics {
      body += "<section><h2>\(XMLText.escaped(metric))</h2>\n"
      for factor in panelFactors { body += panel(metric: metric, factor: factor) }
      body += "</section>\n"
    }
    body += "<p class=\"caption\">Points: the mean over replications; bars: the 95 % interval of sweep-summary.csv "
    body += "(Wilson for converged, Student's t otherwise, never below 0). Series: the other factors' values.</p>\n"
    return .success(ReportPage.document(title: "SyncSim sweep report: \(name)", body: body))
  }

  /// One metric against one factor; a series per combination of the other factors.
  func panel(metric: String, factor: String) -> String {
    let rows = summary.rows.filter { summary.text($0, "metric") == metric }
    var xValues: [String] = []
    var series: [String] = []
    for row in rows {
      let x = factor.isEmpty ? "all" : summary.text(row, factor)
      if !xValues.contains(x) { xValues.append(x) }
      let key = seriesKey(row, excluding: factor)
      if !series.contains(key) { series.append(key) }
    }
    let highs = rows.compactMap { summary.number($0, "ci95High") ?? summary.number($0, "mean") }
    let ticks = SVG.linearTicks(upTo: max(highs.max() ?? 0, 1e-9))
    let (left, right, top, bottom) = (80.0, 900.0, 16.0, 250.0)
    let y = SVG.Scale(low: 0, high: ticks.last ?? 1, from: bottom, to: top)
    let slot = (right - left) / Double(max(xValues.count, 1))
    let legendEntries = series.enumerated().map { ($1.isEmpty ? metric : $1, SVG.color($0)) }
    let height = bottom + 50 + SVG.legendHeight(legendEntries.map(\.0), width: right - left)
    let id = "panel-\(metric)-\(factor.isEmpty ? "all" : factor)".map {
      $0.isLetter || $0.isNumber || $0 == "-" ? $0 : "_"
    }
    var svg = SVG.open(id: String(id), width: 920, height: height, label: "\(metric) against \(factor)")
    svg += SVG.horizontalGrid(ticks, y: y, left: left, right: right)
    for (index, value) in xValues.enumerated() {
      svg += "<text x=\"\(SVG.n(left + slot * (Double(index) + 0.5)))\" y=\"\(SVG.n(bottom + 16))\" class=\"tick\" "
      svg += "text-anchor=\"middle\">\(XMLText.escaped(value))</text>"
    }
    for row in rows {
      guard let mean = summary.number(row, "mean") else { continue }
      let x = factor.isEmpty ? "all" : summary.text(row, factor)
      let position = series.firstIndex(of: seriesKey(row, excluding: factor)) ?? 0
      let offset = series.count > 1 ? (Double(position) / Double(series.count - 1) - 0.5) * slot * 0.5 : 0
      let px = left + slot * (Double(xValues.firstIndex(of: x) ?? 0) + 0.5) + offset
      let color = SVG.color(position)
      if let low = summary.number(row, "ci95Low"), let high = summary.number(row, "ci95High") {
        svg +=
          "<line class=\"interval\" x1=\"\(SVG.n(px))\" y1=\"\(SVG.n(y(low)))\" x2=\"\(SVG.n(px))\" y2=\"\(SVG.n(y(high)))\" stroke=\"\(color)\" stroke-width=\"2\"/>"
        for bound in [low, high] {
          svg +=
            "<line x1=\"\(SVG.n(px - 5))\" y1=\"\(SVG.n(y(bound)))\" x2=\"\(SVG.n(px + 5))\" y2=\"\(SVG.n(y(bound)))\" stroke=\"\(color)\" stroke-width=\"2\"/>"
        }
      }
      svg +=
        "<circle class=\"mean\" data-point=\"\(XMLText.escaped(summary.text(row, "point")))\" data-mean=\"\(XMLText.escaped(summary.text(row, "mean")))\" "
      svg +=
        "cx=\"\(SVG.n(px))\" cy=\"\(SVG.n(y(mean)))\" r=\"4\" fill=\"\(color)\"><title>point \(XMLText.escaped(summary.text(row, "point"))): "
      svg += "mean \(XMLText.escaped(summary.text(row, "mean"))) [\(XMLText.escaped(summary.text(row, "ci95Low"))), "
      svg +=
        "\(XMLText.escaped(summary.text(row, "ci95High")))], n \(XMLText.escaped(summary.text(row, "n")))</title></circle>\n"
    }
    let unit = RunSummary.metric(named: metric)?.isDuration == true ? " (s)" : ""
    svg += SVG.xAxis(factor.isEmpty ? "every point" : factor, left: left, right: right, bottom: bottom)
    svg += SVG.yTitle(metric + unit, top: top, bottom: bottom)
    if series.count > 1 { svg += SVG.legend(legendEntries, x: left, y: bottom + 50, width: right - left) }
    return svg + "</svg>\n"
  }

  func seriesKey(_ row: ReportTable.Row, excluding factor: String) -> String {
    factors.filter { $0 != factor }.map { "\($0)=\(summary.text(row, $0))" }.joined(separator: ", ")
  }
}
