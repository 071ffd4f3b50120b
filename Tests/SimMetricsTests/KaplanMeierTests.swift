import SimKernel
import Testing

@testable import SimMetrics

/// The Kaplan–Meier median sorts only the visible latencies up to the naive median's rank; these
/// check it against the textbook estimate over every value, written here apart.
@Suite struct KaplanMeierTests {
  /// The product-limit estimate over all values, sorted whole: the smallest time at which the
  /// share still not visible is at most one half, in seconds.
  func reference(_ visible: [Int64], _ censored: [Int64]) -> Double? {
    let times = Set(visible).sorted()
    var survival = 1.0
    for time in times {
      let atRisk = visible.filter { $0 >= time }.count + censored.filter { $0 >= time }.count
      let events = visible.filter { $0 == time }.count
      survival *= 1 - Double(events) / Double(atRisk)
      if survival <= 0.5 + 1e-12 { return Double(time) / 1e9 }
    }
    return nil
  }

  func sample(_ values: [Int64]) -> LatencySample {
    var sample = LatencySample()
    for value in values { sample.append(value) }
    return sample
  }

  @Test func theMedianIsTheWholeSortsAnswerWithTiesAndCensoring() {
    var random = RandomStream(seed: 75)
    var checked = 0
    for round in 0..<60 {
      let visibleCount = 1 + Int(random.nextUnit() * 400)
      let censoredCount = round % 3 == 0 ? 0 : Int(random.nextUnit() * Double(visibleCount) * 1.5)
      // Whole seconds, so that ties are common; censored rows anywhere in the range.
      let visible = (0..<visibleCount).map { _ in Int64(1 + Int(random.nextUnit() * 60)) * 1_000_000_000 }
      let censored = (0..<censoredCount).map { _ in Int64(Int(random.nextUnit() * 90)) * 1_000_000_000 }
      let expected = reference(visible, censored)
      #expect(KaplanMeier.median(events: sample(visible), censored: sample(censored)) == expected)
      if expected != nil { checked += 1 }
    }
    #expect(checked > 30)
  }

  @Test func aKnownMedianWithRowsCensoredEarly() {
    // Five visible at 1..5 s, three censored at 0.5 s: after them 5 at risk, so the survival
    // falls 4/5, 3/5, 2/5 at 1, 2, 3 s: the median is 3 s. Without censoring it would be 3 s too
    // (5 rows), and with three censored at 10 s (8 at risk) it is 4 s (7/8 … 3/8 at 5 s: 4/8 at 4 s).
    let visible: [Int64] = [1, 2, 3, 4, 5].map { $0 * 1_000_000_000 }
    #expect(KaplanMeier.median(events: sample(visible), censored: sample([500_000_000, 500_000_000, 500_000_000])) == 3)
    #expect(KaplanMeier.median(events: sample(visible), censored: sample([])) == 3)
    let late: [Int64] = [10, 10, 10].map { $0 * 1_000_000_000 }
    #expect(KaplanMeier.median(events: sample(visible), censored: sample(late)) == 4)
    // Three of four rows censored after the one visible row: the survival stops at 3/4.
    let after: [Int64] = [5, 5, 5].map { $0 * 1_000_000_000 }
    #expect(KaplanMeier.median(events: sample([1_000_000_000]), censored: sample(after)) == nil)
  }

  @Test func theValueAtASortedIndexIsTheSortedValue() {
    var random = RandomStream(seed: 7)
    let values = (0..<5_000).map { _ in Int64(random.nextUnit() * 1e12) }
    let latencies = sample(values)
    let sorted = values.sorted()
    for index in [0, 1, 2_499, 2_500, 4_998, 4_999] {
      #expect(latencies.value(atSortedIndex: index) == sorted[index])
    }
    #expect(latencies.value(atSortedIndex: 5_000) == nil)
    #expect(latencies.sortedValues(atMost: sorted[99]) == Array(sorted.prefix(100)))
  }
}
