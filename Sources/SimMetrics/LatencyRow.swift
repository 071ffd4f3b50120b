import SimKernel
import SimModel

/// One (write, observer device) pair: when the observer saw the write, and why it took that long.
public struct LatencyRow: Sendable {
  public var write: WriteID
  public var writer: DeviceID
  public var observer: DeviceID
  public var kind: EditKind
  public var outcome: WriteOutcome
  public var editedAt: SimTime
  /// When the write committed at the server, if it did.
  public var committedAt: SimTime?
  /// Nil unless `outcome == .visible`.
  public var visibleAt: SimTime?
  /// Durations of the seven stages, in `LatencyRow.stageNames` order; they sum to the latency.
  public var stages = StageDurations()
  /// For a visible row, the recorder's indices of the export that carried the write and of the
  /// import that fetched it (−1 otherwise): `MetricsRecorder.blockedByPolicy(_:)` reads them.
  var exportActivity: Int32 = -1
  var importActivity: Int32 = -1

  /// MODEL §10's stages.
  public static let stageNames = ["save", "exportSchedule", "upload", "notify", "importSchedule", "download", "ui"]

  /// Visibility − edit, for visible rows.
  public var latency: SimDuration? { visibleAt.map { $0 - editedAt } }
}
