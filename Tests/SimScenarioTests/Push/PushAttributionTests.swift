import Foundation
import SimKernel
import SimModel
import SimScenario
import SimTestSupport
import Testing

@testable import SimMetrics

/// Issue 54, items 6 and 7: a row's `notify.delivery` is the delivery of the push that brought
/// it, or nothing (later or lost pushes lent their 0.1 s each before); a batch the server refused
/// whole still counts as a request sent.
@Suite struct PushAttributionTests {
  /// The library scenario's recorder, its accounts run as one part (so that it sees every row).
  static func recorder(_ name: String) throws -> MetricsRecorder { try WorldRun.recorder(library: name) }

  /// Per row, the push events its observer saw while its notify stage ran.
  static func delivered(_ recorder: MetricsRecorder, _ row: LatencyRow) -> Bool {
    guard let committed = row.committedAt else { return false }
    let notified = committed + row.stages.notify
    return recorder.pushLog[row.observer.index].contains {
      $0.at >= committed && $0.at <= notified && [.delivered, .held, .deferred].contains($0.event)
    }
  }

  /// The force-quit receiver: no push is delivered while it is force-quit, and its rows waited
  /// for the app to be launched. Before: 226.5 s of delivery and 17,021 s of fan-out.
  @Test func aRowWithNoDeliveredPushHasNoDelivery() throws {
    let recorder = try Self.recorder("force-quit-receiver")
    var (rows, undelivered, notRunning) = (0, 0, SimDuration.zero)
    recorder.forEachLatencyRow { row in
      guard let causes = recorder.notifyCauses(row) else { return }
      rows += 1
      if !Self.delivered(recorder, row) {
        undelivered += 1
        #expect(causes[1] == .zero, "a row no push brought shows \(causes[1]) of delivery")
        #expect(causes[0] == .zero, "a row no push brought shows \(causes[0]) of fan-out")
      }
      notRunning += causes[5]
    }
    #expect(rows > 50 && undelivered > 50, "\(rows) rows, \(undelivered) undelivered")
    #expect(notRunning > .seconds(300_000), "\(notRunning)")
  }

  /// Pushes dropped or held (`ui-refresh-modes`: fan-out 1,844 → 1,361 s, delivery 40.5 → 31.3 s): every row's delivery is at most
  /// one hand-over, and only where a push reached the device in its window.
  @Test func deliveryIsOneHandOverAtMost() throws {
    let recorder = try Self.recorder("ui-refresh-modes")
    var (checked, withDelivery) = (0, 0)
    recorder.forEachLatencyRow { row in
      guard let causes = recorder.notifyCauses(row) else { return }
      checked += 1
      #expect(causes[1] <= recorder.pushDeliveryLatency, "\(causes[1]) of delivery")
      if causes[1] > .zero {
        withDelivery += 1
        #expect(Self.delivered(recorder, row))
      }
    }
    #expect(checked > 100 && withDelivery > 50, "\(checked) rows, \(withDelivery) with delivery")
  }

  /// A CKSyncEngine app whose batches are over the server's limit: the batches were sent and
  /// refused, and count as requests and bytes (0 and 0 before).
  @Test func refusedBatchesCountAsRequests() throws {
    let recorder = try Self.recorder("realworld-engine-batch-limit")
    #expect(recorder.counters.requestsUp == 2, "\(recorder.counters.requestsUp)")
    #expect(recorder.counters.bytesUp > 0)
    #expect(recorder.counters.cloudErrors[Int(CloudError.limitExceeded.position)] == 2)
  }
}
