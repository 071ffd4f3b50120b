import SimKernel

/// The ports through which the sync clients reach the rest of the world.
///
/// The clients' behaviour (`ClientHost+*`, `ExportMachine`, `ImportMachine`) is written against
/// this protocol, not against `World`: it holds the clients' own state (`clients`) and reaches
/// the scheduler, the server, the push service, the devices and the sink only through the
/// requirements below. `World` is the one host (`World+Ports`), so every call is
/// specialised to it; a read through a property here still retains what it reads, and a method
/// called on `server` would run on a copy of it, so the server's methods the clients call are
/// ports (docs/architecture.md measures both). A client facet that needs more of the world adds
/// a port here, where a reviewer sees it.
protocol ClientHost: DeviceReading {
  // MARK: The clients' own state, and what the world fixed at its start

  /// The sync clients' state: stores, history, plans, import queues, writes (`SyncClients`).
  var clients: SyncClients { get set }

  // MARK: Devices (read, besides `DeviceReading`; their app state through the routing)

  /// The stores of a device (consecutive ids).
  func storeIDs(of device: DeviceID) -> LazyMapSequence<Range<Int>, StoreID>
  func isSyncing(_ store: StoreID) -> Bool
  /// The store an edit writes (`World.editTarget`).
  func editTarget(_ device: DeviceID, storeIndex: Int?) -> StoreID?
  /// Whether `device`'s process runs (not suspended).
  func processRuns(_ device: DeviceID) -> Bool
  mutating func setAppState(_ device: DeviceID, _ state: AppState, at now: SimTime)
  mutating func startGracePeriod(_ device: DeviceID, graceSeconds: Double, sim: inout Simulation<ModelEvent>)
  /// Takes the requests and starts `device`'s suspended process parked, leaving none.
  mutating func takeParked(_ device: DeviceID) -> [ParkedRequest]
  /// Counts `device`'s next periodic edit and returns its number (the first is 1).
  mutating func nextPeriodicEdit(_ device: DeviceID) -> Int32

  // MARK: The scheduler: ask for an activity, finish it, wait

  mutating func submit(
    _ kind: ActivityKind, store: StoreID, trigger: ActivityTrigger, immediate: Bool,
    sim: inout Simulation<ModelEvent>
  ) -> ActivityID
  mutating func finishActivity(
    _ activity: ActivityID, succeeded: Bool, records: Int32, sim: inout Simulation<ModelEvent>)
  mutating func cancelPendingActivities(_ store: StoreID, reason: CancelReason, sim: inout Simulation<ModelEvent>)
  mutating func makeImmediate(_ activity: ActivityID, sim: inout Simulation<ModelEvent>)
  mutating func closeBlockedInterval(_ activity: ActivityID, at now: SimTime)
  mutating func signal(_ device: DeviceID, sim: inout Simulation<ModelEvent>)
  /// The id an activity slot's current activity has in the logs.
  func logID(_ slot: ActivityID) -> ActivityID
  /// Where a wait cause sits among the blocked columns.
  func position(of cause: WaitCause) -> Int32
  /// Records `activity` as `store`'s pending activity of its kind (none: `ActivityID.none`).
  mutating func setPending(_ kind: ActivityKind, of store: StoreID, to activity: ActivityID)
  /// Records `activity` as `store`'s running activity of its kind.
  mutating func setRunning(_ kind: ActivityKind, of store: StoreID, to activity: ActivityID)
  /// Holds `activity` until `notBefore`, its wait booked to `cause`.
  mutating func setRetryWait(_ activity: ActivityID, notBefore: SimTime, cause: WaitCause)
  /// A fresh id for an activity the app runs itself, outside dasd.
  mutating func newActivityLogID() -> ActivityID
  /// The scheduler's state, read only (its activities and each store's).
  var scheduler: SystemScheduler { get }

  // MARK: The server: send a request and be answered

  /// The server's state, read only: the client reads the zones' change logs and records as a
  /// fetch would return them, and changes them only through the ports below.
  var server: CloudServer { get }
  /// The server's own methods for what a save and an export change (`CloudServer+Commits`),
  /// called in place: through `server` each call would copy the server's value first.
  mutating func createObject(zone: Int, entity: Int, poison: Bool) -> ObjectID
  mutating func describeObject(zone: Int, _ object: ObjectID, key: Int32, version: Int32, contribution: Bool)
  mutating func setParent(zone: Int, _ object: ObjectID, _ parent: Int32)
  mutating func recordChange(zone: Int, of object: ObjectID, by store: StoreID, at now: SimTime) -> Int32
  mutating func setField(zone: Int, _ field: Int, write: WriteID, value: Int32)
  mutating func noteCommitted(zone: Int, _ object: ObjectID, publicDelete: Bool)
  mutating func compactChangeLogIfLong(zone: Int)
  /// Marks `object` seen by the client's pass `pass`; false if it already was.
  mutating func markSeen(zone: Int, _ object: ObjectID, pass: Int32) -> Bool
  /// The server's answer to a modify request: a record fault's error and outcome, or nil; the
  /// records that failed are listed in `failed`. (Mutating only so that it is called on the
  /// world in place: a non-mutating call from the batch's closure copied the world.)
  mutating func answerModify(
    _ request: ModifyRequest, random: inout RandomStream, failed: inout [RecordFailure]
  ) -> (error: CloudError, outcome: RecordOutcome)?
  /// A record's bytes and its assets' bytes.
  func recordCost(zone: Int, object: ObjectID) -> (record: Int64, assets: Int64)
  /// How many fields a record has (its existence field included).
  func fieldCount(zone: Int, object: ObjectID) -> Int

  /// The server's answer to a request: a request-level failure, or nil when it goes through.
  mutating func answer(_ request: RequestContext, from device: DeviceID) -> RequestFailure?
  /// Marks a field of `zone` as a counter (its conflicts merge by adding).
  mutating func noteCounterField(zone: Int, field: Int32)
  /// Charges `bytes` to the quota of the account that owns `zone`.
  mutating func chargeUsage(zone: Int, bytes: Int64)
  mutating func sendRequest(
    _ completion: ModelEvent, for activity: ActivityID, from device: DeviceID, taking duration: SimDuration,
    notBefore: SimTime, sim: inout Simulation<ModelEvent>)

  // MARK: The push service

  mutating func fanOutPush(from store: StoreID, zone: Int, sim: inout Simulation<ModelEvent>)
}

extension ClientHost {
  /// Ends `activity` at dasd, with the records its run moved.
  @inline(__always)
  mutating func finishRun(_ activity: ActivityID, succeeded: Bool, sim: inout Simulation<ModelEvent>) {
    finishActivity(activity, succeeded: succeeded, records: clients.runs[activity.index].records, sim: &sim)
  }

  /// A request's latency on `device`'s network, drawn from its stream.
  mutating func requestLatency(_ device: DeviceID) -> SimDuration {
    // A local stream: see `SchedulerHost.scheduleDecision`.
    var stream = devices[device.index].streams.network
    let latency = deviceTraits[traitsIndex(of: device)].requestLatency.sampleDuration(using: &stream)
    devices[device.index].streams.network = stream
    return latency
  }

  /// How long `bytes` take at `bytesPerSecond`.
  static func transfer(_ bytes: Int64, bytesPerSecond: Double) -> SimDuration {
    SimDuration(seconds: Double(bytes) / max(bytesPerSecond, 1))
  }
}
