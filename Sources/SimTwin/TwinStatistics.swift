/// Order statistics the trace, the fit and the held-back check share.
public enum TwinStatistics {
  /// The `q` quantile of sorted `values` (linear between order statistics, as R's type 7).
  public static func quantile(_ sorted: [Double], _ q: Double) -> Double {
    precondition(!sorted.isEmpty)
    let position = q * Double(sorted.count - 1)
    let lower = Int(position.rounded(.down))
    let upper = min(lower + 1, sorted.count - 1)
    return sorted[lower] + (sorted[upper] - sorted[lower]) * (position - Double(lower))
  }

  /// The `q` quantile of `values` weighted by `weights` (the smallest value whose cumulative
  /// weight reaches `q` of the total).
  public static func weightedQuantile(_ values: [Double], _ weights: [Double], _ q: Double) -> Double {
    let order = values.indices.sorted { values[$0] < values[$1] }
    let total = weights.reduce(0, +)
    var cumulative = 0.0
    for index in order {
      cumulative += weights[index]
      if cumulative >= q * total { return values[index] }
    }
    return values[order.last!]
  }

  /// The median absolute deviation from the median.
  public static func mad(_ values: [Double]) -> Double {
    guard !values.isEmpty else { return 0 }
    let sorted = values.sorted()
    let median = quantile(sorted, 0.5)
    return quantile(values.map { abs($0 - median) }.sorted(), 0.5)
  }
}
