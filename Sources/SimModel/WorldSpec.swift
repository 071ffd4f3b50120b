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

/// When a public-database store fetches besides its polls.
public enum PublicFetchRule: String, Sendable, CaseIterable, Codable {
  case launch, activation, interval
}

/// Public-database polling (spec §7).
public struct PollingParameters: Equatable, Sendable {
  /// Interval between polls. [A] TN3164: 30 min in development, up to 24 h in production.
  public var interval = SimDuration(seconds: 1800.0)
  /// Whether polls happen only during app use. [W] WWDC20 (appUse); [A] technotes allow wallClock.
  public var appUseClock = true
  /// When a public-database store fetches besides its polls. [W] WWDC20: "on launch or about
  /// every 30 minutes of use" (launch). The default, activation, also fetches when a suspended
  /// app comes back to the front: the model does not terminate suspended apps, and iOS does so
  /// often within hours, so a person's reopening after hours is usually a launch [assumed];
  /// launch is the literal rule; interval fetches on polls only.
  public var fetchOn = PublicFetchRule.activation
  public init() {}
}

/// Which database a device's store mirrors.
public enum StoreKind: Equatable, Sendable {
  /// The account's private database zone.
  case privateDatabase
  /// A shared zone owned by `ownerAccount`, visible to `participants` accounts too.
  case sharedDatabase(ownerAccount: Int, participants: [Int])
  /// The container's public database.
  case publicDatabase
  /// A local-only configuration: never syncs.
  case localOnly
}

/// One device: an install of the app signed in to an account.
public struct DeviceSpec: Sendable {
  public var name: String
  public var account: Int
  public var app: AppBehaviour {
    get { profile.value.app }
    _modify { yield &profile.value.app }
  }
  public var conditions: DeviceConditions {
    get { profile.value.conditions }
    _modify { yield &profile.value.conditions }
  }
  public var initialAppState = AppState.foreground
  /// Per-device request latency; nil uses the server's.
  public var requestLatency: Distribution? {
    get { profile.value.requestLatency }
    _modify { yield &profile.value.requestLatency }
  }
  /// The app, conditions and request latency, shared by the devices of a group until one is
  /// changed (`SharedValue`).
  private var profile = SharedValue(Profile())

  /// The sync client the app runs over CloudKit: Core Data's mirroring (the default) or
  /// CKSyncEngine (iOS 17+). [A] NSPersistentCloudKitContainer, CKSyncEngine
  public var client: SyncClient {
    get { profile.value.client }
    _modify { yield &profile.value.client }
  }
  /// How a CKSyncEngine app sends and fetches (read only when `client` is `syncEngine`). Kept
  /// beside the app's behaviour, not in it: the world copies that into every device's state, which
  /// every decision reads, and only an engine's few decisions read this.
  public var syncEngine: SyncEngineBehaviour {
    get { profile.value.syncEngine }
    _modify { yield &profile.value.syncEngine }
  }

  /// What a scenario's device entry sets for all its members.
  struct Profile: Sendable {
    var app = AppBehaviour()
    var conditions = DeviceConditions()
    var requestLatency: Distribution?
    var client = SyncClient.coreData
    var syncEngine = SyncEngineBehaviour()
  }
  /// The stores; edits go to the first syncing store unless a workload or action names another.
  public var stores: [StoreKind] = [.privateDatabase]
  /// The model version the app on this device runs (the version-attribute strategy of [CDModel]):
  /// it fetches only records created by this version or older.
  public var modelVersion = 1
  /// The index that keys its random streams: its position in the whole world, kept when the
  /// device runs in a part of it (`WorldPartitioning`), so that its draws do not depend on the
  /// partition. nil: its position in `WorldSpec.devices`.
  public var streamIndex: Int?
  /// Background edits at random times.
  public var workload: Workload? {
    get { sharedWorkload.value }
    _modify { yield &sharedWorkload.value }
  }
  /// App sessions at random times.
  public var usage: UsageModel? {
    get { sharedUsage.value }
    _modify { yield &sharedUsage.value }
  }
  /// The workload and the usage, each stored once for the devices given it together
  /// (`WorldSpec.setWorkload`, `setUsage`): inline they took 208 of a device's 280 bytes, held
  /// for the whole run, 200 MB at a million devices.
  private var sharedWorkload = SharedValue<Workload?>(nil)
  private var sharedUsage = SharedValue<UsageModel?>(nil)

  /// Gives this device `other`'s workload, stored once for both.
  mutating func shareWorkload(of other: DeviceSpec) { sharedWorkload = other.sharedWorkload }

  /// Gives this device `other`'s usage, stored once for both.
  mutating func shareUsage(of other: DeviceSpec) { sharedUsage = other.sharedUsage }

  /// Whether this device's workload and usage are stored in `other`'s storage, each.
  func sharesSchedules(with other: DeviceSpec) -> (workload: Bool, usage: Bool) {
    (sharedWorkload.sharesStorage(with: other.sharedWorkload), sharedUsage.sharesStorage(with: other.sharedUsage))
  }

  public init(name: String, account: Int = 0) {
    self.name = name
    self.account = account
  }
}

/// Poisson edits on a device (spec §4 workloads).
/// What makes a workload's edits when the app is not in front.
public enum EditSource: String, Sendable, CaseIterable, Codable {
  case app, `extension`
}

public struct Workload: Equatable, Sendable {
  /// Mean edits per hour.
  public var editsPerHour: Double
  /// Share of edits that insert a new object (the rest update, or delete).
  public var insertShare = 0.3
  /// Share of edits that delete an object.
  public var deleteShare = 0.0
  /// Index into `WorldSpec.entities`.
  public var entity = 0
  /// Edits happen only while the app is in the foreground (a person edits in the app).
  public var foregroundOnly = false
  /// What makes the edits when the app is not in front (issue 34): the app itself, which must
  /// run to edit, so an edit wakes a suspended or not-running app into the background for its
  /// `backgroundGrace` (as a background task would), or an extension (a widget, a share
  /// extension) that saves to the shared store while the app sleeps, whose export waits for the
  /// app's next run ([A] Core Data exports from the app's process).
  public var source = EditSource.app
  /// The store the edits write: an index into the device's `stores`; nil writes the first
  /// syncing store.
  public var store: Int?
  /// Edits on a clock rather than Poisson (`editsPerHour` is then 3600 / period, for estimates).
  public var period: Period?
  /// Poisson edits stop here, so a run can drain before its end (nil: they go on to the end).
  public var until: SimDuration?
  public init(editsPerHour: Double) { self.editsPerHour = editsPerHour }
}

/// App sessions: Poisson arrivals and a session-length distribution (spec §3 usage model).
public struct UsageModel: Equatable, Sendable {
  public var sessionsPerDay: Double
  /// Session length, seconds. [assumed] lognormal median 2 min, p99 20 min.
  public var sessionLength = Distribution.lognormal(median: 120, p99: 1200)
  /// From a session's end to suspension, seconds; nil uses the app's `backgroundGrace`.
  public var suspendAfterSeconds: Double? = nil
  /// Relative session rates for each hour of the day (24 weights, from midnight; needs the
  /// run's `clockStart`): sessions stay `sessionsPerDay` a day on average, spread as people
  /// open apps, in the morning and evening more than at night. Nil spreads them evenly.
  public var byHour: [Double]?
  /// Sessions on a clock rather than Poisson (`sessionsPerDay` is then 86,400 / period).
  public var period: Period?
  public init(sessionsPerDay: Double) { self.sessionsPerDay = sessionsPerDay }
}

/// A scripted action at a time for some devices (spec §3 timeline).
public struct TimelineAction: Sendable {
  public var at: SimDuration
  public var devices: [Int]
  public var action: Action
  /// The store an `edit` or `bulkInsert` writes: an index into each device's `stores`; nil
  /// writes the device's first syncing store.
  public var store: Int?

  public init(at: SimDuration, devices: [Int], action: Action, store: Int? = nil) {
    self.at = at
    self.devices = devices
    self.action = action
    self.store = store
  }

  public enum Action: Equatable, Sendable {
    case goOffline, goOnline, plug, unplug
    case lowPower(Bool)
    case battery(Double)
    case launch, activate, background, terminate, forceQuit
    /// The app's process ends abruptly: no deactivation, unsaved edits lost (and a CKSyncEngine
    /// app's pending changes its written state does not hold).
    case crash
    /// CKSyncEngine's `sendChanges()` / `fetchChanges()`: the app starts a send or a fetch at once.
    case sendChanges, fetchChanges
    /// A CKSyncEngine app saves a record with its own CloudKit call, not through the engine (as
    /// UICloudSharingController saves or deletes a CKShare).
    case saveOutsideEngine
    /// Post `didBecomeActive` once (nil `every`) or every `every` until `until` ([HowTo]).
    /// The app's nudge, once or every `every` until `until`, each repeat delayed by a uniform draw
    /// in [0, `jitter`) from its time on the clock.
    case nudge(every: SimDuration?, until: SimDuration?, jitter: SimDuration = .zero)
    /// One edit on the device's first syncing store; an insert may carry a logical key.
    case edit(EditKind, entity: Int, key: Int32?)
    /// `count` new objects, in one save or one save each, spread evenly over `over`.
    case bulkInsert(count: Int, entity: Int, oneSave: Bool, over: SimDuration)
    /// `count` live objects of `entity` deleted (nil: every live one), first created first, in one
    /// save or one save each, spread evenly over `over` (an app clearing a list or wiping data).
    case bulkDelete(count: Int?, entity: Int, oneSave: Bool, over: SimDuration)
    /// The mirroring delegate resets the device's stores.
    case resetSync(ResetReason)
    /// The app re-creates its container: with the old store still registered it fails with
    /// 134410 ([HowTo]'s trap); removing the store first works, losing unexported changes.
    case toggleSync(removeStoreFirst: Bool)
    /// Sets the iCloud storage quota of the device's account (nil = unlimited).
    case quota(bytes: Int64?)
    /// Sets a declared condition after the built-in ones (`ConditionTable`, at `slot` after
    /// them) to `value`; the built-in ones have their own actions.
    case setLevel(slot: Int, value: Double)
    /// Forces the container's throttle on (every request answers serviceUnavailable) or off.
    case throttle(Bool)
    /// An action declared as a type, its traits and behaviour in its own file
    /// (`DeclaredTimelineAction`).
    case declared(DeclaredAction)
  }
}
