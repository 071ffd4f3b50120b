import SimKernel

/// Edits, saves and the save policies (spec §4).
extension ClientHost {
  mutating func scheduleNextEdit(_ device: DeviceID, _ workload: WorkloadTraits, sim: inout Simulation<ModelEvent>) {
    if let period = workload.period {
      let k = nextPeriodicEdit(device)
      guard let at = period.arrival(k, end: clients.settings.duration, stream: &devices[device.index].streams.edit)
      else { return }
      sim.schedule(.workloadEdit(device), at: max(at, sim.now))
      return
    }
    let gap = devices[device.index].streams.edit.exponential(mean: 3600 / workload.editsPerHour)
    let at = sim.now + SimDuration(seconds: gap)
    guard at <= workload.until else { return }
    sim.schedule(.workloadEdit(device), at: at)
  }

  mutating func workloadEdit(_ device: DeviceID, sim: inout Simulation<ModelEvent>) {
    guard let workload = deviceTraits[traitsIndex(of: device)].workload else { return }
    scheduleNextEdit(device, workload, sim: &sim)
    if workload.foregroundOnly && devices[device.index].app != .foreground { return }
    guard let store = editTarget(device, storeIndex: workload.store) else { return }
    if workload.source == .app && !processRuns(device) { runForEdit(device, sim: &sim) }
    let draw = devices[device.index].streams.edit.nextUnit()
    let kind: EditKind =
      draw < workload.insertShare ? .insert : draw < workload.insertShare + workload.deleteShare ? .delete : .update
    edit(store, kind: kind, entity: workload.entity, sim: &sim)
  }

  /// Makes one edit on `store` and applies its save policy.
  mutating func edit(
    _ store: StoreID, kind: EditKind, entity: Int, key: Int32? = nil, sim: inout Simulation<ModelEvent>
  ) {
    // A store whose setup failed still works locally; it just never syncs.
    guard clients.stores[store.index].zone.exists else { return }
    guard clients.settings.entities[entity].syncs else {
      report { $0.observe(.localEdit(device: owner(of: store), entity: Int32(entity), at: sim.now)) }
      return
    }
    switch kind {
    case .insert, .addContribution:
      insertObject(store, entity: entity, kind: kind, key: key, at: sim.now)
    case .update, .delete, .increment, .softDelete:
      guard let object = findObject(store, entity: entity, random: kind != .increment) else {
        insertObject(store, entity: entity, kind: .insert, at: sim.now)
        break
      }
      let zone = clients.stores[store.index].zone.index
      let base = Int(server.zones[zone].objects[object.index].fieldBase)
      let fieldCount = server.entityFieldCount[Int(server.zones[zone].objects[object.index].entity)]
      let field: Int32
      let value: Int32
      switch kind {
      case .delete:
        field = 0
        value = 0
      case .increment:
        field = Int32(min(1, fieldCount - 1))
        value = localField(store, object, field: base + Int(field)).value &+ 1
        noteCounterField(zone: zone, field: Int32(base) + field)
      case .softDelete:
        field = Int32(min(1, fieldCount - 1))
        value = -1
      default:
        field = Int32(
          1 + Int(devices[owner(of: store).index].streams.edit.nextInt(below: UInt64(max(1, fieldCount - 1)))))
        value = Int32(truncatingIfNeeded: devices[owner(of: store).index].streams.edit.next() & 0x7FFF_FFFF)
      }
      writeField(store, object, field: field, value: value, kind: kind, at: sim.now)
    }
    applySavePolicy(store, sim: &sim)
  }

  /// One field of `object` written on `store`: a new write, the store's copy, the history's row
  /// and the observation. A delete writes the existence field (0) to 0.
  mutating func writeField(
    _ store: StoreID, _ object: ObjectID, field: Int32, value: Int32, kind: EditKind, at now: SimTime
  ) {
    let zone = clients.stores[store.index].zone.index
    let base = Int(server.zones[zone].objects[object.index].fieldBase)
    let write = newWrite(store, basedOn: localField(store, object, field: base + Int(field)).write, value: value)
    setLocal(store, object, base + Int(field), write: write, value: value)
    clients.history[store.index].append(Change(object: object, field: field, write: write))
    report { $0.observeEdited(write: write, store: store, object: object, field: field, kind: kind, at: now) }
  }

  /// Deletes `object` on `store` (unsaved until the store saves).
  mutating func deleteObject(_ store: StoreID, _ object: ObjectID, at now: SimTime) {
    writeField(store, object, field: 0, value: 0, kind: .delete, at: now)
  }

  /// The live objects of `entity` on `store`, first created first, at most `limit`.
  func liveObjects(_ store: StoreID, entity: Int, limit: Int) -> [ObjectID] {
    var found: [ObjectID] = []
    var from = 0
    while found.count < limit, let object = nextLiveObject(store, entity: entity, from: from) {
      found.append(object)
      from = object.index + 1
    }
    return found
  }

  /// The first live object of `entity` on `store` with an id at or after `from`.
  func nextLiveObject(_ store: StoreID, entity: Int, from: Int) -> ObjectID? {
    let zone = clients.stores[store.index].zone.index
    let count = server.zones[zone].objects.count
    guard from < count else { return nil }
    for object in from..<count where server.zones[zone].objects[object].entity == Int32(entity) {
      if isLive(store, ObjectID(object)) { return ObjectID(object) }
    }
    return nil
  }

  mutating func insertObject(_ store: StoreID, entity: Int, kind: EditKind, key: Int32? = nil, at now: SimTime) {
    let zone = clients.stores[store.index].zone.index
    let probability = clients.settings.server.poisonRecordProbability
    let poison = probability > 0 && devices[owner(of: store).index].streams.edit.bernoulli(probability)
    let object = createObject(zone: zone, entity: entity, poison: poison)
    describeObject(
      zone: zone, object, key: key ?? -1, version: deviceTraits[traitsIndex(of: owner(of: store))].modelVersion,
      contribution: kind == .addContribution)
    if let referenced = clients.settings.entities[entity].referencedEntity {
      // The newest live object of the parent entity in this store.
      setParent(zone: zone, object, newestLiveObject(store, entity: referenced)?.raw ?? -1)
    }
    let base = Int(server.zones[zone].objects[object.index].fieldBase)
    let write = newWrite(store, basedOn: .none)
    if isReplayed(store) {
      for field in 0..<server.entityFieldCount[entity] {
        setOverlay(store, object, base + field, write: write, value: field == 0 ? 1 : 0)
      }
    } else {
      ensureLocalCapacity(store)
      for field in 0..<server.entityFieldCount[entity] {
        clients.local[store.index][base + field] = LocalField(write: write, value: field == 0 ? 1 : 0, dirty: true)
      }
    }
    clients.history[store.index].append(Change(object: object, field: -1, write: write))
    report { $0.observeEdited(write: write, store: store, object: object, field: -1, kind: kind, at: now) }
    for _ in 0..<clients.settings.entities[entity].manyToManyLinksPerObject {
      // A CDMR join record: a record of its own, not a person's write.
      let link = createObject(zone: zone, entity: -1, poison: false)
      let linkBase = Int(server.zones[zone].objects[link.index].fieldBase)
      setLocal(store, link, linkBase, write: .none, value: 1)
      clients.history[store.index].append(Change(object: link, field: -1, write: .none))
    }
  }

  /// A live object of `entity` in the store: a random one, or the first.
  mutating func findObject(_ store: StoreID, entity: Int, random: Bool) -> ObjectID? {
    let zone = clients.stores[store.index].zone.index
    let count = server.zones[zone].objects.count
    guard count > 0 else { return nil }
    let start = random ? Int(devices[owner(of: store).index].streams.edit.nextInt(below: UInt64(count))) : 0
    if isReplayed(store) {
      // The scan's answer from the index of live objects (`ReplayedLiveIndex`).
      if !clients.replayedLive.isBuilt(store.index) { buildReplayedLiveIndex(store) }
      let found = clients.replayedLive.first(store.index, entity: entity, atOrAfter: Int32(start)).map {
        ObjectID(Int($0))
      }
      #if DEBUG
        // The index must give the scan's answer: checked on every look in debug builds.
        let scanned = (0..<count).lazy.map { ObjectID(($0 + start) % count) }.first { object in
          server.zones[zone].objects[object.index].entity == Int32(entity) && isLive(store, object)
        }
        clients.replayedLiveLooks += 1
        if scanned != found { clients.replayedLiveMismatches += 1 }
      #endif
      return found
    }
    for step in 0..<count {
      let object = (start + step) % count
      guard server.zones[zone].objects[object].entity == Int32(entity) else { continue }
      if isLive(store, ObjectID(object)) { return ObjectID(object) }
    }
    return nil
  }

  mutating func newWrite(_ store: StoreID, basedOn: WriteID, value: Int32 = 1) -> WriteID {
    if clients.writes.recentCount >= clients.writesReleaseAt {
      // Marking reads every field: release once there are more new writes than an eighth of the
      // fields, and than the writes kept, so that each write pays a bounded share.
      let threshold = max(clients.settings.writeReleaseMinimum, liveFieldCount() / 8, clients.writes.keptCount)
      if clients.writes.recentCount >= threshold {
        releaseWrites()
        clients.writesReleaseAt = clients.settings.writeReleaseMinimum
      } else {
        clients.writesReleaseAt = threshold
      }
    }
    return clients.writes.append(WriteState(store: store, basedOn: basedOn, value: value))
  }

  /// Fields held by stores and the server (what marking the live writes reads).
  func liveFieldCount() -> Int {
    var count = 0
    for index in clients.local.indices { count += clients.local[index].count }
    for zone in server.zones.indices { count += server.zones[zone].server.count }
    return count
  }

  /// Lets go of every write the world can no longer read: one that is in no store's history or
  /// export plan, and is no store's or the server's value of a field.
  mutating func releaseWrites() {
    var live: [Int32] = [0]
    for index in clients.history.indices {
      clients.history[index].withRows(clients.history[index].indices) { rows in
        for change in rows { live.append(change.write.raw) }
      }
    }
    for index in clients.plans.indices { for change in clients.plans[index].entries { live.append(change.write.raw) } }
    for index in clients.local.indices {
      clients.local[index].withRows(clients.local[index].indices) { rows in
        for field in rows { live.append(field.write.raw) }
      }
    }
    for overlay in clients.overlays { for entry in overlay { live.append(entry.local.write.raw) } }
    for zone in server.zones.indices {
      // A replayed store's copy holds writes the zone once set.
      for set in server.zones[zone].fieldSets { live.append(set.write.raw) }
      server.zones[zone].server.withRows(server.zones[zone].server.indices) { rows in
        for field in rows { live.append(field.write.raw) }
      }
    }
    live.sort()
    clients.writes.release(keeping: live)
  }

  /// Sets a field of the store's local store, growing its arrays to the zone's size.
  mutating func setLocal(_ store: StoreID, _ object: ObjectID, _ field: Int, write: WriteID, value: Int32) {
    if isReplayed(store) { return setOverlay(store, object, field, write: write, value: value) }
    ensureLocalCapacity(store)
    clients.local[store.index][field] = LocalField(write: write, value: value, dirty: true)
  }

  mutating func ensureLocalCapacity(_ store: StoreID) {
    if isReplayed(store) { keepCopy(store) }
    let needed = Int(server.zones[clients.stores[store.index].zone.index].fieldCount)
    let have = clients.local[store.index].count
    if have < needed {
      clients.local[store.index].append(repeating: LocalField(), count: needed - have)
    }
  }

  // MARK: - Saves

  mutating func applySavePolicy(_ store: StoreID, sim: inout Simulation<ModelEvent>) {
    let app = deviceTraits[traitsIndex(of: owner(of: store))].app
    switch app.savePolicy {
    case .immediate:
      save(store, sim: &sim)
    case .debounce:
      sim.cancel(clients.stores[store.index].saveTimer)
      let delay = SimDuration(seconds: app.saveDelaySeconds)
      clients.stores[store.index].saveTimer = sim.scheduleCancellable(.saveTimer(store), at: sim.now + delay)
    case .interval:
      if !sim.isPending(clients.stores[store.index].saveTimer) {
        let delay = SimDuration(seconds: app.saveDelaySeconds)
        clients.stores[store.index].saveTimer = sim.scheduleCancellable(.saveTimer(store), at: sim.now + delay)
      }
    case .onBackground:
      break
    }
  }

  /// Saves the context: unsaved edits become persistent history, and an export is requested.
  mutating func save(_ store: StoreID, sim: inout Simulation<ModelEvent>) {
    let saved = Int(clients.stores[store.index].savedCount)
    guard clients.history[store.index].count > saved else { return }
    if clients.stores[store.index].resetting {
      // The reset guard defers the save until the reset ends; without it the changes are lost.
      if deviceTraits[traitsIndex(of: owner(of: store))].app.resetGuard { return }
      loseUnsaved(store, reason: .savedDuringReset, at: sim.now)
      return
    }
    for index in saved..<clients.history[store.index].count where clients.history[store.index][index].write != .none {
      report { $0.observeSaved(write: clients.history[store.index][index].write, at: sim.now) }
    }
    clients.stores[store.index].savedCount = Int32(clients.history[store.index].count)
    if clients.stores[store.index].client == .syncEngine { enginePendingAdded(store, sim: &sim) }
    requestExport(store, trigger: .save, sim: &sim)
  }
}

extension ClientHost {
  /// Drops the unsaved edits of a store, reporting each write as lost.
  mutating func loseUnsaved(_ store: StoreID, reason: LossReason, at now: SimTime) {
    let zone = clients.stores[store.index].zone.index
    let saved = Int(clients.stores[store.index].savedCount)
    for index in saved..<clients.history[store.index].count {
      let change = clients.history[store.index][index]
      if change.write != .none { report { $0.observe(.lostWrite(write: change.write, reason: reason, at: now)) } }
      let base = Int(server.zones[zone].objects[change.object.index].fieldBase)
      let fields =
        change.field < 0
        ? base..<base + fieldCount(zone: zone, object: change.object)
        : base + Int(change.field)..<base + Int(change.field) + 1
      for field in fields where localField(store, change.object, field: field).write == change.write {
        let server = server.zones[zone].server[field]
        if isReplayed(store) {
          setOverlay(store, change.object, field, write: server.write, value: server.value, dirty: false)
        } else {
          clients.local[store.index][field] = LocalField(write: server.write, value: server.value)
        }
      }
    }
    clients.history[store.index].removeLast(clients.history[store.index].count - saved)
  }
}

extension ClientHost {
  /// The most recently created live object of `entity` in the store.
  func newestLiveObject(_ store: StoreID, entity: Int) -> ObjectID? {
    let zone = clients.stores[store.index].zone.index
    var object = server.zones[zone].objects.count - 1
    while object >= 0 {
      if server.zones[zone].objects[object].entity == Int32(entity)
        && isLive(store, ObjectID(object))
      {
        return ObjectID(object)
      }
      object -= 1
    }
    return nil
  }
}
