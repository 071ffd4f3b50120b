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
  public var stages: [SimDuration]
  /// Time inside exportSchedule and importSchedule during which each policy blocked the activity,
  /// indexed by policy (the rest of each stage is decision latency, start delay or a running activity).
  public var exportBlockedByPolicy: [SimDuration]
  public var importBlockedByPolicy: [SimDuration]

  /// MODEL §10's stages.
  public static let stageNames = ["save", "exportSchedule", "upload", "notify", "importSchedule", "download", "ui"]

  /// Visibility − edit, for visible rows.
  public var latency: SimDuration? { visibleAt.map { $0 - editedAt } }
}
