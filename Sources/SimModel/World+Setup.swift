import SimKernel

extension World {
  mutating func buildEntities() {
    server.publicQueriesPerPoll = max(
      1, spec.entities.count + (spec.entities.contains { $0.manyToManyLinksPerObject > 0 } ? 1 : 0))
    for entity in spec.entities {
      let size = entity.recordSize(
        overhead: spec.server.recordOverheadBytes, assetThreshold: spec.server.assetThresholdBytes,
        maxRecordBytes: spec.server.maxRecordBytes)
      server.recordBytesByEntity.append(size.record)
      server.assetBytesByEntity.append(size.assets)
      server.entityFieldCount.append(entity.fieldCount)
    }
  }

  mutating func buildDevices() {
    let layout = spec.zoneLayout()
    for zone in layout.zones { makeZone(zone.scope, owner: zone.owner) }
    server.accounts = [AccountState](
      repeating: AccountState(quotaBytes: spec.server.quotaBytesPerAccount), count: spec.accountCount)
    // Sized once: growing a column by doubling copied it whole, a tenth of the fleet's setup.
    let storeCount = spec.devices.reduce(0) { $0 + $1.stores.count }
    devices.reserveCapacity(spec.devices.count)
    scheduler.runHistory.reserveDevices(spec.devices.count)
    clients.stores.reserveCapacity(storeCount)
    scheduler.storeActivities.reserveCapacity(storeCount)
    clients.history.reserveCapacity(storeCount)
    clients.local.reserveCapacity(storeCount)
    for (index, deviceSpec) in spec.devices.enumerated() {
      server.accounts[deviceSpec.account].deviceCount += 1
      let traits = DeviceTraits(
        app: deviceSpec.app, workload: deviceSpec.workload.map(WorkloadTraits.init),
        modelVersion: Int32(deviceSpec.modelVersion),
        requestLatency: deviceSpec.requestLatency ?? spec.server.requestLatency)
      if deviceTraits.last != traits { deviceTraits.append(traits) }
      let c = deviceSpec.conditions
      let seed = spec.seed
      let i = UInt64(deviceSpec.streamIndex ?? index)
      devices.append(
        DeviceState(
          streams: DeviceStreams(
            edit: RandomStream(seed: seed, name: "edits", index: i),
            usage: RandomStream(seed: seed, name: "usage", index: i),
            network: RandomStream(seed: seed, name: "network", index: i),
            scheduler: RandomStream(seed: seed, name: "scheduler", index: i),
            push: RandomStream(seed: seed, name: "push", index: i),
            background: RandomStream(seed: seed, name: "background", index: i)),
          traitsIndex: Int32(deviceTraits.count - 1), account: Int32(deviceSpec.account),
          firstStore: Int32(clients.stores.count),
          storeCount: Int32(deviceSpec.stores.count), app: deviceSpec.initialAppState,
          batteryPercent: c.batteryPercent, pluggedIn: c.pluggedIn, lowPowerMode: c.lowPowerMode,
          online: c.online, uploadBytesPerSecond: c.uploadBytesPerSecond,
          downloadBytesPerSecond: c.downloadBytesPerSecond))
      for _ in deviceSpec.stores {
        let store = StoreID(clients.stores.count)
        let zone = layout.storeZones[store.index]
        clients.stores.append(StoreState(device: DeviceID(index), zone: ZoneID(Int(zone)), client: deviceSpec.client))
        scheduler.storeActivities.append(StoreActivities(client: deviceSpec.client))
        if zone >= 0 { server.zones[Int(zone)].storeCount += 1 }
        clients.history.append(RowBuffer())
        clients.local.append(RowBuffer())
        clients.orphans.append([])
      }
      levels.append(ConditionTable.defaultLevels)
      scheduler.addDevice()
      server.addDevice()
      push.addDevice()
      agenda.periodicEdits.append(0)
      agenda.periodicSessions.append(0)
      parked.append([])
    }
    listZoneStores()
  }

  /// Lays out every zone's stores in `zoneStores`, zone by zone, each in id order.
  mutating func listZoneStores() {
    var next: [Int32] = []
    var start: Int32 = 0
    for zone in server.zones.indices {
      server.zones[zone].storeStart = start
      next.append(start)
      start += server.zones[zone].storeCount
    }
    server.zoneStores = [StoreID](repeating: StoreID.none, count: Int(start))
    for (index, store) in clients.stores.enumerated() where store.zone.exists {
      server.zoneStores[Int(next[store.zone.index])] = StoreID(index)
      next[store.zone.index] += 1
    }
  }

  mutating func makeZone(_ scope: DatabaseScope, owner: Int) {
    var zone = ZoneState(scope: scope)
    zone.ownerAccount = Int32(owner)
    server.zones.append(zone)
  }

  mutating func buildTimeline() {
    let ordered = spec.timeline.enumerated().sorted { ($0.element.at, $0.offset) < ($1.element.at, $1.offset) }
    for (_, action) in ordered {
      for device in action.devices {
        agenda.actions.append((action.at, DeviceID(device), action.action, action.store))
      }
    }
    agenda.bulkProgress = [Int32](repeating: 0, count: agenda.actions.count)
    agenda.bulkCursor = [Int32](repeating: 0, count: agenda.actions.count)
    agenda.bulkSteps = [Int32](repeating: 0, count: agenda.actions.count)
  }
}
