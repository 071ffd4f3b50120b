import Testing

@testable import SimKernel

@Suite struct DistributionTests {
  /// Checks the sample mean and variance of `n` draws against the analytic values.
  ///
  /// The mean must lie within 5 standard errors; the variance within 5 of its standard errors,
  /// estimated from the sample's fourth central moment. Seeds are fixed, so this cannot flake.
  func check(_ distribution: Distribution, seed: UInt64, n: Int = 200_000) {
    var rng = RandomStream(seed: seed, name: "distribution-test")
    var samples = [Double](repeating: 0, count: n)
    for i in 0..<n { samples[i] = distribution.sample(using: &rng) }
    let mean = samples.reduce(0, +) / Double(n)
    let m2 = samples.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(n)
    let m4 = samples.reduce(0) { $0 + ($1 - mean) * ($1 - mean) * ($1 - mean) * ($1 - mean) } / Double(n)
    let expectedMean = distribution.mean
    let expectedVariance = distribution.variance
    let meanError = (expectedVariance / Double(n)).squareRoot()
    #expect(abs(mean - expectedMean) <= 5 * meanError + 1e-12, "mean \(mean) vs \(expectedMean)")
    let varianceError = ((m4 - m2 * m2) / Double(n)).squareRoot()
    #expect(abs(m2 - expectedVariance) <= 5 * varianceError + 1e-12, "variance \(m2) vs \(expectedVariance)")
  }

  @Test func constant() { check(.constant(2.5), seed: 1, n: 1000) }
  @Test func uniform() { check(.uniform(lower: 1, upper: 5), seed: 2) }
  @Test func exponential() { check(.exponential(mean: 2), seed: 3) }
  @Test func normal() { check(.normal(mean: 10, standardDeviation: 3), seed: 4) }
  @Test func lognormal() { check(.lognormal(mu: 0.2, sigma: 0.5), seed: 5) }
  @Test func choice() { check(.choice(values: [1, 2, 10], weights: [0.5, 0.3, 0.2]), seed: 6) }

  @Test func lognormalFromMedianAndP99HitsBothQuantiles() {
    let distribution = Distribution.lognormal(median: 0.15, p99: 2)
    var rng = RandomStream(seed: 8)
    var samples = (0..<100_000).map { _ in distribution.sample(using: &rng) }
    samples.sort()
    // Order statistics: the sample median and p99 of 1e5 draws lie within a few percent.
    #expect(abs(samples[50_000] / 0.15 - 1) < 0.03)
    #expect(abs(samples[99_000] / 2 - 1) < 0.06)
  }

  @Test func bernoulliFrequencyMatchesProbability() {
    var rng = RandomStream(seed: 12)
    let n = 100_000
    let hits = (0..<n).filter { _ in rng.bernoulli(0.3) }.count
    let standardError = (0.3 * 0.7 / Double(n)).squareRoot()
    #expect(abs(Double(hits) / Double(n) - 0.3) < 5 * standardError)
  }

  @Test func durationsAreFlooredAtZero() {
    var rng = RandomStream(seed: 1)
    for _ in 0..<1000 {
      #expect(Distribution.normal(mean: 0, standardDeviation: 1).sampleDuration(using: &rng) >= .zero)
    }
  }
}
