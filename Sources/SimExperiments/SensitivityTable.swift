import SimKernel
import SimMetrics
import SimScenario

/// What a screening found, metric by metric: each factor's elementary effects summarised (μ*,
/// the mean of their absolute values, in the metric's unit per the whole range; μ, their mean;
/// σ, their spread, which is large when the factor's effect depends on the others), the metric
/// with the factor alone at each end of its range, and the factors ranked by μ*.
public struct SensitivityTable: Sendable {
  /// One factor's figures for one metric.
  public struct Row: Sendable {
    public var factor: Int
    public var muStar: Double?
    public var mu: Double?
    public var sigma: Double?
    /// Elementary effects measured (a step whose points both define the metric).
    public var effects: Int
    public var atLow: Double?
    public var atHigh: Double?
    /// 1 for the largest μ*.
    public var rank: Int
  }

  /// One metric's figures.
  public struct Metric: Sendable {
    public var name: String
    public var unit: String
    /// The metric with the scenario as written.
    public var base: Double?
    /// The lowest and highest the metric took at any point of the screening.
    public var lowest: Double?
    public var highest: Double?
    /// Rows by rank.
    public var rows: [Row]
  }

  public var factors: [SensitivityFactor]
  public var design: SensitivityDesign
  public var metrics: [Metric]

  /// The figures of `values` (`SensitivityRunner.execute`'s: each point's metric means).
  public init(factors: [SensitivityFactor], design: SensitivityDesign, metrics: [String], values: [[Double?]]) {
    self.factors = factors
    self.design = design
    self.metrics = metrics.enumerated().map { index, name in
      let column = values.map { $0[index] }
      return Self.metric(name, column: column, factors: factors, design: design)
    }
  }

  static func metric(
    _ name: String, column: [Double?], factors: [SensitivityFactor], design: SensitivityDesign
  ) -> Metric {
    var rows: [Row] = factors.indices.map { factor in
      let ends = design.endPoints(of: factor)
      var row = Row(
        factor: factor, muStar: nil, mu: nil, sigma: nil, effects: 0, atLow: column[ends.low],
        atHigh: column[ends.high], rank: 0)
      var effects: [Double] = []
      if design.method == .oat {
        if let low = row.atLow, let high = row.atHigh { effects = [high - low] }
      } else {
        for step in design.steps where step.factor == factor {
          guard let from = column[step.from], let to = column[step.to] else { continue }
          effects.append((to - from) / step.delta)
        }
      }
      row.effects = effects.count
      if !effects.isEmpty {
        let count = Double(effects.count)
        row.muStar = effects.reduce(0) { $0 + abs($1) } / count
        let mean = effects.reduce(0, +) / count
        row.mu = mean
        if design.method == .morris && effects.count > 1 {
          let squares = effects.reduce(0) { $0 + ($1 - mean) * ($1 - mean) }
          row.sigma = (squares / (count - 1)).squareRoot()
        }
      }
      return row
    }
    // Largest μ* first; a factor without one last; ties in the table's order.
    let order = rows.indices.sorted { left, right in
      let (a, b) = (rows[left].muStar ?? -1, rows[right].muStar ?? -1)
      return a != b ? a > b : left < right
    }
    for (rank, index) in order.enumerated() { rows[index].rank = rank + 1 }
    let defined = column.compactMap { $0 }
    return Metric(
      name: name, unit: RunSummary.metric(named: name)?.unit ?? "", base: column.first ?? nil,
      lowest: defined.min(), highest: defined.max(), rows: order.map { rows[$0] })
  }

  /// The columns of `sensitivity.csv`.
  public static let columns = [
    "metric", "unit", "rank", "parameter", "source", "range", "rangeLow", "rangeHigh", "reason", "muStar", "mu",
    "sigma", "effects", "atLow", "atHigh", "base",
  ]

  /// `sensitivity.csv`: one row per metric and factor, by rank within each metric.
  public var csv: CSVTable {
    var table = CSVTable(columns: Self.columns)
    for metric in metrics {
      for row in metric.rows {
        let factor = factors[row.factor]
        let (low, high) = Self.bounds(factor)
        table.append([
          metric.name, metric.unit, String(row.rank), factor.name, factor.source, Self.rangeText(factor), low, high,
          factor.range.reason, Self.number(row.muStar), Self.number(row.mu), Self.number(row.sigma),
          String(row.effects), Self.number(row.atLow), Self.number(row.atHigh), Self.number(metric.base),
        ])
      }
    }
    return table
  }

  /// The range's ends as numbers (a distribution's as factors); empty for choices.
  static func bounds(_ factor: SensitivityFactor) -> (String, String) {
    guard let low = factor.number(at: 0), let high = factor.number(at: 1) else { return ("", "") }
    return (number(low), number(high))
  }

  /// The range as read: "0.0167 s .. 0.15 s", "×0.333 .. ×3", "device | container".
  public static func rangeText(_ factor: SensitivityFactor) -> String {
    if case .choices(let values) = factor.range.span { return values.joined(separator: " | ") }
    return factor.label(at: 0) + " .. " + factor.label(at: 1)
  }

  /// A figure for the CSV: shortest round-trip text, empty when undefined.
  public static func number(_ value: Double?) -> String {
    guard let value else { return "" }
    return value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
  }
}
