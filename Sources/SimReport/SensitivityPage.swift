import Foundation

/// `sensitivity.html`: for each metric a tornado chart (each parameter's bar runs from the metric
/// with it alone at the low end of its range to the metric at the high end, around a line at the
/// scenario as written; the parameters by μ*, largest on top) and the table of figures. One
/// self-contained file, the same bytes for the same figures.
public struct SensitivityPage: Sendable {
  /// One parameter's bar.
  public struct Bar: Sendable {
    public var parameter: String
    public var source: String
    public var range: String
    public var muStar: Double?
    public var sigma: Double?
    public var atLow: Double?
    public var atHigh: Double?

    public init(
      parameter: String, source: String, range: String, muStar: Double?, sigma: Double?, atLow: Double?,
      atHigh: Double?
    ) {
      (self.parameter, self.source, self.range, self.muStar) = (parameter, source, range, muStar)
      (self.sigma, self.atLow, self.atHigh) = (sigma, atLow, atHigh)
    }
  }

  /// One metric's chart.
  public struct Chart: Sendable {
    public var metric: String
    public var unit: String
    public var base: Double?
    public var lowest: Double?
    public var highest: Double?
    /// By rank.
    public var bars: [Bar]

    public init(metric: String, unit: String, base: Double?, lowest: Double?, highest: Double?, bars: [Bar]) {
      (self.metric, self.unit, self.base, self.lowest, self.highest, self.bars) =
        (metric, unit, base, lowest, highest, bars)
    }
  }

  public var title: String
  /// What ran: "Morris, 10 trajectories × 3 seeds, 24 parameters: 790 worlds".
  public var design: String
  public var charts: [Chart]
  /// How many bars a chart draws (the rest are in the table).
  public var barsShown = 15

  public init(title: String, design: String, charts: [Chart]) {
    (self.title, self.design, self.charts) = (title, design, charts)
  }

  /// The page.
  public func html() -> String {
    var body = "<h1>\(XMLText.escaped(title))</h1>\n<p class=\"meta\">\(XMLText.escaped(design))</p>\n"
    body += "<p class=\"caption\">Each bar runs from the metric with the parameter alone at the low end of its "
    body += "plausible range (light) to the metric at the high end (dark); the line is the scenario as written. "
    body += "Parameters are ordered by μ*, the mean absolute change of the metric across the whole range, measured "
    body += "among the other parameters' variation (written beside each bar): a parameter with a large μ* and a "
    body += "short bar matters only together with others, and its σ in the table is large.</p>\n"
    for (index, chart) in charts.enumerated() {
      body += "<h2>\(XMLText.escaped(chart.metric))</h2>\n"
      body += tornado(chart, id: "tornado-\(index)")
      body += table(chart)
    }
    return ReportPage.document(title: title, body: body)
  }

  /// A figure in the metric's unit, as the page and the console write it: "4.448 s", "12".
  public static func figureText(_ value: Double?, unit: String) -> String { figure(value, unit: unit) }

  /// A figure in the metric's unit.
  static func figure(_ value: Double?, unit: String) -> String {
    guard let value else { return "–" }
    if unit == "s" && value < 0 { return "-" + SVG.duration(-value) }  // a difference of two runs
    return unit == "s" ? SVG.duration(value) : SVG.number(value)
  }

  func tornado(_ chart: Chart, id: String) -> String {
    let bars = Array(chart.bars.prefix(barsShown))
    let values = bars.flatMap { [$0.atLow, $0.atHigh] }.compactMap { $0 } + [chart.base].compactMap { $0 }
    guard let low = values.min(), let high = values.max(), !bars.isEmpty else {
      return "<p class=\"note\">No parameter changed this metric, or it is undefined in every run.</p>\n"
    }
    let (left, right, rowHeight, top) = (260.0, 770.0, 22.0, 10.0)
    let bottom = top + rowHeight * Double(bars.count)
    let padding = high > low ? (high - low) * 0.05 : max(abs(high) * 0.05, 1)
    let x = SVG.Scale(low: low - padding, high: high + padding, from: left, to: right)
    var out = SVG.open(
      id: id, width: 900, height: bottom + 50, label: "tornado chart of \(chart.metric) over the parameters' ranges")
    let step = SVG.niceStep((high - low + 2 * padding) / 6)
    var ticks: [(value: Double, label: String)] = []
    var tick = (((low - padding) / step).rounded(.up)) * step
    while tick <= high + padding {
      ticks.append((tick, chart.unit == "s" ? SVG.shortDuration(tick) : SVG.number(tick)))
      tick += step
    }
    out += SVG.verticalGrid(ticks, x: x, top: top, bottom: bottom)
    for (row, bar) in bars.enumerated() {
      let y = top + rowHeight * Double(row)
      out += "<text x=\"\(SVG.n(left - 8))\" y=\"\(SVG.n(y + 15))\" class=\"small\" text-anchor=\"end\">"
      out += "\(XMLText.escaped(bar.parameter))</text>"
      let base = chart.base ?? low
      for (value, color) in [(bar.atLow, "#a0cbe8"), (bar.atHigh, "#4e79a7")] {
        guard let value else { continue }
        let (from, to) = (min(x(base), x(value)), max(x(base), x(value)))
        out += "<rect x=\"\(SVG.n(from))\" y=\"\(SVG.n(y + 3))\" width=\"\(SVG.n(max(1, to - from)))\" "
        out += "height=\"\(SVG.n(rowHeight - 6))\" fill=\"\(color)\" fill-opacity=\"0.85\"/>"
      }
      // μ* beside the bar: a parameter that matters only with others has a short bar and a large μ*.
      out += "<text x=\"\(SVG.n(right + 12))\" y=\"\(SVG.n(y + 15))\" class=\"small\">μ* "
      out += "\(Self.figure(bar.muStar, unit: chart.unit))</text>"
      out += "\n"
    }
    if let base = chart.base {
      out += "<line x1=\"\(SVG.n(x(base)))\" y1=\"\(SVG.n(top))\" x2=\"\(SVG.n(x(base)))\" y2=\"\(SVG.n(bottom))\" "
      out += "class=\"axis\"/>\n"
    }
    let unit = chart.unit.isEmpty || chart.unit == "s" ? "" : " (\(chart.unit))"
    out += SVG.xAxis(chart.metric + unit, left: left, right: right, bottom: bottom)
    return out + "</svg>\n"
  }

  func table(_ chart: Chart) -> String {
    var out = "<p class=\"meta\">As written: \(Self.figure(chart.base, unit: chart.unit)); over the screening: "
    out += "\(Self.figure(chart.lowest, unit: chart.unit)) to \(Self.figure(chart.highest, unit: chart.unit)).</p>\n"
    out += "<table class=\"metrics\"><tr><th>rank</th><th>parameter</th><th>source</th><th>range</th><th>μ*</th>"
    out += "<th>σ</th><th>at low</th><th>at high</th></tr>\n"
    for (rank, bar) in chart.bars.enumerated() {
      let cells = [
        String(rank + 1), "<code>\(XMLText.escaped(bar.parameter))</code>", XMLText.escaped(bar.source),
        XMLText.escaped(bar.range), Self.figure(bar.muStar, unit: chart.unit), Self.figure(bar.sigma, unit: chart.unit),
        Self.figure(bar.atLow, unit: chart.unit), Self.figure(bar.atHigh, unit: chart.unit),
      ]
      out += "<tr>" + cells.map { "<td>\($0)</td>" }.joined() + "</tr>\n"
    }
    return out + "</table>\n"
  }
}
