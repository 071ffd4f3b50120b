import SimMetrics

/// Cause totals (`MetricsRecorder.causeTotals`) summed over parts, in the order each cause was
/// first seen (parts come in part order, so the order is the same on every run).
public struct CauseTotalsFold: Sendable {
  public private(set) var totals: [(name: String, nanoseconds: Int128)] = []
  private var position: [String: Int] = [:]  // looked up only; `totals` keeps the order

  public init() {}

  /// A fold that starts from `totals` (a run's progress read back).
  public init(_ totals: [(name: String, nanoseconds: Int128)]) { add(totals) }

  public mutating func add(_ part: [(name: String, nanoseconds: Int128)]) {
    for (name, nanoseconds) in part {
      if let index = position[name] {
        totals[index].nanoseconds += nanoseconds
      } else {
        position[name] = totals.count
        totals.append((name, nanoseconds))
      }
    }
  }
}
