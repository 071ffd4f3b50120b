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
  /// The standalone charts' names begin with it (`ReportPage.files`).
  var chartPrefix: String { options.chartPrefix }
  /// The factors whose values make the series (colours): not the x factor, nor one zipped to it.
  let seriesFactors: [String]
  /// The page's title, the names of factors and metrics and the x axis's scale, as the command
  /// gave them, else as the sweep's `datapackage.json` does.
  let options: ReportOptions
  /// The sweep's own title and factor labels and scales (`datapackage.json`).
  let packaged: SweepLabels

  static let defaultMetrics = ["latency.p50", "latency.p95", "converged", "convergenceTime", "rowsNotVisible"]

  /// A chart: its file name and standalone SVG.
  struct Chart {
    var file: String
    var svg: String
  }

  init?(directory: String, options: ReportOptions) {
    let (metrics, xFactor) = (options.metrics, options.x)
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
    let seriesFactors = factors.filter { $0 != x && !Self.movesWith(x, $0, in: summary) }
    self.seriesFactors = seriesFactors
    var series: [String] = []
    for row in summary.rows {
      let key = Self.seriesKey(summary, row, seriesFactors: seriesFactors)
      if !series.contains(key) { series.append(key) }
    }
    self.series = series
    self.options = options
    packaged = SweepLabels.read(
      dataPackage: FileManager.default.contents(atPath: directory + "/datapackage.json"), paths: factors)
  }

  /// The name a factor or metric goes by on the page: the command's label, the sweep's, or the
  /// column's own name.
  func label(_ column: String) -> String {
    options.label(column) ?? packaged.factor(column)?.label ?? column
  }

  /// The x axis's scale: the command's, the x factor's in the scenario, or `auto`.
  var xScale: ReportOptions.XScale {
    options.xScale ?? packaged.factor(xFactor)?.scale.flatMap(ReportOptions.XScale.init(rawValue:)) ?? .auto
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
    // The summary's metrics in its own (catalog) order, so a hint never depends on hashing.
    var metricNames: [String] = []
    for row in summary.rows where !metricNames.contains(summary.text(row, "metric")) {
      metricNames.append(summary.text(row, "metric"))
    }
    let guess = { (name: String, among: [String]) in
      metricSuggestion(for: name, among: among).map { "did you mean \($0)? " } ?? ""
    }
    if let unknown = metrics.first(where: { !available.contains($0) }) {
      return .failure(
        ReportProblem(
          message: "no metric \"\(unknown)\" in sweep-summary.csv",
          hint: guess(unknown, metricNames) + "metrics are named as in summary.csv, e.g. latency.p95"))
    }
    if !xFactor.isEmpty && !factors.contains(xFactor) {
      return .failure(
        ReportProblem(
          message: "no factor \"\(xFactor)\" in sweep-summary.csv",
          hint: factors.isEmpty
            ? "this sweep has no factors" : guess(xFactor, factors) + "factors: " + factors.joined(separator: ", ")))
    }
    if let unknown = options.labels.first(where: { !factors.contains($0.column) && !available.contains($0.column) }) {
      return .failure(
        ReportProblem(
          message: "--label \(unknown.column)=...: no factor or metric \"\(unknown.column)\" in sweep-summary.csv",
          hint: guess(unknown.column, factors + metricNames) + "factors: "
            + (factors.isEmpty ? "none" : factors.joined(separator: ", "))
            + "; metrics are named as in summary.csv, e.g. latency.p95"))
    }
    let name = summary.rows.first.map { summary.text($0, "scenario") } ?? ""
    let title = options.title ?? packaged.title ?? name + " sweep"
    var body = "<h1>\(XMLText.escaped(title))</h1>\n<p class=\"meta\">scenario \(XMLText.escaped(name)); "
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
      let svg: String
      do { svg = try chart(metric: metric) } catch { return .failure(error) }
      let file = chartPrefix + "-" + String(metric.map { $0.isLetter || $0.isNumber || $0 == "-" ? $0 : "_" }) + ".svg"
      charts.append(Chart(file: file, svg: Self.standalone(svg)))
      let heading = label(metric) == metric ? metric : "\(label(metric)) (\(metric))"
      body += "<section><h2>\(XMLText.escaped(heading))</h2>\n" + svg
      body += "<p class=\"caption\">Also <code>\(XMLText.escaped(file))</code>.</p></section>\n"
    }
    body += "<p class=\"caption\">Lines join the means over replications; bands and bars: the 95 % interval of "
    body += "sweep-summary.csv (Wilson for converged, Student's t otherwise, never below 0). Colours: the other "
    body += "factors' values, the same on every chart. Censored data is drawn as such: a hollow point labelled "
    body += "n/runs is the mean of the runs that had a value only (no line or band joins it: it is not comparable "
    body += "with its neighbours), an × on the axis a point where no run had one (no row became visible), an "
    body += "arrow up a latency that is a lower bound (some rows were never visible). "
    body += "latency.kaplanMeierP50 estimates the median with never-visible rows counted as censored.</p>\n"
    let perPoint = pointSections()
    body += perPoint.body
    charts += perPoint.charts
    return .success((ReportPage.document(title: "SyncSim sweep report: \(title)", body: body), charts))
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
  func chart(metric: String) throws(ReportProblem) -> String {
    let rows = summary.rows.filter { summary.text($0, "metric") == metric }
    let info = RunSummary.metric(column: metric)
    let labels = orderedXLabels(rows)
    let axis = try XAxis(labels: labels, scale: xScale)
    let highs = rows.compactMap { summary.number($0, "ci95High") ?? summary.number($0, "mean") }
    let yAxis = YAxis(high: highs.max() ?? 0, isDuration: info?.isDuration == true)
    let (left, right, top, bottom) = (80.0, 900.0, 16.0, 250.0)
    let y = SVG.Scale(low: 0, high: yAxis.top, from: bottom, to: top)
    let x = axis.scale(left: left, right: right)
    let used = series.filter { key in rows.contains { seriesKey($0) == key } }
    // A series with no value at any point (every run's metric empty: no row visible) keeps its
    // legend entry, named as such, and its × marks: it is censored, not absent.
    let empty = Set(used.filter { key in !rows.contains { seriesKey($0) == key && summary.number($0, "mean") != nil } })
    let legendEntries = used.map { key in
      ((key.isEmpty ? label(metric) : seriesName(key)) + (empty.contains(key) ? " (no value: no visible row)" : ""),
        SVG.color(series.firstIndex(of: key) ?? 0))
    }
    let height = bottom + 50 + (used.count > 1 ? SVG.legendHeight(legendEntries.map(\.0), width: right - left) : 0)
    let id = "chart-\(metric)".map { $0.isLetter || $0.isNumber || $0 == "-" ? $0 : "_" }
    var svg = SVG.open(
      id: String(id), width: 920, height: height,
      label: "\(label(metric)) against \(xFactor.isEmpty ? "points" : label(xFactor))",
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
    // Lines and bands join only points where every run had a value: a mean of the runs that had
    // one (n < runs) is of the fastest runs only, and a line through it draws a false dip.
    // Categories (save policies, true/false) have no order between them: no line or band joins
    // them, and each series' point is set beside the others' in its slot (dodged), not on them.
    let categorical = axis.kind == .categories
    let whole = { (point: (x: Double, row: ReportTable.Row)) in !categorical && !self.isCensored(point.row) }
    let slot = (right - left) / Double(max(labels.count, 1))
    let dodge = categorical && drawn.count > 1 ? min(14, slot * 0.6 / Double(drawn.count)) : 0
    for (color, points) in drawn {
      for stretch in Self.stretches(points, where: whole) { svg += band(stretch, x: x, y: y, color: color) }
    }
    for (position, (color, points)) in drawn.enumerated() {
      let shift = dodge * (Double(position) - Double(drawn.count - 1) / 2)
      for stretch in Self.stretches(points, where: whole) {
        let line = stretch.compactMap { point in summary.number(point.row, "mean").map { (x(point.x), y($0)) } }
        if line.count > 1 {
          svg += "<polyline class=\"series\" fill=\"none\" stroke=\"\(color)\" stroke-width=\"2\" points=\""
          svg += line.map { "\(SVG.n($0.0)),\(SVG.n($0.1))" }.joined(separator: " ") + "\"/>\n"
        }
      }
      for point in points {
        svg += marker(
          point.row, px: x(point.x) + shift, y: y, color: color, lowerBound: isLowerBound(point.row, metric: metric))
      }
    }
    svg += SVG.xAxis(
      xFactor.isEmpty ? "every point" : label(xFactor) + axis.titleSuffix, left: left, right: right, bottom: bottom)
    svg += SVG.yTitle(label(metric) + yAxis.titleSuffix, top: top, bottom: bottom)
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

  /// Whether some of the point's runs had no value of the metric (n < runs): its mean is of the
  /// others only.
  func isCensored(_ row: ReportTable.Row) -> Bool {
    guard let n = summary.number(row, "n"), let runs = summary.number(row, "runs") else { return false }
    return n < runs
  }

  /// Whether a latency metric of the point is a lower bound: in some run a row was never visible
  /// (`latency.isLowerBound` above 0 at that point).
  func isLowerBound(_ row: ReportTable.Row, metric: String) -> Bool {
    guard metric.hasPrefix("latency."), metric != "latency.isLowerBound" else { return false }
    let point = summary.text(row, "point")
    return summary.rows.contains {
      summary.text($0, "point") == point && summary.text($0, "metric") == "latency.isLowerBound"
        && (summary.number($0, "mean") ?? 0) > 0
    }
  }

  /// The maximal runs of consecutive points that satisfy `keep`.
  static func stretches(
    _ points: [(x: Double, row: ReportTable.Row)], where keep: ((x: Double, row: ReportTable.Row)) -> Bool
  ) -> [[(x: Double, row: ReportTable.Row)]] {
    var result: [[(x: Double, row: ReportTable.Row)]] = [[]]
    for point in points {
      if keep(point) { result[result.count - 1].append(point) } else if !result[result.count - 1].isEmpty { result.append([]) }
    }
    return result.filter { !$0.isEmpty }
  }

  /// A point: its mean, its interval as a bar, and a title with the figures. A point some runs
  /// had no value at (n < runs) is hollow and labelled n/runs; a lower bound has an arrow up;
  /// a point no run had a value at is an × on the axis, labelled 0/runs.
  func marker(_ row: ReportTable.Row, px: Double, y: SVG.Scale, color: String, lowerBound: Bool) -> String {
    let point = XMLText.escaped(summary.text(row, "point"))
    let n = XMLText.escaped(summary.text(row, "n"))
    let runs = XMLText.escaped(summary.text(row, "runs"))
    guard let mean = summary.number(row, "mean") else {
      let (cx, cy) = (SVG.n(px), y(0))
      var svg = "<g class=\"no-value\" data-point=\"\(point)\" data-x=\"\(XMLText.escaped(xLabel(row)))\" "
      svg += "data-n=\"\(n)/\(runs)\"><title>point \(point): no value in any of \(runs) runs (no visible row)</title>"
      svg += "<path d=\"M\(SVG.n(px - 5)),\(SVG.n(cy - 5)) l10,10 m0,-10 l-10,10\" stroke=\"\(color)\" stroke-width=\"2\"/>"
      svg += "<text x=\"\(cx)\" y=\"\(SVG.n(cy - 9))\" text-anchor=\"middle\" font-size=\"10\" fill=\"\(color)\">"
      svg += "\(n)/\(runs)</text></g>\n"
      return svg
    }
    let censored = isCensored(row)
    var svg = ""
    if let low = summary.number(row, "ci95Low"), let high = summary.number(row, "ci95High") {
      svg +=
        "<line class=\"interval\" x1=\"\(SVG.n(px))\" y1=\"\(SVG.n(y(low)))\" x2=\"\(SVG.n(px))\" y2=\"\(SVG.n(y(high)))\" stroke=\"\(color)\" stroke-width=\"1.5\"/>"
    }
    let cy = y(mean)
    svg += "<circle class=\"mean\(censored ? " censored" : "")\(lowerBound ? " lower-bound" : "")\" data-point=\"\(point)\" "
    svg += "data-x=\"\(XMLText.escaped(xLabel(row)))\" data-n=\"\(n)/\(runs)\" "
    svg += "data-mean=\"\(XMLText.escaped(summary.text(row, "mean")))\" cx=\"\(SVG.n(px))\" cy=\"\(SVG.n(cy))\" "
    svg += censored ? "r=\"4\" fill=\"none\" stroke=\"\(color)\" stroke-width=\"2\">" : "r=\"3.5\" fill=\"\(color)\">"
    svg += "<title>point \(point): mean \(XMLText.escaped(summary.text(row, "mean"))) "
    svg += "[\(XMLText.escaped(summary.text(row, "ci95Low"))), \(XMLText.escaped(summary.text(row, "ci95High")))], "
    svg += "n \(n) of \(runs) runs"
    if censored { svg += "; the other runs had no value: the mean is of these only" }
    if lowerBound { svg += "; a lower bound: some rows were never visible" }
    svg += "</title></circle>\n"
    if censored {
      svg += "<text class=\"censored-label\" x=\"\(SVG.n(px + 6))\" y=\"\(SVG.n(cy - 6))\" font-size=\"10\" "
      svg += "fill=\"\(color)\">\(n)/\(runs)</text>\n"
    }
    if lowerBound {
      svg += "<path class=\"lower-bound-arrow\" d=\"M\(SVG.n(px)),\(SVG.n(cy - 6)) l0,-12 m-4,5 l4,-5 l4,5\" "
      svg += "fill=\"none\" stroke=\"\(color)\" stroke-width=\"1.5\"/>\n"
    }
    return svg
  }

  func xLabel(_ row: ReportTable.Row) -> String { xFactor.isEmpty ? "all" : summary.text(row, xFactor) }

  /// The x values in first-seen order.
  func orderedXLabels(_ rows: [ReportTable.Row]) -> [String] {
    var labels: [String] = []
    for row in rows where !labels.contains(xLabel(row)) { labels.append(xLabel(row)) }
    return labels
  }

  /// A series' legend entry: its key with each factor under its label.
  func seriesName(_ key: String) -> String {
    guard let row = summary.rows.first(where: { seriesKey($0) == key }) else { return key }
    return seriesFactors.map { "\(label($0))=\(summary.text(row, $0))" }.joined(separator: ", ")
  }

  func seriesKey(_ row: ReportTable.Row) -> String {
    Self.seriesKey(summary, row, seriesFactors: seriesFactors)
  }

  /// The row's series: the values of the factors other than the x factor and those that move
  /// with it (a zipped factor, one value per x value), which would only repeat the x axis as a
  /// colour per point.
  static func seriesKey(_ summary: ReportTable, _ row: ReportTable.Row, seriesFactors: [String]) -> String {
    seriesFactors.map { "\($0)=\(summary.text(row, $0))" }.joined(separator: ", ")
  }

  /// Whether every value of factor `x` comes with one value of `other` and the other way round
  /// (zipped), over more than one value.
  static func movesWith(_ x: String, _ other: String, in summary: ReportTable) -> Bool {
    guard !x.isEmpty else { return false }
    var forward: [String: String] = [:]  // lookup only
    var backward: [String: String] = [:]  // lookup only
    for row in summary.rows {
      let (a, b) = (summary.text(row, x), summary.text(row, other))
      if forward[a, default: b] != b || backward[b, default: a] != a { return false }
      forward[a] = b
      backward[b] = a
    }
    return forward.count > 1
  }
}
