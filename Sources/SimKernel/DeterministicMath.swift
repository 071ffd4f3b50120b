/// Logarithm and exponential implemented in the project, so that draws are identical on every
/// platform whatever its libm does (only IEEE +, −, ×, ÷ and sqrt are used, which are exact).
///
/// Accuracy is within a few ulps over the whole range, checked against libm in the tests.
public enum DeterministicMath {
  @usableFromInline static let ln2High = 6.93147180369123816490e-01
  @usableFromInline static let ln2Low = 1.90821492927058770002e-10

  /// The natural logarithm; NaN for negative input, −∞ for zero.
  public static func log(_ x: Double) -> Double {
    if x.isNaN || x < 0 { return .nan }
    if x == 0 { return -.infinity }
    if x.isInfinite { return .infinity }
    if x > 0.984375 && x < 1.015625 {
      // Near 1 the table path would cancel (−ln 2 + log 1.99…); use the series directly.
      let s = (x - 1) / (x + 1)
      let s2 = s * s
      return 2 * s * (1 + s2 * (1.0 / 3 + s2 * (1.0 / 5 + s2 * (1.0 / 7 + s2 * (1.0 / 9)))))
    }
    var value = x
    var exponentAdjust = 0
    if value < 0x1.0p-1022 {
      value *= 0x1.0p54
      exponentAdjust = -54
    }
    let bits = value.bitPattern
    let exponent = Int((bits >> 52) & 0x7FF) - 1023 + exponentAdjust
    let mantissa = Double(bitPattern: (bits & 0x000F_FFFF_FFFF_FFFF) | 0x3FF0_0000_0000_0000)
    // m = c·(1 + r) with c = 1 + i/128 the table point at or below m: log m = log c + log(1 + r).
    let index = Int((bits >> 45) & 0x7F)
    let center = 1 + Double(index) / 128
    let s = (mantissa - center) / (mantissa + center)  // |s| < 1/257
    let s2 = s * s
    let logRatio = 2 * s * (1 + s2 * (1.0 / 3 + s2 * (1.0 / 5 + s2 * (1.0 / 7))))
    let e = Double(exponent)
    return (e * ln2High + logTable[index]) + (e * ln2Low + logRatio)
  }

  /// log(1 + i/128) for i in 0..<128, computed once with the series below (so still exact-ish
  /// and identical on every platform).
  static let logTable: [Double] = (0..<128).map { seriesLog(1 + Double($0) / 128) }

  /// log(m) for m in [1, 2) by the atanh series, splitting at √2; slow but accurate.
  static func seriesLog(_ m: Double) -> Double {
    var mantissa = m
    var offset = 0.0
    if mantissa > 1.4142135623730951 {
      mantissa *= 0.5
      offset = 1
    }
    let s = (mantissa - 1) / (mantissa + 1)
    let s2 = s * s
    var series = 1.0 / 25.0
    var k = 23.0
    while k >= 3 {
      series = 1.0 / k + s2 * series
      k -= 2
    }
    return offset * ln2High + (offset * ln2Low + 2 * s * (1 + s2 * series))
  }

  /// The exponential function; overflows to +∞ and underflows to 0 like libm.
  public static func exp(_ x: Double) -> Double {
    if x.isNaN { return .nan }
    if x > 709.782712893384 { return .infinity }
    if x < -745.1332191019412 { return 0 }
    let t = x * 1.4426950408889634
    let k = Double(t >= 0 ? Int64(t + 0.5) : Int64(t - 0.5))
    let r = (x - k * ln2High) - k * ln2Low
    return scale(series(r), byPowerOfTwo: Int(k))
  }

  /// The Taylor series of e^r for |r| ≤ 0.35: 16 terms leave an error below 1e-19.
  ///
  /// Term n is term n − 1 × (r / n), summed in order. Seven of the sixteen quotients are
  /// divisions; the others are exact halvings of one of them (r / 2n rounds to half of what
  /// r / n rounds to, whenever it is a normal number, and a subnormal term is far below the
  /// sum's last digit), so every value is the same bit for bit as with sixteen divisions, at
  /// less than half the cost: a lognormal draw is an exponential, and a fleet draws millions.
  static func series(_ r: Double) -> Double {
    let (q3, q5, q7) = (r / 3, r / 5, r / 7)
    var term = r  // 1 × r / 1
    var sum = 1 + term
    @inline(__always) func next(_ quotient: Double) {
      term *= quotient
      sum += term
    }
    next(r * 0.5)
    next(q3)
    next(r * 0.25)
    next(q5)
    next(q3 * 0.5)
    next(q7)
    next(r * 0.125)
    next(r / 9)
    next(q5 * 0.5)
    next(r / 11)
    next(q3 * 0.25)
    next(r / 13)
    next(q7 * 0.5)
    next(r / 15)
    next(r * 0.0625)
    return sum
  }

  /// `value` × 2^power, stepping through the subnormal range without double rounding surprises.
  static func scale(_ value: Double, byPowerOfTwo power: Int) -> Double {
    var result = value
    var p = power
    while p > 1000 {
      result *= 0x1.0p1000
      p -= 1000
    }
    while p < -1000 {
      result *= 0x1.0p-1000
      p += 1000
    }
    return result * Double(bitPattern: UInt64(p + 1023) << 52)
  }
}
