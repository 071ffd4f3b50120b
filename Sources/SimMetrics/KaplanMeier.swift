/// The Kaplan–Meier estimate of the median latency, for rows that are censored: a row not
/// visible at the end of the run has a latency of at least its time from the edit to the end, and
/// the plain median over visible rows (`latency.p50`) leaves those out, which biases it low (the
/// slowest rows are the ones missing). Kaplan and Meier (1958), "Nonparametric estimation from
/// incomplete observations", J. Am. Stat. Assoc. 53:457–481.
enum KaplanMeier {
  /// The smallest latency at which the estimated share of rows still not visible falls to one
  /// half, in seconds; nil when it never does (more than half the rows may never be visible), when
  /// no row was visible, or when either sample was counted in a histogram. A row censored at the
  /// same time as a row became visible is still at risk then (the usual convention).
  static func median(events: LatencySample, censored: LatencySample) -> Double? {
    guard events.histogram == nil, events.count > 0, let censoredAt = censored.sortedValues() else { return nil }
    // The estimate never lies above the share still not visible when censored rows are counted
    // as never visible (a censored row's weight moves onto later rows: Efron's redistribution to
    // the right), so it falls to one half at or before the visible value of rank ⌈N/2⌉ (N: the
    // visible and censored rows). Only the values up to that one are sorted (the whole sort was
    // 1.7 % of a fleet's instructions); should the rounded product not reach one half there, the
    // walk over every value decides, so the answer is the same either way.
    let rank = (events.count + censoredAt.count + 1) / 2
    if rank <= events.count, let bound = events.value(atSortedIndex: rank - 1),
      let found = walk(events.sortedValues(atMost: bound), visibleCount: events.count, censoredAt)
    {
      return found
    }
    guard let visible = events.sortedValues() else { return nil }
    return walk(visible, visibleCount: visible.count, censoredAt)
  }

  /// The walk over the visible latencies in ascending order (all of them, or every one up to some
  /// value), of `visibleCount` in all: the median in seconds, or nil when `visible` ends first.
  private static func walk(_ visible: [Int64], visibleCount: Int, _ censoredAt: [Int64]) -> Double? {
    var atRisk = visibleCount + censoredAt.count
    var survival = 1.0
    var (i, j) = (0, 0)
    while i < visible.count {
      let time = visible[i]
      while j < censoredAt.count && censoredAt[j] < time {
        atRisk -= 1
        j += 1
      }
      var seen = 0
      while i < visible.count && visible[i] == time {
        seen += 1
        i += 1
      }
      survival *= 1 - Double(seen) / Double(atRisk)
      atRisk -= seen
      // The product rounds: with no row censored it is (n − k)/n, one half exactly at the median,
      // which the rounded product may miss by an ulp or a few.
      if survival <= 0.5 + 1e-12 { return Double(time) / 1e9 }
    }
    return nil
  }
}
