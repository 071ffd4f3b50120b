import SimKernel

/// Everything a run needs: the world, its parameters and its script. Built by a scenario or by
/// tests in Swift. Every parameter starts at docs/specification.md's default.
public struct WorldSpec: Sendable {
  /// The root seed of every random stream.
  public var seed: UInt64 = 1
  /// How long to simulate.
  public var duration = SimDuration.hours(1)
  public var server = ServerParameters()
  public var push = PushParameters()
  public var scheduler = SchedulerParameters()
  public var polling = PollingParameters()
  /// Whether a second export request is dropped while one is pending. [A] TN3163 error 134417.
  public var exportRequestCoalescing = true
  /// The time of day at the run's start (`start`), for clock times and hourly usage; nil when the
  /// scenario gives none (offsets only).
  public var clockStart: SimDuration?
  /// The app's entities; edits pick from these.
  public var entities: [EntityDescription] = [EntityDescription(name: "Item")]
  /// Number of iCloud accounts.
  public var accountCount = 1
  /// The devices, each signed in to an account.
  public var devices: [DeviceSpec] = []
  /// Scripted actions.
  public var timeline: [TimelineAction] = []
  /// When set, CloudKit refuses the model: every syncing store's setup fails with this code
  /// (134060) and nothing syncs — a scenario simulating an incompatible model.
  public var modelRejectionCode: Int32?
  /// Whether every processed event is reported (for `trace.csv`).
  public var traceEvents = false
  /// Report every store's objects at the end (`Observation.objectState`, for `objects.csv`).
  public var reportObjects = false
  /// Whether public-database stores replay their copies rather than keep them
  /// (`ClientHost+ReplayedStores`): the same run in a fraction of the memory. Tests turn it off to
  /// check that nothing changes.
  public var replaysStores = true
  /// A ceiling on processed events (a guard against runaway scenarios).
  public var maxEvents = WorldSpec.defaultMaxEvents
  /// The ceiling a run not accepted over the estimate's limits stops at (and `RunEstimate`'s
  /// event limit): about five minutes at the slowest rate measured, the million-install
  /// public-database day (200.8 M events in 247 s on 2 cores; 200 M cut that day short).
  public static let defaultMaxEvents = 250_000_000
  /// The fewest writes made between two releases of unreferenced writes (`WriteTable`); tests set
  /// 1 to release at every write and check that nothing changes.
  var writeReleaseMinimum = 4096
  /// Record faults asked after SyncSim's own (`RecordFaults`): a test's or a researcher's.
  var extraRecordFaults: [any RecordFault] = []
  /// Request faults asked after SyncSim's own (`RequestFaults.Standard`): a test's, for a
  /// reaction no registered fault declares on some path.
  var extraRequestFaults: [any RequestFault] = []

  public init() {}

  /// The errors this world's summary reports (`errors.*` columns): those always reported and
  /// those its request faults can raise.
  public var reportedErrors: [CloudError] { RequestFaults.reportedErrors(for: server) }
  /// The wait causes the run's results have columns for: those always reported, and those of the
  /// faults its parameters turn on.
  public var reportedCauses: [WaitCause] {
    WaitCause.reported(
      raising: RequestFaults.active(for: server).map(\.waitCause) + timeline.compactMap(\.action.waitCause))
  }
}
