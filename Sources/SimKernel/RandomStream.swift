/// One independent stream of random numbers: xoshiro256** (Blackman and Vigna, 2018).
///
/// Streams are derived from a root seed and a stable name (`RandomStream(seed:name:index:)`), so
/// adding a device or a stream leaves every other stream's draws unchanged. All draws are
/// implemented here, not taken from the standard library, so results do not change with it.
public struct RandomStream: RandomNumberGenerator, Sendable, BitwiseCopyable {
  @usableFromInline var s0: UInt64
  @usableFromInline var s1: UInt64
  @usableFromInline var s2: UInt64
  @usableFromInline var s3: UInt64

  /// A stream whose state is expanded from `seed` with SplitMix64.
  public init(seed: UInt64) {
    var expander = SplitMix64(seed: seed)
    s0 = expander.next()
    s1 = expander.next()
    s2 = expander.next()
    s3 = expander.next()
  }

  /// The stream called `name` (with an optional entity `index`) under the root seed `seed`.
  public init(seed: UInt64, name: String, index: UInt64 = 0) {
    self.init(seed: Self.derivedSeed(seed: seed, name: name, index: index))
  }

  /// The seed of the stream called `name`/`index` under `seed`: a stable hash of all three.
  public static func derivedSeed(seed: UInt64, name: String, index: UInt64 = 0) -> UInt64 {
    StableHash.combine(StableHash.combine(seed, StableHash.fnv1a(name)), index)
  }

  /// The next 64 random bits.
  @inlinable public mutating func next() -> UInt64 {
    let result = (s1 &* 5).rotatedLeft(7) &* 9
    let t = s1 << 17
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = s3.rotatedLeft(45)
    return result
  }

  /// A uniform double in [0, 1) with 53 random bits.
  @inlinable public mutating func nextUnit() -> Double {
    Double(next() >> 11) * 0x1.0p-53
  }

  /// A uniform double in (0, 1]: safe to take the logarithm of.
  @inlinable public mutating func nextOpenUnit() -> Double {
    Double((next() >> 11) + 1) * 0x1.0p-53
  }

  /// A uniform integer in 0..<bound (Lemire's unbiased multiply-shift).
  ///
  /// - Precondition: `bound` > 0.
  @inlinable public mutating func nextInt(below bound: UInt64) -> UInt64 {
    precondition(bound > 0, "bound must be positive")
    var product = next().multipliedFullWidth(by: bound)
    if product.low < bound {
      let threshold = (0 &- bound) % bound
      while product.low < threshold { product = next().multipliedFullWidth(by: bound) }
    }
    return product.high
  }

  /// A uniform double in [lower, upper).
  @inlinable public mutating func uniform(_ lower: Double, _ upper: Double) -> Double {
    lower + (upper - lower) * nextUnit()
  }

  /// An exponential variate with the given mean.
  @inlinable public mutating func exponential(mean: Double) -> Double {
    -mean * DeterministicMath.log(nextOpenUnit())
  }

  /// `true` with probability `probability`.
  @inlinable public mutating func bernoulli(_ probability: Double) -> Bool {
    nextUnit() < probability
  }

  /// A standard normal variate (Marsaglia's polar method; uses only log and sqrt).
  public mutating func standardNormal() -> Double {
    while true {
      let u = 2 * nextUnit() - 1
      let v = 2 * nextUnit() - 1
      let s = u * u + v * v
      if s > 0 && s < 1 {
        return u * (-2 * DeterministicMath.log(s) / s).squareRoot()
      }
    }
  }
}
