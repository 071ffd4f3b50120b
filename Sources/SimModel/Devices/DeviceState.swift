import SimKernel

/// The state of one device: what its spec fixes, its random streams, and what changes.
///
/// One value per device, so that the first touch of a device whose turn comes (minutes after its
/// last event) lands on neighbouring cache lines rather than in three arrays.
struct DeviceState {
  var streams: DeviceStreams
  /// What its spec fixes: an index into `World.deviceTraits`, which the devices of a group share.
  var traitsIndex: Int32
  var account: Int32
  var firstStore: Int32
  var storeCount: Int32
  var app: AppState
  var forceQuit = false
  var launchedForPush = false
  /// A store's setup ended while the process slept, with an export asked for before it: the
  /// export is asked for when the process wakes.
  var exportAwaitsWake = false
  var batteryPercent: Double
  var pluggedIn: Bool
  var lowPowerMode: Bool
  var online: Bool
  /// How many of its activities wait on a policy (the length of `World.waiting` for it).
  var waitingCount: Int32 = 0
  /// Its rate-limit run bookkeeping (see `RunHistory`).
  var runs = DeviceRuns()
  var uploadBytesPerSecond: Double
  var downloadBytesPerSecond: Double
  /// What APNs and the device hold of its pushes (`PushService`).
  var mailbox = PushMailbox()
  /// When the person last opened the app (the start of the run counts as one).
  var lastOpenedAt = SimTime.zero
  /// In the background: the process runs at least until then (the grace period after leaving
  /// the foreground, or a push's runtime).
  var runsUntil = SimTime.zero
  /// In the background: an export in progress keeps the process running until then at most.
  var exportTaskUntil = SimTime.zero
  /// How many requests wait for the process to wake (the length of `World.parked` for it).
  var parkedCount: Int32 = 0
}

/// What a device's spec fixes for the whole run, copied out of `DeviceSpec` for the hot paths
/// (there these values sit among the spec's strings and arrays, several cache lines apart).
///
/// Stored once per run of devices that have the same (`World.deviceTraits`): 200 bytes a
/// device when each kept its own, 200 MB of a million-install world's memory.
struct DeviceTraits: Equatable {
  var app: AppBehaviour
  var workload: WorkloadTraits?
  var modelVersion: Int32
  /// Its request latency (its own or the server's).
  var requestLatency: Distribution
}

/// What an edit reads of its device's workload.
struct WorkloadTraits: Equatable {
  var editsPerHour: Double
  var insertShare: Double
  var deleteShare: Double
  var entity: Int
  var foregroundOnly: Bool
  var source: EditSource
  var store: Int?
  /// No Poisson edit after this.
  var until: SimTime
  /// Its periodic pattern, if it has one (then its edits follow it, not a Poisson process).
  var period: Period?

  init(_ workload: Workload) {
    editsPerHour = workload.editsPerHour
    insertShare = workload.insertShare
    deleteShare = workload.deleteShare
    entity = workload.entity
    foregroundOnly = workload.foregroundOnly
    source = workload.source
    store = workload.store
    until = workload.until.map { SimTime($0) } ?? .distantFuture
    period = workload.period
  }
}

/// A device's random streams, one per kind of draw, so that a change in one kind of draw
/// leaves the others' sequences alone. Kept side by side: an edit's chain of events draws from
/// several of them within moments, and they then share cache lines.
struct DeviceStreams {
  var edit: RandomStream
  var usage: RandomStream
  var network: RandomStream
  var scheduler: RandomStream
  var push: RandomStream
  /// Background runtimes (a push launch's).
  var background: RandomStream
}
