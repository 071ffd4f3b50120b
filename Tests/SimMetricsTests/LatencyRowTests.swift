import SimKernel
import SimModel
import Testing

@testable import SimMetrics

@Suite struct LatencyRowTests {
  /// The galloping search from the last answer finds what a plain search from the start finds,
  /// for tokens in any order (a reset makes them fall back) and maxima with long flat runs.
  @Test func theSearchFromTheLastAnswerIsAPlainSearch() {
    var rng = RandomStream(seed: 4)
    for _ in 0..<200 {
      var maxima: [Int32] = []
      var highest: Int32 = 0
      for _ in 0..<Int(rng.nextInt(below: 60)) {
        highest += Int32(rng.nextInt(below: 3))
        maxima.append(highest)
      }
      var hint = 0
      for _ in 0..<40 {
        let token = Int32(rng.nextInt(below: UInt64(highest) + 3)) - 1
        let plain = maxima.firstIndex { $0 >= token }
        #expect(MetricsRecorder.TokensReached.first(reaching: token, in: maxima, hint: &hint) == plain)
      }
    }
  }

  /// The binary search over running maxima must pick the same import as a scan for the first
  /// import at or above the token, also where a reset makes the tokens fall back.
  @Test func theFirstImportReachingATokenMatchesAScanEvenWhenTokensFallBack() {
    var rng = RandomStream(seed: 7)
    var mismatches = 0
    var fallbacks = 0
    for _ in 0..<2_000 {
      var token: Int32 = 0
      let tokens = (0..<Int(rng.nextInt(below: 30))).map { _ -> Int32 in
        if rng.bernoulli(0.15) {
          token = Int32(rng.nextInt(below: UInt64(token) + 1))  // a reset: back to an earlier token
          fallbacks += 1
        } else {
          token += Int32(rng.nextInt(below: 5))
        }
        return token
      }
      let maxima = MetricsRecorder.TokensReached.runningMaximum(tokens)
      var hint = 0
      for target in Int32(0)...(token + 6) {
        let scanned = tokens.firstIndex { $0 >= target }
        if MetricsRecorder.TokensReached.first(reaching: target, in: maxima, hint: &hint) != scanned { mismatches += 1 }
      }
    }
    #expect(mismatches == 0)
    #expect(fallbacks > 1_000)
  }

  @Test func stagesReadAndWriteByNameAndByPosition() {
    var stages = StageDurations()
    for index in stages.indices { stages[index] = .seconds(Int64(index + 1)) }
    #expect(stages.save == .seconds(1) && stages.notify == .seconds(4) && stages.ui == .seconds(7))
    #expect(stages.reduce(.zero, +) == .seconds(28))
    #expect(stages.count == LatencyRow.stageNames.count)
  }
}
