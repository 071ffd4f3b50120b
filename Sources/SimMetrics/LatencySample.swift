/// Every visible row's save-to-visible latency, in nanoseconds: exact percentiles, maximum and
/// mean of millions of rows in 8 bytes a row.
///
/// Kept in chunks of a fixed size, so that a run of 100 million rows never holds a doubled
/// array while it grows; percentiles are found by narrowing histograms over the chunks (a few
/// passes, no sorted copy). The sum is exact (128 bits), so the mean does not depend on the
/// order in which rows were added.
public struct LatencySample: Sendable {
  static let chunkSize = 1 << 20
  private var chunks: [[Int64]] = []
  public private(set) var count = 0
  private var sumHigh: Int64 = 0
  private var sumLow: UInt64 = 0
  public private(set) var minimum = Int64.max
  public private(set) var maximum = Int64.min

  public init() {}

  /// Adds one latency.
  public mutating func append(_ value: Int64) {
    _ = prepareLastChunk(for: 1)
    chunks[chunks.count - 1].append(value)
    count += 1
    let (low, overflow) = sumLow.addingReportingOverflow(UInt64(bitPattern: value))
    sumLow = low
    sumHigh += (value < 0 ? -1 : 0) + (overflow ? 1 : 0)
    minimum = Swift.min(minimum, value)
    maximum = Swift.max(maximum, value)
  }

  /// Adds every latency of `other` (copied a chunk at a time; the sums and extremes merge).
  public mutating func append(contentsOf other: LatencySample) {
    guard other.count > 0 else { return }
    for chunk in other.chunks {
      var start = 0
      while start < chunk.count {
        let end = start + prepareLastChunk(for: chunk.count - start)
        chunks[chunks.count - 1].append(contentsOf: chunk[start..<end])
        start = end
      }
    }
    count += other.count
    let (low, overflow) = sumLow.addingReportingOverflow(other.sumLow)
    sumLow = low
    sumHigh += other.sumHigh + (overflow ? 1 : 0)
    minimum = Swift.min(minimum, other.minimum)
    maximum = Swift.max(maximum, other.maximum)
  }

  /// Makes the last chunk ready for up to `wanted` more values and returns how many fit in it: a
  /// new chunk when the last is full, and the last one's capacity doubled as it fills (most parts
  /// have a few hundred rows, so a chunk starts small), never beyond `chunkSize`.
  private mutating func prepareLastChunk(for wanted: Int) -> Int {
    if chunks.isEmpty || chunks[chunks.count - 1].count == Self.chunkSize {
      var fresh: [Int64] = []
      fresh.reserveCapacity(Swift.min(Self.chunkSize, Swift.max(1024, wanted)))
      chunks.append(fresh)
    }
    let last = chunks.count - 1
    let fitting = Swift.min(wanted, Self.chunkSize - chunks[last].count)
    if chunks[last].capacity < chunks[last].count + fitting {
      chunks[last].reserveCapacity(
        Swift.min(Self.chunkSize, Swift.max(chunks[last].capacity * 2, chunks[last].count + fitting)))
    }
    return fitting
  }

  /// The mean, or nil when empty.
  public var mean: Double? {
    guard count > 0 else { return nil }
    return (Double(sumHigh) * 18_446_744_073_709_551_616.0 + Double(sumLow)) / Double(count)
  }

  /// The nearest-rank `p` percentile (`p` in 0...1), or nil when empty.
  public func percentile(_ p: Double) -> Int64? {
    guard count > 0 else { return nil }
    let rank = Int((p * Double(count)).rounded(.up))
    return value(atIndex: Swift.max(0, Swift.min(count - 1, rank - 1)))
  }

  /// The value at `index` of the sorted latencies: histograms narrow the range that holds it
  /// until few enough values are left to sort.
  func value(atIndex index: Int) -> Int64 {
    var (low, high, below) = (minimum, maximum, 0)
    while true {
      if low == high { return low }
      var inside = 0
      for chunk in chunks { for value in chunk where value >= low && value <= high { inside += 1 } }
      if inside <= 1 << 16 {
        var values: [Int64] = []
        values.reserveCapacity(inside)
        for chunk in chunks { for value in chunk where value >= low && value <= high { values.append(value) } }
        values.sort()
        return values[index - below]
      }
      let buckets = 4096
      let width = (UInt64(bitPattern: high &- low) / UInt64(buckets)) &+ 1
      var histogram = [Int](repeating: 0, count: buckets)
      for chunk in chunks {
        for value in chunk where value >= low && value <= high {
          histogram[Int(UInt64(bitPattern: value &- low) / width)] += 1
        }
      }
      var bucket = 0
      while below + histogram[bucket] <= index {
        below += histogram[bucket]
        bucket += 1
      }
      let start = low &+ Int64(bitPattern: UInt64(bucket) &* width)
      high = Swift.min(high, start &+ Int64(bitPattern: width &- 1))
      low = start
    }
  }
}
