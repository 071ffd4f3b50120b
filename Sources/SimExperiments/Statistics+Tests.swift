import Foundation

/// Tests of many metrics at once: p-values, the Holm correction, and intervals for proportions.
extension Statistics {
  /// Welch's two-sided p-value for b's mean ≠ a's; nil with fewer than two values each. Equal
  /// samples with no spread give 1 (no evidence of a difference) unless their means differ.
  public static func welchPValue(_ a: [Double], _ b: [Double]) -> Double? {
    guard a.count >= 2, b.count >= 2, let ea = estimate(a), let eb = estimate(b) else { return nil }
    let va = ea.standardDeviation * ea.standardDeviation / Double(a.count)
    let vb = eb.standardDeviation * eb.standardDeviation / Double(b.count)
    let se = (va + vb).squareRoot()
    guard se > 0 else { return eb.mean == ea.mean ? 1 : 0 }
    let t = (eb.mean - ea.mean) / se
    let df = (va + vb) * (va + vb) / (va * va / Double(a.count - 1) + vb * vb / Double(b.count - 1))
    return studentTwoSided(t, degreesOfFreedom: df)
  }

  /// P(|T| ≥ |t|) for Student's t with `df` degrees of freedom: I_{df/(df+t²)}(df/2, 1/2).
  public static func studentTwoSided(_ t: Double, degreesOfFreedom df: Double) -> Double {
    min(1, max(0, regularizedIncompleteBeta(df / (df + t * t), df / 2, 0.5)))
  }

  /// Holm's step-down adjustment of `pValues` (family-wise error control): each adjusted p-value
  /// is at least its raw one and at most 1, and the order of the tests is kept.
  public static func holm(_ pValues: [Double]) -> [Double] {
    let order = pValues.indices.sorted { (pValues[$0], $0) < (pValues[$1], $1) }
    var adjusted = [Double](repeating: 1, count: pValues.count)
    var running = 0.0
    for (rank, index) in order.enumerated() {
      running = max(running, min(1, Double(pValues.count - rank) * pValues[index]))
      adjusted[index] = running
    }
    return adjusted
  }

  /// Wilson's 95 % score interval for a proportion of `successes` in `n` trials, within [0, 1].
  public static func wilson(successes: Double, n: Int) -> (low: Double, high: Double)? {
    guard n > 0 else { return nil }
    let z = 1.959963984540054
    let total = Double(n)
    let p = successes / total
    let denominator = 1 + z * z / total
    let center = (p + z * z / (2 * total)) / denominator
    let half = z * (p * (1 - p) / total + z * z / (4 * total * total)).squareRoot() / denominator
    return (max(0, center - half), min(1, center + half))
  }

  /// The regularized incomplete beta function I_x(a, b), by Lentz's continued fraction.
  static func regularizedIncompleteBeta(_ x: Double, _ a: Double, _ b: Double) -> Double {
    if x <= 0 { return 0 }
    if x >= 1 { return 1 }
    let logGammas: Double = lgamma(a + b) - lgamma(a) - lgamma(b)
    let logPowers: Double = a * log(x) + b * log(1 - x)
    let front = exp(logGammas + logPowers)
    if x > (a + 1) / (a + b + 2) { return 1 - regularizedIncompleteBeta(1 - x, b, a) }
    let tiny = 1e-300
    var c = 1.0
    var d = 1 - (a + b) * x / (a + 1)
    if abs(d) < tiny { d = tiny }
    d = 1 / d
    var result = d
    for m in 1...300 {
      let m = Double(m)
      let even = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m))
      d = 1 + even * d
      if abs(d) < tiny { d = tiny }
      c = 1 + even / c
      if abs(c) < tiny { c = tiny }
      d = 1 / d
      result *= d * c
      let odd = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))
      d = 1 + odd * d
      if abs(d) < tiny { d = tiny }
      c = 1 + odd / c
      if abs(c) < tiny { c = tiny }
      d = 1 / d
      let delta = d * c
      result *= delta
      if abs(delta - 1) < 1e-12 { break }
    }
    return front * result / a
  }
}
