import SimKernel
import SimModel

/// One (write, observer device) pair: when the observer saw the write, and why it took that long.
public struct LatencyRow: Sendable {
  public var write: WriteID
  /// The zone and the object (record) the write changed: object ids are per zone.
  public var zone = ZoneID.none
  public var object = ObjectID(0)
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
  /// For a row that never became visible, the first `knownStages` are the time spent so far
  /// (the last of them up to the end of the run), and the rest did not begin.
  public var stages = StageDurations()
  public var knownStages = 0
  /// For a row that never became visible: the stage it was in when the run ended, and what held
  /// it there (a policy, a wait cause, the observer's state, the loss's reason).
  public var stuckStage: String?
  public var stuckCause: String?
  /// For a visible row, the recorder's indices of the export that carried the write and of the
  /// import that fetched it (−1 otherwise): `MetricsRecorder.exportSplit(_:)` reads them.
  var exportActivity: Int32 = -1
  var importActivity: Int32 = -1
  /// The observer's store that the row is about, and the writer's store.
  var observerStore = StoreID.none
  var writerStore = StoreID.none

  /// spec §10's stages.
  public static let stageNames = ["save", "exportSchedule", "upload", "notify", "importSchedule", "download", "ui"]

  /// The causes the notify stage is split into (`MetricsRecorder.notifyCauses`), in order: push
  /// fan-out, APNs's hand-over to the device, held by the hourly budget, deferred by Low Power
  /// Mode, stored while offline, no push at all with the app not running (force-quit, until a
  /// launch), the next public-database poll, and no push for a running app (dropped or discarded:
  /// it imported on its own, at an activation or a nudge), a ghost's, the time after the
  /// observer's store stopped syncing, a push APNs withheld (the app not launched for a while),
  /// and the container setting the store up on its first use (after the app launched, before
  /// the store's first activity). A wait with no push is booked by the app's state at each
  /// instant: not running, setting up, or running (issue 72: one state, one cause).
  public static let notifyCauseNames = [
    "fanout", "delivery", "held", "deferred", "stored", "notRunning", "pollWait", "noPush", "ghost", "storeDisabled",
    "withheld", "setup",
  ]

  /// Why a scheduling stage waited with no activity of its chain behind it
  /// (`exportHeld.<name>`, `importHeld.<name>`; `StageSplit.held`), in order.
  public static let heldNames = HoldLog.Reason.allCases.map(\.name)

  /// The parts of the upload and download stages that are not transfer (`transferSplit`): the
  /// activity's process suspended mid-transfer, and a hidden row's download, which no download took.
  public static let transferCauseNames = ["upload.suspended", "download.suspended", "download.hidden"]

  /// Visibility − edit, for visible rows.
  public var latency: SimDuration? { visibleAt.map { $0 - editedAt } }
}
