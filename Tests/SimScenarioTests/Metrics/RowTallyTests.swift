import Foundation
import SimScenario
import SimTestSupport
import Testing

@testable import SimMetrics

/// Issue 37: the summary's rows are tallied without building them (`MetricsRecorder.rowTally`);
/// the tally must be the one a pass over the rows gives, on the outcomes that take each path.
@Suite struct RowTallyTests {
  /// The library scenario `name`'s recorder after its run.
  static func recorder(_ name: String) throws -> MetricsRecorder {
    let file = packageRoot + "/Scenarios/\(name).json"
    let scenario = try ScenarioDecoder.decode(Array(try Data(contentsOf: URL(fileURLWithPath: file))), file: file).0
    return ScenarioRunner.run(scenario, jobs: 1).recorder
  }

  /// The tally of a pass over the rows, as the summary counted them before.
  static func reference(_ recorder: MetricsRecorder) -> MetricsRecorder.RowTally {
    var tally = MetricsRecorder.RowTally()
    recorder.forEachLatencyRow { tally.add($0, endTime: recorder.endTime) }
    return tally
  }

  /// Public deletes (ghosts), rows never imported, hidden records of a newer model version,
  /// and a shared zone with many observers.
  @Test(arguments: ["public-production", "mixed-model-versions", "shared-list", "offline-push-storm"])
  func theTallyIsThePassOverTheRows(name: String) throws {
    let recorder = try Self.recorder(name)
    let fast = recorder.rowTally()
    let reference = Self.reference(recorder)
    #expect(fast.difference(from: reference) == nil)
    #expect(fast.rowCount > 100)
    #expect(fast.latencies.count > 0)
    #expect(fast.rowCount == reference.rowCount && fast.latencies.count == reference.latencies.count)
  }

  /// Shared between threads, a zone's observers give the same tally, its exact latencies in the
  /// same order (a shard's tally file writes them so).
  @Test(arguments: ["public-production", "mixed-model-versions", "shared-list", "offline-push-storm"])
  func threadsGiveTheSameTally(name: String) throws {
    let recorder = try Self.recorder(name)
    let one = recorder.rowTally()
    for threads in [2, 3, 5] {
      let shared = recorder.rowTally(threads: threads, minimumShare: 1)
      #expect(shared.difference(from: one) == nil, "\(threads) threads")
      #expect(shared.latencies.textLines() == one.latencies.textLines(), "\(threads) threads")
      #expect((shared.hiddenRows, shared.notVisibleRows) == (one.hiddenRows, one.notVisibleRows))
    }
    #expect(one.latencies.count > 0)
  }

  @Test func theScenariosReachEveryOutcome() throws {
    #expect(Self.reference(try Self.recorder("mixed-model-versions")).hiddenRows > 0)
    #expect(Self.reference(try Self.recorder("public-production")).notVisibleRows > 0)
  }

  /// The audit names what differs: a tally one latency or one nanosecond off is caught.
  @Test func aDifferenceIsNamed() throws {
    let reference = Self.reference(try Self.recorder("shared-list"))
    var off = reference
    off.stageSums[3] += 1
    #expect(off.difference(from: reference)?.hasPrefix("stage notify sums to") == true)
    off = reference
    off.latencies.append(1)
    #expect(off.difference(from: reference)?.hasPrefix("latencies differ") == true)
    off = reference
    off.notVisibleRows += 1
    #expect(off.difference(from: reference) != nil)
  }
}
