import SimKernel
import Testing

@testable import SimModel

/// A host for the sync clients that is not `World`: it gives them a real server and scheduler
/// to read, and records each port they call instead of routing it. The clients run against it
/// unchanged, which shows that they reach the rest of the world only through `ClientHost`.
struct RecordingHost: ClientHost {
  var clients: SyncClients
  let sink: any ObservationSink
  let devices: Column<DeviceState>
  let deviceTraits: [DeviceTraits]
  var scheduler: SystemScheduler
  var server: CloudServer
  /// Each port called, in order.
  var calls: [String] = []
  /// What the server answers every request with (nil: it goes through).
  var failure: RequestFailure?

  /// The parts of `world`, before it starts.
  init(_ world: World) {
    clients = world.clients
    sink = world.sink
    devices = world.devices
    deviceTraits = world.deviceTraits
    scheduler = world.scheduler
    server = world.server
  }

  /// dasd's start of `activity`, as the scheduler makes it: no longer pending, then the client's.
  mutating func start(_ activity: ActivityID, sim: inout Simulation<ModelEvent>) {
    let store = scheduler.activities[activity.index].store
    scheduler.activities[activity.index].phase = .running
    scheduler.storeActivities[store.index].setPending(scheduler.activities[activity.index].kind, .none)
    clientActivityStarted(activity, sim: &sim)
  }

  func traitsIndex(of device: DeviceID) -> Int { Int(devices[device.index].traitsIndex) }
  func storeIDs(of device: DeviceID) -> LazyMapSequence<Range<Int>, StoreID> {
    let first = Int(devices[device.index].firstStore)
    return (first..<first + Int(devices[device.index].storeCount)).lazy.map { StoreID($0) }
  }
  func owner(of store: StoreID) -> DeviceID { clients.stores[store.index].device }
  func isSyncing(_ store: StoreID) -> Bool {
    clients.stores[store.index].zone.exists && !clients.stores[store.index].disabled
  }
  func editTarget(_ device: DeviceID, storeIndex: Int?) -> StoreID? { storeIDs(of: device).first }
  func processRuns(_ device: DeviceID) -> Bool { true }
  mutating func setAppState(_ device: DeviceID, _ state: AppState, at now: SimTime) { calls.append("setAppState") }
  mutating func startGracePeriod(_ device: DeviceID, graceSeconds: Double, sim: inout Simulation<ModelEvent>) {
    calls.append("startGracePeriod")
  }
  mutating func takeParked(_ device: DeviceID) -> [ParkedRequest] { [] }
  mutating func nextPeriodicEdit(_ device: DeviceID) -> Int32 { 1 }

  mutating func submit(
    _ kind: ActivityKind, store: StoreID, trigger: ActivityTrigger, immediate: Bool,
    sim: inout Simulation<ModelEvent>
  ) -> ActivityID {
    calls.append("submit \(kind) \(trigger)")
    return scheduler.admit(
      ActivityState(kind: kind, store: store, trigger: trigger, requestedAt: sim.now, launchedForPush: false))
  }
  mutating func finishActivity(
    _ activity: ActivityID, succeeded: Bool, records: Int32, sim: inout Simulation<ModelEvent>
  ) {
    calls.append("finishActivity succeeded: \(succeeded), records: \(records)")
  }
  mutating func cancelPendingActivities(_ store: StoreID, reason: CancelReason, sim: inout Simulation<ModelEvent>) {
    calls.append("cancelPendingActivities")
  }
  mutating func makeImmediate(_ activity: ActivityID, sim: inout Simulation<ModelEvent>) {
    calls.append("makeImmediate")
  }
  mutating func closeBlockedInterval(_ activity: ActivityID, at now: SimTime) {}
  mutating func signal(_ device: DeviceID, sim: inout Simulation<ModelEvent>) { calls.append("signal") }
  func logID(_ slot: ActivityID) -> ActivityID { slot }
  func position(of cause: WaitCause) -> Int32 { Int32(cause.rawValue) }
  mutating func setPending(_ kind: ActivityKind, of store: StoreID, to activity: ActivityID) {
    calls.append("setPending \(kind)")
    scheduler.storeActivities[store.index].setPending(kind, activity)
  }
  mutating func setRunning(_ kind: ActivityKind, of store: StoreID, to activity: ActivityID) {
    calls.append("setRunning \(kind)")
  }
  mutating func setRetryWait(_ activity: ActivityID, notBefore: SimTime, cause: WaitCause) {
    calls.append("setRetryWait \(cause)")
  }
  mutating func newActivityLogID() -> ActivityID { ActivityID(1_000) }
  mutating func answer(_ request: RequestContext, from device: DeviceID) -> RequestFailure? {
    calls.append("answer")
    return failure
  }
  mutating func noteCounterField(zone: Int, field: Int32) { calls.append("noteCounterField") }
  mutating func chargeUsage(zone: Int, bytes: Int64) { calls.append("chargeUsage") }
  mutating func sendRequest(
    _ completion: ModelEvent, for activity: ActivityID, from device: DeviceID, taking duration: SimDuration,
    notBefore: SimTime, sim: inout Simulation<ModelEvent>
  ) {
    calls.append("sendRequest " + String(describing: completion).prefix { $0 != "(" })
  }
  // The server's own methods, on this host's server (recorded where the export commits).
  mutating func createObject(zone: Int, entity: Int, poison: Bool) -> ObjectID {
    server.createObject(zone: zone, entity: entity, poison: poison)
  }
  mutating func describeObject(zone: Int, _ object: ObjectID, key: Int32, version: Int32, contribution: Bool) {
    server.describeObject(zone: zone, object, key: key, version: version, contribution: contribution)
  }
  mutating func setParent(zone: Int, _ object: ObjectID, _ parent: Int32) {
    server.setParent(zone: zone, object, parent)
  }
  mutating func recordChange(zone: Int, of object: ObjectID, by store: StoreID, at now: SimTime) -> Int32 {
    calls.append("recordChange")
    return server.recordChange(zone: zone, of: object, by: store, at: now)
  }
  mutating func setField(zone: Int, _ field: Int, write: WriteID, value: Int32) {
    server.setField(zone: zone, field, write: write, value: value)
  }
  mutating func noteCommitted(zone: Int, _ object: ObjectID, publicDelete: Bool) {
    server.noteCommitted(zone: zone, object, publicDelete: publicDelete)
  }
  mutating func compactChangeLogIfLong(zone: Int) { server.compactChangeLogIfLong(zone: zone) }
  mutating func markSeen(zone: Int, _ object: ObjectID, pass: Int32) -> Bool {
    server.stamp(zone: zone, object, with: pass)
  }
  mutating func answerModify(
    _ request: ModifyRequest, random: inout RandomStream, failed: inout [RecordFailure]
  ) -> (error: CloudError, outcome: RecordOutcome)? {
    calls.append("answerModify")
    return server.answerModify(request, random: &random, failed: &failed)
  }
  func recordCost(zone: Int, object: ObjectID) -> (record: Int64, assets: Int64) {
    server.recordCost(zone: zone, object: object)
  }
  func fieldCount(zone: Int, object: ObjectID) -> Int { server.fieldCount(zone: zone, object: object) }
  mutating func fanOutPush(from store: StoreID, zone: Int, sim: inout Simulation<ModelEvent>) {
    calls.append("fanOutPush zone \(zone)")
  }
}

/// The sync clients on their own: an export from an edit to its commit, driven through a host
/// that only records the ports.
@Suite struct ClientHostTests {
  /// A host over a two-device world's parts, its first store set up, after an insert saved there:
  /// the export it asked for.
  static func savedInsert() -> (host: RecordingHost, activity: ActivityID, sim: Simulation<ModelEvent>) {
    let world = World(spec: TestWorlds.privatePair(count: 2), sink: ObservationLog())
    var host = RecordingHost(world)
    var sim = Simulation<ModelEvent>()
    host.clients.stores[0].setup = .done
    host.edit(StoreID(0), kind: .insert, entity: 0, sim: &sim)
    host.save(StoreID(0), sim: &sim)
    return (host, host.scheduler.storeActivities[0].pendingExport, sim)
  }

  @Test func anEditIsExportedAndCommittedThroughThePortsAlone() {
    var (host, activity, sim) = Self.savedInsert()
    let store = StoreID(0)
    let changesBefore = 0
    #expect(host.server.zones[0].changeLog.count == changesBefore)
    #expect(activity.exists)
    #expect(host.calls.starts(with: ["submit export save", "setPending export"]), "\(host.calls)")

    // dasd starts it: the client plans the export and sends its first request.
    host.calls.removeAll()
    host.start(activity, sim: &sim)
    #expect(host.calls == ["setRunning export", "sendRequest exportRequestDone"], "\(host.calls)")

    // The server accepts it: the client commits through the server's own methods, a push fans
    // out, and the activity ends with its record.
    host.calls.removeAll()
    host.clientRequestAnswered(activity, sim: &sim)
    #expect(
      host.calls == [
        "answer", "answerModify", "recordChange", "chargeUsage", "fanOutPush zone 0",
        "finishActivity succeeded: true, records: 1",
      ],
      "\(host.calls)")
    #expect(host.server.zones[0].changeLog.count == changesBefore + 1)
    #expect(host.clients.local[store.index].withRows(0..<1) { $0[0].dirty } == false)
  }

  /// A failed request's declared reaction goes through the ports too: the activity ends, the
  /// retry is asked for and waits for the failure's cause until its time.
  @Test func aFaultsReactionReachesTheSchedulerThroughThePorts() {
    var (host, activity, sim) = Self.savedInsert()
    host.start(activity, sim: &sim)
    host.failure = RequestFailure(
      error: .zoneBusy, waitCause: .zoneBusy, reaction: .retry(at: SimTime(.seconds(30))), retryAfter: .seconds(30),
      attempt: 1)
    host.calls.removeAll()
    host.clientRequestAnswered(activity, sim: &sim)
    #expect(
      host.calls == [
        "answer", "finishActivity succeeded: false, records: 0", "submit export retry", "setPending export",
        "setRetryWait zoneBusy",
      ], "\(host.calls)")
    // Nothing reached the server: its zone holds no change.
    let changes = host.server.zones[0].changeLog.count
    #expect(changes == 0)
  }
}
