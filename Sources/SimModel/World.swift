import SimKernel

/// The simulated world: its components and the routing between them.
///
/// Components (docs/architecture.md): `server` (`CloudServer`: zones' server side, change logs,
/// accounts and quotas, request rates, the fault sets; spec §6, §7), `scheduler`
/// (`SystemScheduler`: activities, waiting lists, retry waits, policies, run history; §5), `push`
/// (`PushService`: delivery decisions and the device-wide budget; §7), `agenda` (workloads,
/// sessions, the timeline) and `clients` (`SyncClients`: Core Data's mirroring and CKSyncEngine,
/// per store and per activity slot; §4, §6, §8, §10), whose behaviour runs on World through the
/// ports of `ClientHost` (`World+Ports`). Devices (`DeviceState`, §3) and their declared
/// `levels` (`ConditionTable`) are shared by all.
///
/// `handle(_:in:)` is the single switch over `ModelEvent`; each case calls a small method in a
/// facet file of its component's folder (`Client/ClientHost+Edits`, `Scheduler/SchedulerHost+Decisions`,
/// `Client/ExportMachine`, `Client/ImportMachine`, `Push/PushHost+Delivery`, `Client/ClientHost+Polling`,
/// `World+Background`, `Client/ClientHost+Resets`). A store's client is reached through
/// `SyncClient`'s entry points. The world reports what happens through `Observation`s to its sink
/// and never reads what observers do; debug builds check its invariants after every event.
///
/// Built and run in place by `WorldRunner`, never copied. How its tables are laid out for speed
/// (`Column`, `RowBuffer`, inlining) is recorded in `docs/performance.md`.
public struct World: EventHandler {
  let spec: WorldSpec
  let sink: any ObservationSink
  /// The CloudKit server: zones, accounts, request rates and failure modes.
  var server: CloudServer
  /// The system scheduler: activities, waiting lists, retries, policies and run history.
  var scheduler: SystemScheduler
  /// The push service's deliveries, per device.
  var push: PushService
  /// The people's side: workloads, sessions and the timeline.
  var agenda = Agenda()
  let devices = Column<DeviceState>()

  /// Where `device`'s traits are in `deviceTraits`. They are read in place there
  /// (`deviceTraits[traitsIndex(of: device)].app`): a copy of the whole value retains and releases
  /// its distributions, and a fleet ran 2.4 % slower through a function that returned one.
  @inline(__always) func traitsIndex(of device: DeviceID) -> Int { Int(devices[device.index].traitsIndex) }
  /// Per device: the declared conditions after the built-in ones, at their slots
  /// (`ConditionTable`); apart from the device's state, which every decision reads.
  var levels: [InlineArray<4, Double>] = []
  /// What devices' specs fix, each once for the devices next to one another that share it
  /// (`DeviceState.traitsIndex`).
  var deviceTraits: [DeviceTraits] = []
  /// Per device: requests and starts waiting for its suspended process to wake.
  var parked: [[ParkedRequest]] = []
  /// The sync clients' state: stores, history, local fields, export plans, import queues,
  /// CKSyncEngine's state, replayed stores and writes (`SyncClients`).
  var clients = SyncClients()

  /// Builds the world of `spec`, reporting to `sink`.
  public init(spec: WorldSpec, sink: any ObservationSink) {
    self.spec = spec
    self.sink = sink
    server = CloudServer(
      parameters: spec.server,
      forcedThrottlePossible: spec.timeline.contains { if case .throttle = $0.action { true } else { false } },
      extraRecordFaults: spec.extraRecordFaults, extraRequestFaults: spec.extraRequestFaults)
    scheduler = SystemScheduler(spec.scheduler)
    push = PushService(spec.push)
    _ = clients.writes.append(WriteState(store: StoreID.none, basedOn: .none, value: 0))
    clients.writesReleaseAt = spec.writeReleaseMinimum
    clients.settings = ClientSettings(
      server: spec.server, polling: spec.polling, devices: spec.devices, entities: spec.entities,
      duration: spec.duration, exportRequestCoalescing: spec.exportRequestCoalescing,
      emptyExportDuration: spec.scheduler.emptyExportDuration, writeReleaseMinimum: spec.writeReleaseMinimum)
    buildEntities()
    buildDevices()
    if spec.devices.contains(where: { $0.client == .syncEngine && $0.syncEngine.statePersistLag > .zero }) {
      clients.engineStates = [SyncEngineState](repeating: SyncEngineState(), count: clients.stores.count)
    }
    buildTimeline()
    markReplayedStores(
      spec.replayedStores(
        storeZones: clients.stores.map { Int32($0.zone.exists ? $0.zone.index : -1) },
        zoneScopes: server.zones.indices.map { server.zones[$0].scope }))
    reserveRecordCapacity()
  }

  /// Schedules the events that start the run: launches, workloads, sessions, the timeline.
  public mutating func start(_ sim: inout Simulation<ModelEvent>) {
    for (index, store) in clients.stores.enumerated() {
      let scope = store.zone.exists ? server.zones[store.zone.index].scope : nil
      sink.observe(.storeCreated(store: StoreID(index), device: store.device, zone: store.zone, scope: scope))
    }
    if let code = spec.modelRejectionCode {
      // CloudKit refuses the model: every syncing store's setup fails and nothing syncs.
      for index in clients.stores.indices where clients.stores[index].zone.exists {
        modelRefused(StoreID(index), code: code, at: sim.now)
      }
    }
    for device in devices.indices {
      let id = DeviceID(device)
      reportConditions(id, at: sim.now)
      if devices[device].app == .foreground {
        sink.observe(.appState(device: id, state: .foreground, at: sim.now))
        for store in storeIDs(of: id) where isSyncing(store) {
          requestImport(store, trigger: .initial, sim: &sim)
          schedulePoll(store, sim: &sim)
        }
      } else if devices[device].app == .background {
        startGracePeriod(
          id, graceSeconds: deviceTraits[traitsIndex(of: DeviceID(device))].app.backgroundGrace.seconds, sim: &sim)
      }
      let deviceSpec = spec.devices[device]
      if let workload = deviceSpec.workload, workload.editsPerHour > 0 {
        scheduleNextEdit(id, WorkloadTraits(workload), sim: &sim)
      }
      if let usage = deviceSpec.usage, usage.sessionsPerDay > 0 {
        scheduleNextSession(id, usage, sim: &sim)
      }
      if deviceSpec.conditions.drainPercentPerHour > 0 || deviceSpec.conditions.chargePercentPerHour > 0 {
        sim.schedule(.batteryTick(id), after: World.batteryTickInterval)
      }
    }
    for index in agenda.actions.indices {
      sim.schedule(.timeline(Int32(index)), at: SimTime(agenda.actions[index].at))
    }
  }

  public mutating func handle(_ event: ModelEvent, in sim: inout Simulation<ModelEvent>) {
    if spec.traceEvents { sink.observe(.event(kind: event.traceKind, entity: event.traceEntity, at: sim.now)) }
    switch event {
    case .workloadEdit(let device): workloadEdit(device, sim: &sim)
    case .saveTimer(let store): save(store, sim: &sim)
    case .decide(let activity): decide(activity, sim: &sim)
    case .start(let activity): activityStarts(activity, sim: &sim)
    case .exportRequestDone(let activity), .importPageDone(let activity): clientRequestAnswered(activity, sim: &sim)
    case .pushArrives(let device, let zone):
      if let received = pushArrives(device, zone: zone, sim: &sim) { pushReceived(device, received, sim: &sim) }
    case .uiRefresh(let store): uiRefresh(store, sim: &sim)
    case .timeline(let index): perform(Int(index), sim: &sim)
    case .nudge(let index): nudge(Int(index), sim: &sim)
    case .bulkStep(let index): bulkStep(Int(index), sim: &sim)
    case .sessionStart(let device): sessionStart(device, sim: &sim)
    case .sessionEnd(let device): sessionEnd(device, sim: &sim)
    case .suspend(let device): suspendIfIdle(device, exportRunning: exportInProgress(device), sim: &sim)
    case .setupDone(let store): setupDone(store, sim: &sim)
    case .statePersisted(let store): statePersisted(store, sim: &sim)
    case .poll(let store): poll(store, sim: &sim)
    case .batteryTick(let device): batteryTick(device, sim: &sim)
    }
    checkInvariants(afterEvent: sim.processedEventCount)
  }

  // MARK: - Helpers shared by the facets

  /// The store an edit writes: the device's `store`-th store when one is named (nil if it has
  /// no such store), else its first syncing store.
  @inline(__always)
  func editTarget(_ device: DeviceID, storeIndex: Int?) -> StoreID? {
    guard let storeIndex else { return primaryStore(of: device) }
    return storeIndex >= 0 && storeIndex < Int(devices[device.index].storeCount)
      ? StoreID(Int(devices[device.index].firstStore) + storeIndex) : nil
  }

  /// The stores of a device (consecutive ids), without allocating.
  @inline(__always)
  func storeIDs(of device: DeviceID) -> LazyMapSequence<Range<Int>, StoreID> {
    let state = devices[device.index]
    let first = Int(state.firstStore)
    return (first..<first + Int(state.storeCount)).lazy.map { StoreID($0) }
  }

  func reportConditions(_ device: DeviceID, at now: SimTime) {
    let state = devices[device.index]
    sink.observe(
      .conditions(
        device: device, batteryPercent: state.batteryPercent, pluggedIn: state.pluggedIn,
        lowPowerMode: state.lowPowerMode, online: state.online, at: now))
  }

  /// The device a store belongs to.
  @inline(__always)
  func owner(of store: StoreID) -> DeviceID { clients.stores[store.index].device }

  @inline(__always)
  func isSyncing(_ store: StoreID) -> Bool {
    clients.stores[store.index].zone.exists && !clients.stores[store.index].disabled
  }

  /// The first syncing store of a device (where workload edits go), or nil.
  @inline(__always)
  func primaryStore(of device: DeviceID) -> StoreID? {
    storeIDs(of: device).first { isSyncing($0) } ?? storeIDs(of: device).first
  }
}

extension World {
  /// dasd starts an activity; its client runs it, or asks for its retry when a retry-after was in
  /// force (the scheduler ended it at once).
  mutating func activityStarts(_ activity: ActivityID, sim: inout Simulation<ModelEvent>) {
    switch startActivity(activity, sim: &sim) {
    case .none: break
    case .run: clientActivityStarted(activity, sim: &sim)
    case .retry(let notBefore, let cause): requestRetry(of: activity, notBefore: notBefore, cause: cause, sim: &sim)
    }
  }
}

extension World {
  /// The app received a push: it runs for the push's runtime if the push woke it (and a process
  /// launched afresh exports the history the last one left), then its client takes the push.
  mutating func pushReceived(_ device: DeviceID, _ push: ReceivedPush, sim: inout Simulation<ModelEvent>) {
    if push.wokeApp {
      runForPush(device, sim: &sim)
      if push.launched {
        // As a launch by the person does (the swarm found an edit made before the app was
        // terminated waiting for the next activation).
        for store in storeIDs(of: device) where isSyncing(store) { exportHistoryLeftByLastProcess(store, sim: &sim) }
      }
    }
    clientPushReceived(device, zone: push.zone, sim: &sim)
  }
}
