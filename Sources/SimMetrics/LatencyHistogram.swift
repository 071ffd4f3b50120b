/// Latencies counted in log-linear buckets with a bounded relative error, in the manner of
/// HdrHistogram: a value below 1,024 ns has a bucket of its own; above, each power of two is cut
/// into 1,024 equal buckets, so a bucket is at most 1/1,024 of its lower bound wide. A percentile
/// read as its bucket's middle is within `relativeErrorBound` (0.049 %) of the exact value.
///
/// Integer arithmetic only (a value's bucket is its top bits), so the counts do not depend on
/// the platform; buckets add, so merging two histograms gives exactly the histogram of the union,
/// whatever the order. Dense: 54,272 counts (434 KB), grown only as far as the largest value.
public struct LatencyHistogram: Sendable, Equatable {
  /// Bits of a value kept below its leading one: 2^10 buckets per power of two.
  static let subBucketBits = 10
  static let subBuckets = 1 << subBucketBits
  /// The largest relative distance from a bucket's middle to a value in it: half of 1/1,024.
  public static let relativeErrorBound = 0.5 / Double(subBuckets)

  /// Counts per bucket (index from `bucket(of:)`), trailing empty buckets left out.
  private(set) var counts: [Int64] = []
  public private(set) var count: Int64 = 0

  public init() {}

  /// A histogram of these bucket counts (a shard's, read back).
  init(counts: [Int64]) {
    self.counts = counts
    count = counts.reduce(0, +)
  }

  /// The bucket of a non-negative value (negative values count as 0).
  @inline(__always)
  static func bucket(of value: Int64) -> Int {
    let value = UInt64(max(value, 0))
    guard value >= UInt64(subBuckets) else { return Int(value) }
    let exponent = 63 - value.leadingZeroBitCount  // ≥ subBucketBits
    let shift = exponent - subBucketBits
    let mantissa = Int(value >> UInt64(shift)) - subBuckets  // 0..<subBuckets
    return subBuckets + shift * subBuckets + mantissa
  }

  /// The smallest and largest value of bucket `index`.
  static func bounds(of index: Int) -> (low: Int64, high: Int64) {
    guard index >= subBuckets else { return (Int64(index), Int64(index)) }
    let shift = (index - subBuckets) / subBuckets
    let mantissa = Int64((index - subBuckets) % subBuckets + subBuckets)
    let low = mantissa << Int64(shift)
    return (low, low | ((Int64(1) << Int64(shift)) - 1))
  }

  /// Counts one value.
  @inline(__always)
  public mutating func add(_ value: Int64) {
    let index = Self.bucket(of: value)
    if index >= counts.count { counts.append(contentsOf: repeatElement(0, count: index + 1 - counts.count)) }
    counts[index] += 1
    count += 1
  }

  /// Adds every value of `values`, whose largest is `maximum`: as `add(_:)` one by one, with the
  /// counts grown once and written through their buffer (the tally adds billions).
  mutating func add(contentsOf values: UnsafeBufferPointer<Int64>, maximum: Int64) {
    let top = Self.bucket(of: maximum)
    if top >= counts.count { counts.append(contentsOf: repeatElement(0, count: top + 1 - counts.count)) }
    counts.withUnsafeMutableBufferPointer { counts in
      for value in values { counts[Self.bucket(of: value)] += 1 }
    }
    count += Int64(values.count)
  }

  /// Adds every count of `other`.
  public mutating func add(_ other: LatencyHistogram) {
    if other.counts.count > counts.count {
      counts.append(contentsOf: repeatElement(0, count: other.counts.count - counts.count))
    }
    for index in other.counts.indices { counts[index] += other.counts[index] }
    count += other.count
  }

  /// The values at the nearest-rank positions `indices` (0-based, ascending or not) of the sorted
  /// values: each its bucket's middle, kept within `minimum...maximum` (the exact extremes).
  func values(atIndices indices: [Int], minimum: Int64, maximum: Int64) -> [Int64] {
    let order = indices.indices.sorted { indices[$0] < indices[$1] }
    var results = [Int64](repeating: 0, count: indices.count)
    var bucket = 0
    var below: Int64 = 0
    for position in order {
      let index = Int64(indices[position])
      while bucket < counts.count && below + counts[bucket] <= index {
        below += counts[bucket]
        bucket += 1
      }
      let (low, high) = Self.bounds(of: min(bucket, counts.count - 1))
      results[position] = min(max(low + (high - low) / 2, minimum), maximum)
    }
    return results
  }
}
