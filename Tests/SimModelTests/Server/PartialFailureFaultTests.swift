import SimKernel
import SimMetrics
import Testing

@testable import SimModel

/// A record fault written outside SyncSim, as a contributor would: each record of a modify
/// request fails on its own with `probability` (CKError.partialFailure with a per-record
/// retryable error), and the client sends the failed ones again after `retryAfter`.
struct PartialFailureFault: RecordFault {
  var probability: Double
  var retryAfter = SimDuration.seconds(2)
  var error: CloudError { .partialFailure }

  func answer(
    _ request: ModifyRequest, server: CloudServer, random: inout RandomStream, failed: inout [RecordFailure]
  ) -> RecordOutcome? {
    for record in 0..<request.records where random.bernoulli(probability) {
      failed.append(RecordFailure(position: Int32(record), error: .serviceUnavailable, retryAfter: retryAfter))
    }
    return failed.isEmpty ? nil : .recordsFailed
  }
}

@Suite struct PartialFailureFaultTests {
  @Test func aTenthOfTheRecordsFailAndAreRetriedAndEveryWriteCommits() {
    var spec = SchedulerTests.quietPair(hours: 1)
    spec.extraRecordFaults = [PartialFailureFault(probability: 0.1)]  // the one registration
    spec.timeline = [at(10, [0], .bulkInsert(count: 1000, entity: 0, oneSave: true, over: .zero))]
    let (log, recorder, outcome) = runLogged(spec)
    let uploaded = log.observations.reduce(0) {
      if case .request(_, true, let records, _, _) = $1 { return $0 + Int(records) }
      return $0
    }
    let partialFailures = log.observations.filter {
      if case .cloudError(_, .partialFailure, let retryAfter, _) = $0 { return retryAfter == .seconds(2) }
      return false
    }
    // Every failed record is uploaded once more: 1,000 records plus the retried ones.
    let retried = uploaded - 1000
    #expect((70...130).contains(retried), "retried \(retried)")
    #expect(partialFailures.count >= 3)  // at least one per first-round batch
    #expect(recorder.writeAccounting().committed == 1000)
    #expect(outcome.converged)
    #expect(recorder.writeAccounting().lost == 0)
  }

  @Test func withoutTheFaultTheSameInsertUploadsEachRecordOnce() {
    var spec = SchedulerTests.quietPair(hours: 1)
    spec.timeline = [at(10, [0], .bulkInsert(count: 1000, entity: 0, oneSave: true, over: .zero))]
    let (log, recorder, _) = runLogged(spec)
    let uploaded = log.observations.reduce(0) {
      if case .request(_, true, let records, _, _) = $1 { return $0 + Int(records) }
      return $0
    }
    #expect(uploaded == 1000)
    #expect(recorder.writeAccounting().committed == 1000)
  }
}
