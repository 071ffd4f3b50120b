import Foundation

/// Building blocks for the report's inline SVG: escaping, fixed number formatting, scales and
/// axes. Everything is text built in a fixed order, so the same data gives the same bytes.
enum SVG {
  /// A coordinate or size with two decimals (enough for a screen, and stable).
  static func n(_ value: Double) -> String {
    guard value.isFinite else { return "0" }
    let text = String(format: "%.2f", value)
    return text == "-0.00" ? "0.00" : text
  }

  /// A duration in seconds as people read it: `850 ms`, `4.448 s`, `12.50 min`, `3.20 h`, `2.10 d`.
  /// The report's p50/p95/p99 labels use it; `Scripts/report-check.sh` formats the same way.
  static func duration(_ seconds: Double) -> String {
    if seconds < 1 { return String(format: "%.0f ms", seconds * 1000) }
    if seconds < 120 { return String(format: "%.3f s", seconds) }
    if seconds < 7200 { return String(format: "%.2f min", seconds / 60) }
    if seconds < 172_800 { return String(format: "%.2f h", seconds / 3600) }
    return String(format: "%.2f d", seconds / 86400)
  }

  /// A duration for a tick, in the unit `duration` uses for it (`100 s`, `5 min`, `1.5 h`, `7 d`).
  static func shortDuration(_ seconds: Double) -> String {
    if seconds == 0 { return "0" }
    if abs(seconds) < 1 { return number(seconds * 1000) + " ms" }
    if abs(seconds) < 120 { return number(seconds) + " s" }
    if abs(seconds) < 7200 { return number(seconds / 60) + " min" }
    if abs(seconds) < 172_800 { return number(seconds / 3600) + " h" }
    return number(seconds / 86400) + " d"
  }

  /// A round step near `rough`: 1, 2 or 5 × 10ᵏ.
  static func niceStep(_ rough: Double) -> Double {
    guard rough > 0, rough.isFinite else { return 1 }
    let magnitude = pow(10, floor(log10(rough)))
    return [1.0, 2, 5, 10].map { $0 * magnitude }.first { $0 >= rough } ?? rough
  }

  /// A plain number for labels: integers without decimals, others with up to four significant digits.
  static func number(_ value: Double) -> String {
    if value == value.rounded() && abs(value) < 1e15 { return String(Int64(value)) }
    return String(format: "%.4g", value)
  }

  /// Maps a domain onto pixels, linearly or on a log₁₀ scale.
  struct Scale {
    var low: Double
    var high: Double
    var from: Double
    var to: Double
    var logarithmic = false

    func callAsFunction(_ value: Double) -> Double {
      let (a, b, v) = logarithmic ? (log10(low), log10(high), log10(max(value, low))) : (low, high, value)
      guard b > a else { return from }
      return from + (v - a) / (b - a) * (to - from)
    }
  }

  /// Round ticks for a linear axis from 0 to at least `high`: about five, at 1, 2 or 5 × 10ᵏ; the
  /// last is the first at or above `high`, so nothing drawn passes the axis.
  static func linearTicks(upTo high: Double) -> [Double] {
    guard high > 0, high.isFinite else { return [0, 1] }
    let rough = high / 5
    let magnitude = pow(10, floor(log10(rough)))
    let step = [1.0, 2, 5, 10].map { $0 * magnitude }.first { $0 >= rough } ?? rough
    var ticks: [Double] = [0]
    var multiple = 1.0
    while ticks.last! < high * 0.9999 {
      ticks.append(multiple * step)
      multiple += 1
    }
    return ticks
  }

  /// Ticks for a log time axis in seconds, with labels people read.
  static let timeTicks: [(seconds: Double, label: String)] = [
    (0.001, "1 ms"), (0.01, "10 ms"), (0.1, "100 ms"), (1, "1 s"), (10, "10 s"), (60, "1 min"), (600, "10 min"),
    (3600, "1 h"), (21600, "6 h"), (86400, "1 d"), (604_800, "7 d"), (2_592_000, "30 d"),
  ]

  /// The opening tag of a chart `width` wide and `height` high; `extra` are more attributes.
  static func open(id: String, width: Double, height: Double, label: String, extra: String = "") -> String {
    "<svg id=\"\(id)\"\(extra) width=\"\(n(width))\" height=\"\(n(height))\" viewBox=\"0 0 \(n(width)) \(n(height))\" "
      + "role=\"img\" aria-label=\"\(XMLText.escaped(label))\">\n"
  }

  /// Horizontal grid lines at `ticks`, each labelled left of `left`.
  static func horizontalGrid(
    _ ticks: [Double], y: Scale, left: Double, right: Double, label: (Double) -> String = number
  ) -> String {
    var out = ""
    for tick in ticks {
      let py = y(tick)
      out += "<line x1=\"\(n(left))\" y1=\"\(n(py))\" x2=\"\(n(right))\" y2=\"\(n(py))\" class=\"grid\"/>"
      out += "<text x=\"\(n(left - 6))\" y=\"\(n(py + 4))\" class=\"tick\" text-anchor=\"end\">\(label(tick))</text>\n"
    }
    return out
  }

  /// Vertical grid lines at `ticks`, each labelled below `bottom`.
  static func verticalGrid(_ ticks: [(value: Double, label: String)], x: Scale, top: Double, bottom: Double) -> String {
    var out = ""
    for tick in ticks {
      let px = x(tick.value)
      out += "<line x1=\"\(n(px))\" y1=\"\(n(top))\" x2=\"\(n(px))\" y2=\"\(n(bottom))\" class=\"grid\"/>"
      out += "<text x=\"\(n(px))\" y=\"\(n(bottom + 16))\" class=\"tick\" text-anchor=\"middle\">\(tick.label)</text>\n"
    }
    return out
  }

  /// The x axis along `bottom` from `left` to `right`, with its title below the tick labels.
  static func xAxis(_ title: String, left: Double, right: Double, bottom: Double) -> String {
    "<line x1=\"\(n(left))\" y1=\"\(n(bottom))\" x2=\"\(n(right))\" y2=\"\(n(bottom))\" class=\"axis\"/>"
      + "<text x=\"\(n((left + right) / 2))\" y=\"\(n(bottom + 34))\" class=\"label\" text-anchor=\"middle\">"
      + "\(XMLText.escaped(title))</text>\n"
  }

  /// A y axis title, turned to read upwards, at the chart's left edge.
  static func yTitle(_ title: String, top: Double, bottom: Double) -> String {
    let middle = (top + bottom) / 2
    return "<text x=\"14\" y=\"\(n(middle))\" class=\"label\" text-anchor=\"middle\" "
      + "transform=\"rotate(-90 14 \(n(middle)))\">\(XMLText.escaped(title))</text>\n"
  }

  /// A fixed palette, picked by position (never by hashing).
  static let palette = [
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac",
    "#1b9e77", "#7570b3",
  ]

  static func color(_ index: Int) -> String { palette[index % palette.count] }

  /// A legend: one swatch and label per entry, laid out in a row that wraps.
  static func legend(_ entries: [(label: String, color: String)], x: Double, y: Double, width: Double) -> String {
    var out = ""
    var cx = x, cy = y
    for entry in entries {
      let itemWidth = Double(entry.label.count) * 7 + 26
      if cx + itemWidth > x + width && cx > x {
        cx = x
        cy += 18
      }
      out += "<rect x=\"\(n(cx))\" y=\"\(n(cy - 10))\" width=\"12\" height=\"12\" fill=\"\(entry.color)\"/>"
      out += "<text x=\"\(n(cx + 16))\" y=\"\(n(cy))\" class=\"small\">\(XMLText.escaped(entry.label))</text>\n"
      cx += itemWidth
    }
    return out
  }

  /// The height a legend of `entries` takes in `width`.
  static func legendHeight(_ entries: [String], width: Double) -> Double {
    var cx = 0.0, rows = 1.0
    for label in entries {
      let itemWidth = Double(label.count) * 7 + 26
      if cx + itemWidth > width && cx > 0 {
        cx = 0
        rows += 1
      }
      cx += itemWidth
    }
    return rows * 18
  }
}
