/// Small, exact statistics for replications: mean, standard deviation, t-based confidence intervals.
public enum Statistics {
  /// Two-sided 95 % quantiles of Student's t (0.975 quantile) for 1…30 degrees of freedom.
  static let t975: [Double] = [
    12.706204736, 4.302652730, 3.182446305, 2.776445105, 2.570581836, 2.446911851, 2.364624252, 2.306004135,
    2.262157163, 2.228138852, 2.200985160, 2.178812830, 2.160368656, 2.144786688, 2.131449546, 2.119905299,
    2.109815578, 2.100922040, 2.093024054, 2.085963447, 2.079613845, 2.073873068, 2.068657610, 2.063898562,
    2.059538553, 2.055529439, 2.051830516, 2.048407142, 2.045229642, 2.042272456,
  ]

  /// The 0.975 quantile of Student's t with `df` degrees of freedom (fractional df, as Welch's
  /// approximation gives, interpolate in 1/df; beyond 30 a Cornish-Fisher expansion).
  public static func tQuantile975(degreesOfFreedom df: Double) -> Double {
    guard df.isFinite, df > 0 else { return .nan }
    if df >= 30 {
      // Cornish-Fisher expansion around z = 1.959963985: accurate to ~1e-6 for df ≥ 30.
      let z = 1.959963984540054
      let z3 = z * z * z, z5 = z3 * z * z, z7 = z5 * z * z, z9 = z7 * z * z
      let g1 = (z3 + z) / 4
      let g2 = (5 * z5 + 16 * z3 + 3 * z) / 96
      let g3 = (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / 384
      let g4 = (79 * z9 + 776 * z7 + 1482 * z5 - 1920 * z3 - 945 * z) / 92160
      return z + g1 / df + g2 / (df * df) + g3 / (df * df * df) + g4 / (df * df * df * df)
    }
    if df <= 1 { return t975[0] }
    let lower = Int(df.rounded(.down))
    if Double(lower) == df { return t975[lower - 1] }
    let upper = lower + 1
    let a = t975[lower - 1], b = upper <= 30 ? t975[upper - 1] : tQuantile975(degreesOfFreedom: 30)
    let w = (1 / Double(lower) - 1 / df) / (1 / Double(lower) - 1 / Double(upper))
    return a + (b - a) * w
  }

  /// Mean, sample standard deviation, n and the 95 % t-interval of the mean.
  public struct Estimate: Sendable, Equatable {
    public var n: Int
    public var mean: Double
    public var standardDeviation: Double
    public var low: Double
    public var high: Double
  }

  public static func estimate(_ values: [Double]) -> Estimate? {
    guard !values.isEmpty else { return nil }
    let n = Double(values.count)
    let mean = values.reduce(0, +) / n
    guard values.count > 1 else { return Estimate(n: 1, mean: mean, standardDeviation: .nan, low: .nan, high: .nan) }
    let variance = values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / (n - 1)
    let sd = variance.squareRoot()
    let half = tQuantile975(degreesOfFreedom: n - 1) * sd / n.squareRoot()
    return Estimate(n: values.count, mean: mean, standardDeviation: sd, low: mean - half, high: mean + half)
  }

  /// Welch's difference of means (b − a) with its 95 % interval; nil with fewer than two values each.
  public static func welch(_ a: [Double], _ b: [Double]) -> (difference: Double, low: Double, high: Double)? {
    guard a.count >= 2, b.count >= 2, let ea = estimate(a), let eb = estimate(b) else { return nil }
    let va = ea.standardDeviation * ea.standardDeviation / Double(a.count)
    let vb = eb.standardDeviation * eb.standardDeviation / Double(b.count)
    let difference = eb.mean - ea.mean
    let se = (va + vb).squareRoot()
    if se == 0 { return (difference, difference, difference) }
    let df = (va + vb) * (va + vb) / (va * va / Double(a.count - 1) + vb * vb / Double(b.count - 1))
    let half = tQuantile975(degreesOfFreedom: df) * se
    return (difference, difference - half, difference + half)
  }
}
