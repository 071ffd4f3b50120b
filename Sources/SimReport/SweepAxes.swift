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

  init(labels: [String]) {
    self.labels = labels
    let parsed = labels.compactMap(AxisValue.parse)
    let numeric = parsed.count == labels.count && Set(parsed.map(\.value)).count > 1
    guard numeric else {
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
    if minimum > 0 && maximum / minimum >= 100 {
      kind = .log
      let first = floor(log10(minimum)), last = ceil(log10(maximum))
      (low, high) = (pow(10, first), pow(10, last))
      var decades: [(Double, String)] = []
      var exponent = first
      while exponent <= last {
        decades.append((pow(10, exponent), label(pow(10, exponent))))
        exponent += 1
      }
      ticks = decades
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
      unit = high < 120 ? (1, "s") : high < 7200 ? (60, "min") : high < 172_800 ? (3600, "h") : (86400, "d")
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
