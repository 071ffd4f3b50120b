import SimKernel
import Testing

@testable import SimMetrics

/// Exact percentiles and mean of a large sample, without a sorted copy.
@Suite struct LatencySampleTests {
  /// Nearest-rank percentile of sorted values (what the summary reported before the sample).
  static func nearestRank(_ sorted: [Int64], _ p: Double) -> Int64 {
    let rank = Int((p * Double(sorted.count)).rounded(.up))
    return sorted[max(0, min(sorted.count - 1, rank - 1))]
  }

  @Test func percentilesAreExactOnManyValuesWithTiesAndOutliers() {
    var rng = RandomStream(seed: 5)
    // 300,000 values over two chunks: many ties (milliseconds), a long tail, negatives.
    var values: [Int64] = []
    for index in 0..<300_000 {
      let draw = rng.nextUnit()
      values.append(index % 1000 == 0 ? Int64(draw * 1e15) : Int64(draw * 5_000) * 1_000_000 - 7)
    }
    values.append(-3)
    var sample = LatencySample()
    for value in values { sample.append(value) }
    let sorted = values.sorted()
    #expect(sample.count == values.count)
    let ps = [0.0, 0.001, 0.5, 0.9, 0.95, 0.99, 0.999, 1.0]
    for p in ps {
      #expect(sample.percentile(p) == Self.nearestRank(sorted, p), "p = \(p)")
    }
    // Together (one histogram for all, ranges gathered in one pass) as one by one.
    #expect(sample.percentiles(ps) == ps.map { Self.nearestRank(sorted, $0) })
    #expect(sample.percentiles([0.5, 0.5, 0.5001]) == [0.5, 0.5, 0.5001].map { Self.nearestRank(sorted, $0) })
    #expect(sample.maximum == sorted.last)
    #expect(sample.minimum == sorted.first)
  }

  @Test func percentilesAreExactAcrossTheWholeInt64Range() {
    // Power-of-two buckets over a span of 2^64 − 1, and a last bucket that ends at Int64.max.
    var rng = RandomStream(seed: 11)
    var values: [Int64] = [.min, .max, .max, .max - 1]
    for index in 0..<200_000 {
      let bits = Int64(bitPattern: rng.next())
      values.append(index % 3 == 0 ? .max - (bits & 0xFFFF) : bits)
    }
    var sample = LatencySample()
    for value in values { sample.append(value) }
    let sorted = values.sorted()
    for p in [0.0, 0.25, 0.5, 0.66, 0.67, 0.9, 0.999, 1.0] {
      #expect(sample.percentile(p) == Self.nearestRank(sorted, p), "p = \(p)")
    }
  }

  @Test func theMeanIsExactBeyondWhatInt64Holds() throws {
    var sample = LatencySample()
    // 4 × 4e18 overflows Int64; the 128-bit sum does not.
    for _ in 0..<4 { sample.append(4_000_000_000_000_000_000) }
    sample.append(1)
    #expect(try #require(sample.mean) == (16e18 + 1) / 5)
    #expect(LatencySample().mean == nil)
    #expect(LatencySample().percentile(0.5) == nil)
  }

  @Test func appendingSamplesInPartOrderIsAppendingTheirValues() {
    var (a, b, both) = (LatencySample(), LatencySample(), LatencySample())
    for value in stride(from: Int64(1), through: 5_000, by: 3) {
      a.append(value)
      both.append(value)
    }
    for value in stride(from: Int64(9_000), through: 2, by: -7) {
      b.append(value)
      both.append(value)
    }
    a.append(contentsOf: b)
    #expect(a.count == both.count)
    #expect(a.mean == both.mean)
    for p in [0.1, 0.5, 0.99] { #expect(a.percentile(p) == both.percentile(p)) }
  }
}

/// A sample written as a shard's text and read back is the same sample, exact or counted.
@Suite struct LatencySampleTextTests {
  @Test func aSampleReadBackFromTextMergesAsTheOriginal() throws {
    for limit in [1_000, 50] {
      var first = LatencySample()
      first.exactLimit = limit
      var second = first
      for value in 0..<60 { first.append(Int64(value * 1_000_003 % 7_919) * 1_000) }
      for value in 0..<40 { second.append(Int64(value * 7_777 % 104_729) * 10_000) }
      let read = try #require(LatencySample(text: TallyText(first.textLines().joined(separator: "\n"))))
      #expect(read.count == first.count && read.mean == first.mean)
      #expect(read.isApproximate == first.isApproximate)
      #expect(read.percentiles([0.5, 0.9, 0.99]) == first.percentiles([0.5, 0.9, 0.99]))
      var merged = first
      merged.append(contentsOf: second)
      var mergedRead = read
      mergedRead.exactLimit = limit
      mergedRead.append(contentsOf: second)
      #expect(mergedRead.percentiles([0.5, 0.95]) == merged.percentiles([0.5, 0.95]))
      #expect(mergedRead.mean == merged.mean && mergedRead.maximum == merged.maximum)
    }
    #expect(
      LatencySample(text: TallyText("latency.count 2\nlatency.sum 0 3\nlatency.range 1 2\nlatency.values 1")) == nil)
  }
}

/// Issue 37: the tally adds an observer's latencies at once; the sample must be the one appending
/// them one by one makes, below, across and past the exact limit.
@Suite struct LatencySampleBulkTests {
  @Test func appendingABufferIsAppendingEachValue() {
    var random = SplitMix64(seed: 9)
    let values = (0..<5_000).map { _ in Int64(random.next() % 90_000_000_000_000) - 1_000 }
    for limit in [10_000, 3_000, 100] {
      var one = LatencySample()
      var bulk = LatencySample()
      one.exactLimit = limit
      bulk.exactLimit = limit
      for chunk in stride(from: 0, to: values.count, by: 700) {
        let slice = Array(values[chunk..<min(values.count, chunk + 700)])
        for value in slice { one.append(value) }
        slice.withUnsafeBufferPointer { bulk.append(contentsOf: $0) }
      }
      #expect(one.isApproximate == (limit < values.count) && bulk.isApproximate == one.isApproximate)
      #expect(one.count == 5_000 && bulk.count == one.count)
      #expect(bulk.mean == one.mean && bulk.minimum == one.minimum && bulk.maximum == one.maximum)
      let probes = [0.0, 0.01, 0.5, 0.9, 0.99, 1]
      #expect(bulk.percentiles(probes) == one.percentiles(probes))
    }
  }
}
