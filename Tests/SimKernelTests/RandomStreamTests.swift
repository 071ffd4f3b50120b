import Foundation
import Testing

@testable import SimKernel

@Suite struct RandomStreamTests {
  @Test func splitMixMatchesTheReferenceOutputs() {
    // Reference values of SplitMix64 for seed 0 (Vigna's splitmix64.c).
    var generator = SplitMix64(seed: 0)
    #expect(generator.next() == 0xE220_A839_7B1D_CDAF)
    #expect(generator.next() == 0x6E78_9E6A_A1B9_65F4)
    #expect(generator.next() == 0x06C4_5D18_8009_454F)
  }

  @Test func streamOutputsArePinnedForAFixedSeed() {
    var stream = RandomStream(seed: 42, name: "device", index: 3)
    let first = (0..<4).map { _ in stream.next() }
    // Pinned: a change here changes every result file; do it only on purpose.
    #expect(first == Self.pinnedDevice3)
    #expect(RandomStream.derivedSeed(seed: 42, name: "device", index: 3) == Self.pinnedSeed)
  }

  static let pinnedSeed: UInt64 = 1_726_155_093_079_551_753
  static let pinnedDevice3: [UInt64] = [
    3_007_176_766_297_057_847, 16_589_531_894_838_862_376,
    15_171_364_356_763_718_211, 14_569_667_519_771_230_073,
  ]

  @Test func addingAStreamLeavesOtherStreamsUnchanged() {
    // Stream draws depend only on (root seed, name, index), not on which other streams exist.
    var alone = RandomStream(seed: 9, name: "edits", index: 1)
    var others = [RandomStream(seed: 9, name: "edits", index: 0), RandomStream(seed: 9, name: "push", index: 1)]
    _ = others[0].next()
    _ = others[1].next()
    var again = RandomStream(seed: 9, name: "edits", index: 1)
    for _ in 0..<100 { #expect(alone.next() == again.next()) }
  }

  @Test func distinctStreamsAreUncorrelated() {
    var a = RandomStream(seed: 5, name: "edits", index: 0)
    var b = RandomStream(seed: 5, name: "edits", index: 1)
    let n = 100_000
    var sumA = 0.0, sumB = 0.0, sumAB = 0.0, sumA2 = 0.0, sumB2 = 0.0
    for _ in 0..<n {
      let x = a.nextUnit(), y = b.nextUnit()
      sumA += x; sumB += y; sumAB += x * y; sumA2 += x * x; sumB2 += y * y
    }
    let cov = sumAB / Double(n) - (sumA / Double(n)) * (sumB / Double(n))
    let varA = sumA2 / Double(n) - pow(sumA / Double(n), 2)
    let varB = sumB2 / Double(n) - pow(sumB / Double(n), 2)
    let correlation = cov / (varA * varB).squareRoot()
    // For independent streams the sample correlation has standard error 1/sqrt(n) ≈ 0.0032.
    #expect(abs(correlation) < 0.0032 * 4)
  }

  @Test func nextIntIsUniformAndInRange() {
    var stream = RandomStream(seed: 3)
    var counts = [Int](repeating: 0, count: 7)
    for _ in 0..<70_000 { counts[Int(stream.nextInt(below: 7))] += 1 }
    // Chi-square with 6 degrees of freedom: the 99.9 % critical value is 22.46.
    let chiSquare = counts.reduce(0.0) { $0 + pow(Double($1) - 10_000, 2) / 10_000 }
    #expect(chiSquare < 22.46)
  }

  /// The exponential as first written: sixteen divisions, one per term.
  static func expBySixteenDivisions(_ x: Double) -> Double {
    if x.isNaN { return .nan }
    if x > 709.782712893384 { return .infinity }
    if x < -745.1332191019412 { return 0 }
    let t = x * 1.4426950408889634
    let k = Double(t >= 0 ? Int64(t + 0.5) : Int64(t - 0.5))
    let r = (x - k * 6.93147180369123816490e-01) - k * 1.90821492927058770002e-10
    var (term, sum, n) = (1.0, 1.0, 1.0)
    while n <= 16 {
      term *= r / n
      sum += term
      n += 1
    }
    return sum * pow(2, k)
  }

  @Test func expIsBitForBitTheSixteenDivisionSeries() {
    // Halved quotients must round as the divisions did, or every lognormal draw would change.
    var stream = RandomStream(seed: 9)
    var inputs: [Double] = [0, 1, -1, 0.5, 1e-300, -1e-300, Double.leastNonzeroMagnitude, 1e-20, 0.34657359027997264, -0.34657359027997264]
    for _ in 0..<400_000 { inputs.append(stream.uniform(-700, 700)) }
    for _ in 0..<400_000 { inputs.append(stream.uniform(-3, 3)) }
    for _ in 0..<100_000 { inputs.append(stream.uniform(-1, 1) * pow(2, -Double(stream.nextInt(below: 80)))) }
    var differing = 0
    for x in inputs where DeterministicMath.exp(x).bitPattern != Self.expBySixteenDivisions(x).bitPattern {
      differing += 1
    }
    #expect(differing == 0)
  }

  @Test func logAndExpMatchLibmToAFewUlps() {
    var stream = RandomStream(seed: 1)
    for _ in 0..<20_000 {
      let x = DeterministicMath.exp(stream.uniform(-700, 700))
      let ours = DeterministicMath.log(x)
      let libm = Foundation.log(x)
      #expect(abs(ours - libm) <= 4 * libm.ulp.magnitude + 1e-300)
      let y = stream.uniform(-700, 700)
      #expect(abs(DeterministicMath.exp(y) - Foundation.exp(y)) <= 4 * Foundation.exp(y).ulp)
    }
    #expect(DeterministicMath.log(1) == 0)
    #expect(DeterministicMath.log(0) == -.infinity)
    #expect(DeterministicMath.log(-1).isNaN)
    #expect(DeterministicMath.exp(0) == 1)
    #expect(DeterministicMath.exp(1000) == .infinity)
    let subnormal = Double(sign: .plus, exponent: -1063, significand: 1)  // about 1e-320, below the normal range
    #expect(abs(DeterministicMath.log(subnormal) - Foundation.log(subnormal)) < 1e-12)
  }
}
