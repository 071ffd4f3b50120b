import Testing

@testable import SimMetrics

/// The decision log keeps every activity: a public-database day at a million installs keeps about
/// ten million, so the record's size is part of the run's memory.
@Suite struct ActivityRecordTests {
  /// Times without optionals' tags, and the blocked intervals kept apart: 48 bytes (64 before,
  /// 88 with the fields in the order read).
  @Test func aRecordTakesFortyEightBytes() {
    #expect(MemoryLayout<MetricsRecorder.ActivityRecord>.stride == 48)
  }
}
