import Foundation
import SimMetrics

/// The report of a sweep folder, fit for a paper: one chart per metric against one factor (the
/// others as hue), a line through the means with its 95 % band (from `sweep-summary.csv`),
/// numeric factors on numeric axes (log where they span decades), durations in s/min/h, one
/// colour per series on every chart, and each chart also as a standalone `.svg`.
struct SweepPage {
  let summary: ReportTable
  let factors: [String]
  let metrics: [String]
  /// The factor on the x axis.
  let xFactor: String
  /// Every series (a combination of the other factors' values), in first-seen order: its
  /// position is its colour on every chart.
  let series: [String]

  static let defaultMetrics = ["latency.p50", "latency.p95", "converged", "convergenceTime", "rowsNotVisible"]

  /// A chart: its file name and standalone SVG.
  struct Chart {
    var file: String
    var svg: String
  }

  init?(directory: String, metrics: [String], xFactor: String? = nil) {
    guard let summary = ReportTable.read(directory, "sweep-summary.csv"),
      let point = summary.columns.firstIndex(of: "point"), let metric = summary.columns.firstIndex(of: "metric"),
      point < metric
    else { return nil }
    self.summary = summary
    let factors = Array(summary.columns[(point + 1)..<metric])
    self.factors = factors
    self.metrics = metrics.isEmpty ? Self.defaultMetrics : metrics
    let x = xFactor ?? Self.defaultXFactor(summary, factors)
    self.xFactor = x
    var series: [String] = []
    for row in summary.rows {
      let key = Self.seriesKey(summary, row, factors: factors, excluding: x)
      if !series.contains(key) { series.append(key) }
    }
    self.series = series
  }

  /// The first factor whose values are all numbers (or durations) and that takes more than one;
  /// else the first factor; "" without factors.
  static func defaultXFactor(_ summary: ReportTable, _ factors: [String]) -> String {
    for factor in factors {
      let values = Set(summary.rows.map { summary.text($0, factor) })
      if values.count > 1 && values.allSatisfy({ AxisValue.parse($0) != nil }) { return factor }
    }
    return factors.first ?? ""
  }

  func html() -> Result<(page: String, charts: [Chart]), ReportProblem> {
    let available = Set(summary.rows.map { summary.text($0, "metric") })
    if let unknown = metrics.first(where: { !available.contains($0) }) {
      return .failure(
        ReportProblem(
          message: "no metric \"\(unknown)\" in sweep-summary.csv",
          hint: "metrics are named as in summary.csv, e.g. latency.p95"))
    }
    if !xFactor.isEmpty && !factors.contains(xFactor) {
      return .failure(
        ReportProblem(
          message: "no factor \"\(xFactor)\" in sweep-summary.csv",
          hint: factors.isEmpty ? "this sweep has no factors" : "factors: " + factors.joined(separator: ", ")))
    }
    let name = summary.rows.first.map { summary.text($0, "scenario") } ?? ""
    var body = "<h1>\(XMLText.escaped(name)) sweep</h1>\n<p class=\"meta\">"
    let points = Set(summary.rows.map { summary.text($0, "point") }).count
    body +=
      "\(points) points; factors: \(factors.isEmpty ? "none" : factors.map(XMLText.escaped).joined(separator: ", "))"
    if !xFactor.isEmpty { body += "; x axis: \(XMLText.escaped(xFactor))" }
    if let row = summary.rows.first {
      body += " · syncsimVersion <code>\(XMLText.escaped(summary.text(row, "syncsimVersion")))</code>"
    }
    body += "</p>\n"
    var charts: [Chart] = []
    for metric in metrics {
      let svg = chart(metric: metric)
      let file = "report-" + String(metric.map { $0.isLetter || $0.isNumber || $0 == "-" ? $0 : "_" }) + ".svg"
      charts.append(Chart(file: file, svg: Self.standalone(svg)))
      body += "<section><h2>\(XMLText.escaped(metric))</h2>\n" + svg
      body += "<p class=\"caption\">Also <code>\(XMLText.escaped(file))</code>.</p></section>\n"
    }
    body += "<p class=\"caption\">Lines join the means over replications; bands and bars: the 95 % interval of "
    body += "sweep-summary.csv (Wilson for converged, Student's t otherwise, never below 0). Colours: the other "
    body += "factors' values, the same on every chart.</p>\n"
    return .success((ReportPage.document(title: "SyncSim sweep report: \(name)", body: body), charts))
  }

  /// A chart's SVG as a file of its own: the XML namespace and the page's styles, light and dark.
  static func standalone(_ svg: String) -> String {
    let opened = svg.replacingOccurrences(
      of: "<svg id=", with: "<svg xmlns=\"http://www.w3.org/2000/svg\" id=", options: [], range: nil)
    guard let end = opened.firstIndex(of: "\n") else { return opened }
    return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + opened[...end] + "<style>\n" + ReportPage.chartStyle
      + "\n</style>\n" + opened[opened.index(after: end)...]
  }

  /// One metric against the x factor; a line and band per series.
  func chart(metric: String) -> String {
    let rows = summary.rows.filter { summary.text($0, "metric") == metric }
    let info = RunSummary.metric(column: metric)
    let labels = orderedXLabels(rows)
    let axis = XAxis(labels: labels)
    let highs = rows.compactMap { summary.number($0, "ci95High") ?? summary.number($0, "mean") }
    let yAxis = YAxis(high: highs.max() ?? 0, isDuration: info?.isDuration == true)
    let (left, right, top, bottom) = (80.0, 900.0, 16.0, 250.0)
    let y = SVG.Scale(low: 0, high: yAxis.top, from: bottom, to: top)
    let x = axis.scale(left: left, right: right)
    let used = series.filter { key in rows.contains { seriesKey($0) == key } }
    let legendEntries = used.map { ($0.isEmpty ? metric : $0, SVG.color(series.firstIndex(of: $0) ?? 0)) }
    let height = bottom + 50 + (used.count > 1 ? SVG.legendHeight(legendEntries.map(\.0), width: right - left) : 0)
    let id = "chart-\(metric)".map { $0.isLetter || $0.isNumber || $0 == "-" ? $0 : "_" }
    var svg = SVG.open(
      id: String(id), width: 920, height: height, label: "\(metric) against \(xFactor.isEmpty ? "points" : xFactor)",
      extra: " data-x-axis=\"\(axis.kind)\" data-y-unit=\"\(yAxis.unitName)\"")
    svg += SVG.horizontalGrid(yAxis.ticks, y: y, left: left, right: right, label: yAxis.label)
    svg += SVG.verticalGrid(axis.ticks, x: x, top: top, bottom: bottom)
    let drawn = used.map { key in
      (
        color: SVG.color(series.firstIndex(of: key) ?? 0),
        points: rows.filter { seriesKey($0) == key }.compactMap { row -> (x: Double, row: ReportTable.Row)? in
          axis.position(of: xLabel(row)).map { ($0, row) }
        }.sorted { $0.x < $1.x }
      )
    }
    // Every band under every line, so no band tints another series' line.
    for (color, points) in drawn { svg += band(points, x: x, y: y, color: color) }
    for (color, points) in drawn {
      let line = points.compactMap { point in summary.number(point.row, "mean").map { (x(point.x), y($0)) } }
      if line.count > 1 {
        svg += "<polyline class=\"series\" fill=\"none\" stroke=\"\(color)\" stroke-width=\"2\" points=\""
        svg += line.map { "\(SVG.n($0.0)),\(SVG.n($0.1))" }.joined(separator: " ") + "\"/>\n"
      }
      for point in points { svg += marker(point.row, px: x(point.x), y: y, color: color) }
    }
    svg += SVG.xAxis(
      xFactor.isEmpty ? "every point" : xFactor + axis.titleSuffix, left: left, right: right, bottom: bottom)
    svg += SVG.yTitle(metric + yAxis.titleSuffix, top: top, bottom: bottom)
    if used.count > 1 { svg += SVG.legend(legendEntries, x: left, y: bottom + 50, width: right - left) }
    return svg + "</svg>\n"
  }

  /// The 95 % band of a series: a polygon from the low bounds forward and the high bounds back.
  func band(_ points: [(x: Double, row: ReportTable.Row)], x: SVG.Scale, y: SVG.Scale, color: String) -> String {
    let bounds = points.compactMap { point -> (Double, Double, Double)? in
      guard let low = summary.number(point.row, "ci95Low"), let high = summary.number(point.row, "ci95High") else {
        return nil
      }
      return (x(point.x), y(low), y(high))
    }
    guard bounds.count > 1 else { return "" }
    let outline =
      bounds.map { "\(SVG.n($0.0)),\(SVG.n($0.1))" } + bounds.reversed().map { "\(SVG.n($0.0)),\(SVG.n($0.2))" }
    return "<polygon class=\"band\" fill=\"\(color)\" fill-opacity=\"0.18\" stroke=\"none\" points=\""
      + outline.joined(separator: " ") + "\"/>\n"
  }

  /// A point: its mean, its interval as a bar, and a title with the figures.
  func marker(_ row: ReportTable.Row, px: Double, y: SVG.Scale, color: String) -> String {
    guard let mean = summary.number(row, "mean") else { return "" }
    var svg = ""
    if let low = summary.number(row, "ci95Low"), let high = summary.number(row, "ci95High") {
      svg +=
        "<line class=\"interval\" x1=\"\(SVG.n(px))\" y1=\"\(SVG.n(y(low)))\" x2=\"\(SVG.n(px))\" y2=\"\(SVG.n(y(high)))\" stroke=\"\(color)\" stroke-width=\"1.5\"/>"
    }
    let point = XMLText.escaped(summary.text(row, "point"))
    svg += "<circle class=\"mean\" data-point=\"\(point)\" data-x=\"\(XMLText.escaped(xLabel(row)))\" "
    svg += "data-mean=\"\(XMLText.escaped(summary.text(row, "mean")))\" cx=\"\(SVG.n(px))\" cy=\"\(SVG.n(y(mean)))\" "
    svg += "r=\"3.5\" fill=\"\(color)\"><title>point \(point): mean \(XMLText.escaped(summary.text(row, "mean"))) "
    svg += "[\(XMLText.escaped(summary.text(row, "ci95Low"))), \(XMLText.escaped(summary.text(row, "ci95High")))], "
    svg += "n \(XMLText.escaped(summary.text(row, "n")))</title></circle>\n"
    return svg
  }

  func xLabel(_ row: ReportTable.Row) -> String { xFactor.isEmpty ? "all" : summary.text(row, xFactor) }

  /// The x values in first-seen order.
  func orderedXLabels(_ rows: [ReportTable.Row]) -> [String] {
    var labels: [String] = []
    for row in rows where !labels.contains(xLabel(row)) { labels.append(xLabel(row)) }
    return labels
  }

  func seriesKey(_ row: ReportTable.Row) -> String {
    Self.seriesKey(summary, row, factors: factors, excluding: xFactor)
  }

  static func seriesKey(
    _ summary: ReportTable, _ row: ReportTable.Row, factors: [String], excluding factor: String
  )
    -> String
  {
    factors.filter { $0 != factor }.map { "\($0)=\(summary.text(row, $0))" }.joined(separator: ", ")
  }
}
