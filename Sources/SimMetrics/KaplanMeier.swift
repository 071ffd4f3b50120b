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
    guard let visible = events.sortedValues(), let censoredAt = censored.sortedValues(), !visible.isEmpty else {
      return nil
    }
    var atRisk = visible.count + censoredAt.count
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
