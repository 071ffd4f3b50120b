import SimKernel
import SimMetrics
import SimModel
import Testing

/// A recorder that takes a finished part's tables (`RecorderTables`) records exactly what a
/// fresh one does: the tables come emptied, with only their storage kept.
@Suite struct RecorderTablesTests {
  /// A part's recorder, its tally's text and its digest, from `tables` when given.
  func record(_ spec: WorldSpec, tables: RecorderTables? = nil) -> (MetricsRecorder, String, UInt64) {
    let recorder = MetricsRecorder(policyNames: spec.scheduler.policies.map(\.name), tables: tables)
    let outcome = WorldRunner.run(spec, sink: recorder)
    let tally = SummaryTally(recorder: recorder, events: outcome.processedEvents)
    return (recorder, tally.text, recorder.digest.combined(with: outcome.fingerprint).value)
  }

  @Test func aRecorderOnAnEarlierPartsTablesRecordsWhatAFreshOneDoes() {
    // The earlier part is the larger, so its tables hold more than the later part needs.
    let earlier = TestWorlds.privatePair(count: 3, editsPerHour: 40, hours: 3, seed: 7)
    let later = TestWorlds.privatePair(count: 2, editsPerHour: 20, hours: 2, seed: 8)
    let (fresh, freshTally, freshDigest) = record(later)
    let (done, _, _) = record(earlier)
    let doneActivities = done.activities.count
    let tables = done.takeTables()
    #expect(doneActivities > fresh.activities.count)
    #expect(tables.capacity >= doneActivities)
    let (reused, reusedTally, reusedDigest) = record(later, tables: tables)
    #expect(fresh.writeCount > 50)
    #expect(reused.writeCount == fresh.writeCount)
    #expect(reused.activities.count == fresh.activities.count)
    #expect(reusedTally == freshTally)
    #expect(reusedDigest == freshDigest)
    // The recorder that gave its tables away holds none.
    #expect(done.writeCount == 0 && done.activities.isEmpty)
  }
}
