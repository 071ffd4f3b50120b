import Testing

@testable import SimMetrics

/// The decision log keeps every activity: a public-database day at a million installs keeps about
/// ten million, so the record's size is part of the run's memory.
@Suite struct ActivityRecordTests {
  /// The small fields fill the gaps after the optional times: 64 bytes (88 in the order read).
  @Test func aRecordTakesSixtyFourBytes() {
    #expect(MemoryLayout<MetricsRecorder.ActivityRecord>.stride == 64)
  }
}
