import Foundation

/// A factor's value as an axis reads it: a number, or a duration in seconds (`"30m"`, `"500ms"`).
struct AxisValue {
  var value: Double
  var isDuration: Bool

  /// Seconds per unit of the duration suffixes a scenario may write.
  static let units: [(suffix: String, seconds: Double)] = [
    ("ms", 0.001), ("min", 60), ("s", 1), ("m", 60), ("h", 3600), ("d", 86400), ("w", 604_800),
  ]

  static func parse(_ label: String) -> AxisValue? {
    let text = label.trimmingCharacters(in: .whitespaces)
    if let number = Double(text), number.isFinite { return AxisValue(value: number, isDuration: false) }
    for unit in units where text.hasSuffix(unit.suffix) {
      let digits = text.dropLast(unit.suffix.count).trimmingCharacters(in: .whitespaces)
      if let number = Double(digits), number.isFinite, !digits.isEmpty {
        return AxisValue(value: number * unit.seconds, isDuration: true)
      }
    }
    return nil
  }
}

/// The x axis of a sweep chart: numeric (linear, or log₁₀ where the values span two decades or
/// more) when every value is a number or a duration, else one evenly spaced slot per category.
struct XAxis {
  enum Kind: String {
    case linear, log, categories
  }

  let kind: Kind
  let labels: [String]
  let values: [Double]
  let isDuration: Bool
  let low: Double
  let high: Double
  let ticks: [(value: Double, label: String)]

  /// The axis for the x values `labels`, on `scale` (`.auto`: log where positive values span two
  /// decades or more). Fails when a chosen scale cannot hold the values: linear or log for
  /// categories, log for a value at or below 0.
  init(labels: [String], scale: ReportOptions.XScale = .auto) throws(ReportProblem) {
    self.labels = labels
    let parsed = labels.compactMap(AxisValue.parse)
    let numeric = parsed.count == labels.count && Set(parsed.map(\.value)).count > 1
    guard numeric else {
      if scale != .auto {
        throw ReportProblem(
          message: "a \(scale.rawValue) x axis needs numbers or durations, and the values are "
            + labels.prefix(4).joined(separator: ", ") + (labels.count > 4 ? ", ..." : ""),
          hint: "leave --x-scale out for categories")
      }
      kind = .categories
      values = labels.indices.map(Double.init)
      isDuration = false
      (low, high) = (-0.5, Double(labels.count) - 0.5)
      ticks = labels.enumerated().map { (Double($0.offset), XMLText.escaped($0.element)) }
      return
    }
    values = parsed.map(\.value)
    let duration = parsed.contains { $0.isDuration }
    isDuration = duration
    let (minimum, maximum) = (values.min()!, values.max()!)
    let label: (Double) -> String = { duration ? SVG.shortDuration($0) : SVG.number($0) }
    if scale == .log && minimum <= 0 {
      throw ReportProblem(
        message: "a log x axis needs values above 0, and one is \(labels[values.firstIndex(of: minimum)!])",
        hint: "use --x-scale linear, or leave it out")
    }
    if scale == .log || (scale == .auto && minimum > 0 && maximum / minimum >= 100) {
      kind = .log
      (low, high, ticks) = Self.logTicks(values, label: label)
    } else if duration {
      // Durations on a linear axis: one unit for every tick (by the largest value), and ticks at
      // the swept values when there are few, else at round steps of that unit (issue 73: 5,000 s
      // and 10,000 s read "83.33 min", "2.778 h").
      kind = .linear
      let unit = Self.durationUnit(maximum)
      let span = maximum - minimum
      (low, high) = (minimum - span * 0.05, maximum + span * 0.05)
      let distinct = Array(Set(values)).sorted()
      if distinct.count <= 8 {
        ticks = distinct.map { ($0, Self.label($0, unit)) }
      } else {
        let step = SVG.niceStep(span / unit.seconds / 5) * unit.seconds
        var marks: [(Double, String)] = []
        var tick = (low / step).rounded(.up) * step
        while tick <= high + step * 1e-9 {
          marks.append((tick, Self.label(abs(tick) < step * 1e-9 ? 0 : tick, unit)))
          tick += step
        }
        ticks = marks
      }
    } else {
      kind = .linear
      let span = maximum - minimum
      let padded = (minimum - span * 0.05, maximum + span * 0.05)
      let step = SVG.niceStep(span / 5)
      var values: [(Double, String)] = []
      var tick = (padded.0 / step).rounded(.up) * step
      while tick <= padded.1 + step * 1e-9 {
        values.append((tick, label(abs(tick) < step * 1e-9 ? 0 : tick)))
        tick += step
      }
      (low, high) = padded
      ticks = values
    }
  }

  /// The unit a duration axis labels every tick in: s, min, h or d by its largest value.
  static func durationUnit(_ maximum: Double) -> (seconds: Double, name: String) {
    maximum < 120 ? (1, "s") : maximum < 7200 ? (60, "min") : maximum < 172_800 ? (3600, "h") : (86400, "d")
  }

  static func label(_ seconds: Double, _ unit: (seconds: Double, name: String)) -> String {
    seconds == 0 ? "0" : SVG.number((seconds / unit.seconds * 1000).rounded() / 1000) + " " + unit.name
  }

  /// A log axis's ends and ticks: whole decades where the values span two or more, else each
  /// distinct value (1, 2, 4, ... 64 reads best at its own values), padded by 5 % of the span.
  static func logTicks(
    _ values: [Double], label: (Double) -> String
  ) -> (low: Double, high: Double, ticks: [(value: Double, label: String)]) {
    let (minimum, maximum) = (values.min()!, values.max()!)
    if maximum / minimum >= 100 {
      let first = floor(log10(minimum)), last = ceil(log10(maximum))
      var decades: [(Double, String)] = []
      var exponent = first
      while exponent <= last {
        decades.append((pow(10, exponent), label(pow(10, exponent))))
        exponent += 1
      }
      return (pow(10, first), pow(10, last), decades)
    }
    let pad = pow(maximum / minimum, 0.05)
    let distinct = Array(Set(values)).sorted()
    // Too many values to label each: every second, fourth, ... one, always keeping both ends.
    let stride = max(1, (distinct.count + 11) / 12)
    let ticks = distinct.enumerated().filter { $0.offset % stride == 0 || $0.offset == distinct.count - 1 }
      .map { ($0.element, label($0.element)) }
    return (minimum / pad, maximum * pad, ticks)
  }

  /// Where a label sits on the axis's own scale.
  func position(of label: String) -> Double? {
    labels.firstIndex(of: label).map { values[$0] }
  }

  func scale(left: Double, right: Double) -> SVG.Scale {
    SVG.Scale(low: low, high: high, from: left, to: right, logarithmic: kind == .log)
  }

  var titleSuffix: String { kind == .log ? " (log scale)" : "" }
}

/// The y axis of a sweep chart from 0: a duration in s, min, h or d by its largest value, with
/// the unit on every tick; a plain number otherwise.
struct YAxis {
  let ticks: [Double]
  let unitSeconds: Double
  let unitName: String

  init(high: Double, isDuration: Bool) {
    let high = high.isFinite ? max(high, 0) : 0
    let unit: (Double, String)
    if isDuration {
      unit = XAxis.durationUnit(high)
    } else {
      unit = (1, "")
    }
    (unitSeconds, unitName) = unit
    // An all-zero metric gets the axis 0 to 1, not ticks of 1e-09 (issue 58, item 5).
    ticks = SVG.linearTicks(upTo: high > 0 ? high / unit.0 : 1).map { $0 * unit.0 }
  }

  var top: Double { ticks.last ?? 1 }

  func label(_ value: Double) -> String {
    let number = SVG.number(value / unitSeconds)
    return unitName.isEmpty ? number : number + " " + unitName
  }

  var titleSuffix: String { "" }
}
