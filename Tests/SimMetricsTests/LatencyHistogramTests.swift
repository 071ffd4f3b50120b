import SimKernel
import Testing

@testable import SimMetrics

/// The histogram that summarises large runs: bucket bounds, the error bound on percentiles, and
/// merges that equal the histogram of the union whatever their order.
@Suite struct LatencyHistogramTests {
  /// Latencies as a large run has them: lognormal around 4 s, from a millisecond to hours.
  func latencies(_ count: Int, seed: UInt64) -> [Int64] {
    var random = RandomStream(seed: seed)
    let distribution = Distribution.lognormal(median: 4, p99: 600)
    return (0..<count).map { _ in distribution.sampleDuration(using: &random).nanoseconds }
  }

  @Test func everyValueLiesInItsBucketAndABucketIsAtMostATenHundredTwentyFourthOfItsValue() {
    var values: [Int64] = [0, 1, 1023, 1024, 1025, 2047, 2048, 1 << 40, Int64.max]
    values += latencies(10_000, seed: 5)
    for value in values {
      let bucket = LatencyHistogram.bucket(of: value)
      let (low, high) = LatencyHistogram.bounds(of: bucket)
      #expect(low <= value && value <= high, "\(value) outside [\(low), \(high)]")
      #expect(Double(high - low) <= Double(low) / 1024, "bucket of \(value) too wide")
    }
    // Buckets are in value order.
    #expect(LatencyHistogram.bucket(of: 2047) < LatencyHistogram.bucket(of: 2048))
    #expect(LatencyHistogram.bounds(of: LatencyHistogram.bucket(of: 2048)).low == 2048)
  }

  @Test func percentilesAreWithinTheBoundOfTheExactOnesAndMeanAndMaxStayExact() {
    let values = latencies(200_000, seed: 7)
    var exact = LatencySample()
    var counted = LatencySample()
    counted.exactLimit = 1000
    for value in values {
      exact.append(value)
      counted.append(value)
    }
    #expect(!exact.isApproximate && counted.isApproximate)
    let ps = [0.001, 0.25, 0.5, 0.9, 0.95, 0.99, 0.999]
    let truth = exact.percentiles(ps)!
    let approximate = counted.percentiles(ps)!
    for (t, a) in zip(truth, approximate) {
      #expect(abs(Double(a - t)) <= Double(t) * LatencyHistogram.relativeErrorBound + 1, "\(a) vs \(t)")
    }
    #expect(counted.mean == exact.mean)
    #expect(counted.maximum == exact.maximum && counted.minimum == exact.minimum)
    #expect(LatencyHistogram.relativeErrorBound < 0.0005)
  }

  @Test func mergingGivesTheHistogramOfTheUnionInAnyOrder() {
    let parts = (0..<6).map { latencies(3000 + $0 * 500, seed: UInt64(20 + $0)) }
    var whole = LatencyHistogram()
    for part in parts { for value in part { whole.add(value) } }
    var forward = LatencyHistogram()
    var backward = LatencyHistogram()
    for part in parts {
      var histogram = LatencyHistogram()
      for value in part { histogram.add(value) }
      forward.add(histogram)
    }
    for part in parts.reversed() {
      var histogram = LatencyHistogram()
      for value in part { histogram.add(value) }
      backward.add(histogram)
    }
    #expect(forward == whole && backward == whole)
    #expect(whole.count == Int64(parts.map(\.count).reduce(0, +)))
  }

  @Test func aSampleIsCountedExactlyWhenItsTotalPassesTheLimitHoweverItWasMerged() {
    let parts = (0..<5).map { latencies(400, seed: UInt64(40 + $0)) }
    // Appended one by one, or merged part by part in two different groupings: the same summary.
    var oneByOne = LatencySample()
    oneByOne.exactLimit = 1500
    for part in parts { for value in part { oneByOne.append(value) } }
    var merged = LatencySample()
    merged.exactLimit = 1500
    for part in parts {
      var sample = LatencySample()
      for value in part { sample.append(value) }
      merged.append(contentsOf: sample)
    }
    var pairs = LatencySample()
    pairs.exactLimit = 1500
    for start in stride(from: 0, to: parts.count, by: 2) {
      var pair = LatencySample()
      for part in parts[start..<min(start + 2, parts.count)] { for value in part { pair.append(value) } }
      pairs.append(contentsOf: pair)
    }
    let ps = [0.5, 0.9, 0.99]
    #expect(oneByOne.isApproximate && merged.isApproximate && pairs.isApproximate)
    #expect(oneByOne.percentiles(ps) == merged.percentiles(ps))
    #expect(pairs.percentiles(ps) == merged.percentiles(ps))
    #expect(oneByOne.histogram == merged.histogram && pairs.histogram == merged.histogram)
    // At the limit or below, exact.
    var small = LatencySample()
    small.exactLimit = 2000
    for part in parts.prefix(5) { for value in part { small.append(value) } }
    #expect(!small.isApproximate)
  }

  /// Latencies added a buffer at a time (as the tally adds an observer's) count as one by one:
  /// growing past the largest bucket so far, with negative values and a value alone.
  @Test func buffersCountAsValuesOneByOne() {
    var values = latencies(50_000, seed: 11)
    values[100] = -5
    values[20_000] = 1 << 50
    var one = LatencySample()
    var batched = LatencySample()
    one.exactLimit = 500
    batched.exactLimit = 500
    for value in values { one.append(value) }
    for start in stride(from: 0, to: values.count, by: 777) {
      values[start..<min(values.count, start + 777)].withUnsafeBufferPointer { batched.append(contentsOf: $0) }
    }
    #expect(batched.isApproximate)
    #expect(batched.textLines() == one.textLines())
    #expect(batched.histogram == one.histogram && batched.maximum == 1 << 50 && batched.minimum == -5)
  }
}
