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
  /// Past `exactLimit` values, the latencies are counted here instead of kept (`chunks` empty):
  /// percentiles within `LatencyHistogram.relativeErrorBound`; mean, minimum and maximum stay exact.
  public private(set) var histogram: LatencyHistogram?

  /// The values in ascending order, or nil when they were counted in a histogram.
  public func sortedValues() -> [Int64]? {
    guard histogram == nil else { return nil }
    return chunks.joined().sorted()
  }

  /// The values at most `bound`, in ascending order (every value when `bound` is the maximum).
  /// - Precondition: the values are kept (`histogram` is nil).
  func sortedValues(atMost bound: Int64) -> [Int64] {
    var values: [Int64] = []
    for chunk in chunks {
      for value in chunk where value <= bound { values.append(value) }
    }
    values.sort()
    return values
  }

  /// The value at `index` of the values in ascending order, found by narrowing histograms (no
  /// sort of them all); nil when they were counted in a histogram or `index` is out of range.
  func value(atSortedIndex index: Int) -> Int64? {
    guard histogram == nil, index >= 0, index < count else { return nil }
    guard minimum < maximum else { return minimum }
    return value(atIndex: index, in: Histogram(self, low: minimum, high: maximum).range(holding: index))
  }

  /// How many latencies are kept exactly: 2^22 (32 MB). Every library scenario stays below
  /// (the largest, `fleet-10k-public`, has 2.3 million visible rows); a million devices for a
  /// day (about 140 million) are counted. Whether a run is counted depends only on its total, so
  /// a run's parts, batches, threads or shards give the same summary.
  public static let defaultExactLimit = 1 << 22
  /// How many censoring times (`SummaryTally.censored`) are kept exactly: 2^20 (8 MB). Past it
  /// they are counted, and `latency.kaplanMeierP50` is empty: a public-database day at a
  /// million installs has hundreds of millions of rows never visible.
  public static let censoredExactLimit = 1 << 20

  /// An empty sample of censoring times, with their limit.
  public static func censoredSample() -> LatencySample {
    var sample = LatencySample()
    sample.exactLimit = censoredExactLimit
    return sample
  }

  /// This sample's limit (tests lower it; a merge keeps the receiver's).
  public var exactLimit = LatencySample.defaultExactLimit

  /// Whether the percentiles come from the histogram (approximate) rather than exact values.
  public var isApproximate: Bool { histogram != nil }

  public init() {}

  /// Adds one latency.
  public mutating func append(_ value: Int64) {
    if histogram != nil {
      histogram!.add(value)
      addToSums(value)
      return
    }
    if count >= exactLimit {
      countInHistogram()
      append(value)
      return
    }
    _ = prepareLastChunk(for: 1)
    chunks[chunks.count - 1].append(value)
    addToSums(value)
  }

  /// Counts `value` in the count, the exact sum and the extremes.
  @inline(__always)
  private mutating func addToSums(_ value: Int64) {
    count += 1
    let (low, overflow) = sumLow.addingReportingOverflow(UInt64(bitPattern: value))
    sumLow = low
    sumHigh += (value < 0 ? -1 : 0) + (overflow ? 1 : 0)
    minimum = Swift.min(minimum, value)
    maximum = Swift.max(maximum, value)
  }

  /// Moves the kept values into a histogram and keeps no more.
  private mutating func countInHistogram() {
    var counted = LatencyHistogram()
    for chunk in chunks { for value in chunk { counted.add(value) } }
    chunks = []
    histogram = counted
  }

  /// Adds every latency of `values`: the same sample as appending them one by one, in a tight
  /// loop (the summary's tally adds hundreds of millions).
  public mutating func append(contentsOf values: UnsafeBufferPointer<Int64>) {
    guard !values.isEmpty else { return }
    if histogram == nil && count + values.count > exactLimit { countInHistogram() }
    var (low, high, least, most) = (sumLow, sumHigh, minimum, maximum)
    var largest = Int64.min
    for value in values {
      let (sum, overflow) = low.addingReportingOverflow(UInt64(bitPattern: value))
      low = sum
      high += (value < 0 ? -1 : 0) + (overflow ? 1 : 0)
      least = Swift.min(least, value)
      largest = Swift.max(largest, value)
    }
    most = Swift.max(most, largest)
    (sumLow, sumHigh, minimum, maximum) = (low, high, least, most)
    count += values.count
    if var counted = histogram {
      histogram = nil
      counted.add(contentsOf: values, maximum: largest)
      histogram = counted
      return
    }
    var next = 0
    while next < values.count {
      let fitting = prepareLastChunk(for: values.count - next)
      chunks[chunks.count - 1].append(contentsOf: values[next..<next + fitting])
      next += fitting
    }
  }

  /// Adds every latency of `other` (copied a chunk at a time; the sums and extremes merge).
  public mutating func append(contentsOf other: LatencySample) {
    guard other.count > 0 else { return }
    if histogram != nil || other.histogram != nil || count + other.count > exactLimit {
      if histogram == nil { countInHistogram() }
      if let counted = other.histogram {
        histogram!.add(counted)
      } else {
        for chunk in other.chunks { for value in chunk { histogram!.add(value) } }
      }
      mergeSums(of: other)
      return
    }
    for chunk in other.chunks {
      var start = 0
      while start < chunk.count {
        let end = start + prepareLastChunk(for: chunk.count - start)
        chunks[chunks.count - 1].append(contentsOf: chunk[start..<end])
        start = end
      }
    }
    mergeSums(of: other)
  }

  /// Adds `other`'s count, sum and extremes.
  private mutating func mergeSums(of other: LatencySample) {
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
      fresh.reserveCapacity(Swift.min(Self.chunkSize, Swift.max(64, wanted)))
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
  public func percentile(_ p: Double) -> Int64? { percentiles([p])?.first }

  /// The nearest-rank percentiles `ps` (each in 0...1), or nil when empty: one histogram of every
  /// value serves them all, and one more pass gathers the buckets that hold them.
  public func percentiles(_ ps: [Double]) -> [Int64]? {
    guard count > 0 else { return nil }
    let indices = ps.map { p in Swift.max(0, Swift.min(count - 1, Int((p * Double(count)).rounded(.up)) - 1)) }
    guard minimum < maximum else { return indices.map { _ in minimum } }
    if let histogram { return histogram.values(atIndices: indices, minimum: minimum, maximum: maximum) }
    let top = Histogram(self, low: minimum, high: maximum)
    let ranges = indices.map { top.range(holding: $0) }
    // The buckets small enough to sort are gathered, each once, in one more pass over the values
    // (every value is in the top histogram's range: its bucket is a shift).
    var slotOfBucket = [Int32](repeating: -1, count: top.counts.count)
    var gathered: [[Int64]] = []
    for range in ranges where range.inside <= Self.sortLimit && slotOfBucket[range.bucket] < 0 {
      slotOfBucket[range.bucket] = Int32(gathered.count)
      gathered.append([])
      gathered[gathered.count - 1].reserveCapacity(range.inside)
    }
    if !gathered.isEmpty {
      let (low, shift) = (top.low, top.shift)
      slotOfBucket.withUnsafeBufferPointer { slots in
        for chunk in chunks {
          for value in chunk {
            let slot = slots[Int(truncatingIfNeeded: UInt64(bitPattern: value &- low) &>> shift)]
            if slot >= 0 { gathered[Int(slot)].append(value) }
          }
        }
      }
    }
    for slot in gathered.indices { gathered[slot].sort() }
    return zip(indices, ranges).map { index, range in
      let slot = range.inside <= Self.sortLimit ? Int(slotOfBucket[range.bucket]) : -1
      return slot >= 0 ? gathered[slot][index - range.below] : value(atIndex: index, in: range)
    }
  }

  /// Fewer values than this in a range are sorted rather than narrowed further.
  static let sortLimit = 1 << 16

  /// A range of values (a histogram's bucket), how many values lie below it and how many inside.
  struct Range {
    var low: Int64
    var high: Int64
    var below: Int
    var inside: Int
    var bucket: Int
  }

  /// Counts of the values in `low...high`, in 4,096 buckets a power of two wide: a value's bucket
  /// is a shift (a division per value made a 2,000-device fleet's summary wait 10 ms after its
  /// parts had run).
  struct Histogram {
    static let bucketBits = 12
    let low: Int64
    let high: Int64
    let shift: UInt64
    var counts: [Int]

    init(_ sample: LatencySample, low: Int64, high: Int64) {
      self.low = low
      self.high = high
      let span = UInt64(bitPattern: high &- low)
      shift = UInt64(Swift.max(0, (64 - span.leadingZeroBitCount) - Self.bucketBits))
      counts = [Int](repeating: 0, count: 1 << Self.bucketBits)
      let shift = shift
      counts.withUnsafeMutableBufferPointer { counts in
        for chunk in sample.chunks {
          for value in chunk where value >= low && value <= high {
            counts[Int(truncatingIfNeeded: UInt64(bitPattern: value &- low) &>> shift)] += 1
          }
        }
      }
    }

    /// The bucket that holds the value at `index` of the sorted values, given `below` values
    /// below this histogram's range.
    func range(holding index: Int, below: Int = 0) -> Range {
      var below = below
      var bucket = 0
      while below + counts[bucket] <= index {
        below += counts[bucket]
        bucket += 1
      }
      let start = low &+ Int64(bitPattern: UInt64(bucket) &<< shift)
      let widthLess1 = (1 as UInt64 &<< shift) &- 1
      let end = widthLess1 < UInt64(bitPattern: high &- start) ? start &+ Int64(bitPattern: widthLess1) : high
      return Range(low: start, high: end, below: below, inside: counts[bucket], bucket: bucket)
    }
  }

  /// The value at `index` of the sorted latencies, which lies in `range`: histograms narrow the
  /// range until few enough values are left to sort.
  func value(atIndex index: Int, in range: Range) -> Int64 {
    var range = range
    while true {
      if range.low == range.high { return range.low }
      if range.inside <= Self.sortLimit {
        var values: [Int64] = []
        values.reserveCapacity(range.inside)
        for chunk in chunks {
          for value in chunk where value >= range.low && value <= range.high { values.append(value) }
        }
        values.sort()
        return values[index - range.below]
      }
      range = Histogram(self, low: range.low, high: range.high).range(holding: index, below: range.below)
    }
  }
}

extension LatencySample {
  /// The sample as text lines (`TallyText`): its count, exact sum and extremes, then its values
  /// or its histogram's counts, so that a shard's sample merges as the unsharded run's parts do.
  func textLines(prefix: String = "latency") -> [String] {
    var lines = [
      "\(prefix).count \(count)", "\(prefix).sum \(sumHigh) \(sumLow)", "\(prefix).range \(minimum) \(maximum)",
    ]
    if let histogram {
      lines.append("\(prefix).histogram " + histogram.counts.map(String.init).joined(separator: " "))
    } else {
      lines.append("\(prefix).values " + chunks.joined().map(String.init).joined(separator: " "))
    }
    return lines
  }

  /// The sample `textLines` wrote; nil when a line is missing or malformed.
  init?(text: TallyText, prefix: String = "latency") {
    guard let count = text.integer("\(prefix).count").map(Int.init), let sum = text.fields("\(prefix).sum"),
      sum.count == 2, let high = Int64(sum[0]), let low = UInt64(sum[1]), let range = text.integers("\(prefix).range"),
      range.count == 2
    else { return nil }
    if let counts = text.integers("\(prefix).histogram") {
      histogram = LatencyHistogram(counts: counts)
      guard histogram!.count == Int64(count) else { return nil }
    } else {
      guard let values = text.integers("\(prefix).values"), values.count == count else { return nil }
      var start = 0
      while start < values.count {
        let end = Swift.min(values.count, start + Self.chunkSize)
        chunks.append(Array(values[start..<end]))
        start = end
      }
    }
    self.count = count
    (sumHigh, sumLow) = (high, low)
    (minimum, maximum) = (range[0], range[1])
  }
}

extension LatencySample {
  /// Why the sample `textLines` wrote cannot be what a run recorded, or nil when it can: a count,
  /// bound or value out of its range (latencies are non-negative and lie within the recorded
  /// minimum and maximum), or a sum that is not theirs. Checked before a shard's sample is merged,
  /// where a value outside the range would be read through an index computed from it.
  public static func problem(in text: TallyText, prefix: String = "latency") -> String? {
    guard let sample = LatencySample(text: text, prefix: prefix) else { return "\(prefix) lines malformed" }
    guard sample.count >= 0 else { return "latency.count is negative" }
    guard sample.count > 0 else { return nil }
    let (low, high) = (sample.minimum, sample.maximum)
    guard low >= 0, low <= high else { return "latency.range \(low) \(high) is not a range of latencies" }
    var sum: Int128 = 0
    if let histogram = sample.histogram {
      guard histogram.counts.count <= LatencyHistogram.bucket(of: Int64.max) + 1 else {
        return "latency.histogram has more buckets than any latency needs"
      }
      var total: Int64 = 0
      for (index, count) in histogram.counts.enumerated() where count != 0 {
        guard count > 0 else { return "latency.histogram has a negative count" }
        guard index >= LatencyHistogram.bucket(of: low), index <= LatencyHistogram.bucket(of: high) else {
          return "latency.histogram counts a value outside latency.range"
        }
        let (added, overflow) = total.addingReportingOverflow(count)
        guard !overflow else { return "latency.histogram's counts overflow" }
        total = added
      }
      guard total == Int64(sample.count) else { return "latency.histogram holds \(total) values, latency.count \(sample.count)" }
      // Each value lies in [low, high]: the sum must too, times the count.
      sum = Int128(sample.sumHigh) << 64 | Int128(sample.sumLow)
      guard sum >= Int128(low) * Int128(sample.count), sum <= Int128(high) * Int128(sample.count) else {
        return "latency.sum is not a sum of \(sample.count) values in latency.range"
      }
      return nil
    }
    var (least, most) = (Int64.max, Int64.min)
    for chunk in sample.chunks {
      for value in chunk {
        guard value >= low, value <= high else { return "latency value \(value) lies outside latency.range \(low) \(high)" }
        (least, most) = (Swift.min(least, value), Swift.max(most, value))
        sum += Int128(value)
      }
    }
    guard least == low, most == high else { return "latency.range is not the values' least and greatest" }
    guard sum == Int128(sample.sumHigh) << 64 | Int128(sample.sumLow) else { return "latency.sum is not the values' sum" }
    return nil
  }
}
