import SimKernel

/// Import: fetch changes since the store's token in pages, merge, refresh the UI (spec §8, §4).
extension ClientHost {
  /// For an import over several pages: after each page, the token through which the store then
  /// holds every change — just before the first change of any record still to come (records come
  /// in the order of their last change, so an earlier change of a later page's record is not
  /// yet applied). A write is visible to a `fetchedResults` UI as soon as its page is applied.
  mutating func listPageTokens(_ activity: ActivityID, zone: Int, after token: Int32, upTo snapshot: Int32) {
    clients.importPageTokens[activity.index].removeAllKeepingCapacity()
    let pageSize = max(1, clients.settings.server.importPageSize)
    let queueCount = clients.importQueues[activity.index].count
    guard queueCount > pageSize else { return }
    let pages = (queueCount + pageSize - 1) / pageSize
    if clients.scratch.queueSlot.count < server.zones[zone].objects.count {
      clients.scratch.queueSlot.append(
        contentsOf: repeatElement(-1, count: server.zones[zone].objects.count - clients.scratch.queueSlot.count))
    }
    for (slot, object) in clients.importQueues[activity.index].enumerated() {
      clients.scratch.queueSlot[object.index] = Int32(slot)
    }
    // Per page: the first change (1-based token) of any of its records within the import's range.
    // Only a record's latest change counts, as the server keeps only that (its earlier changes
    // are in the same record, applied with it).
    var firstChange = [Int32](repeating: .max, count: pages)
    var index = server.zones[zone].firstChange(after: token)
    while index < server.zones[zone].changeLog.count && server.zones[zone].changeLog[index].token <= snapshot {
      let change = server.zones[zone].changeLog[index]
      index += 1
      guard server.zones[zone].isLatest(change) else { continue }
      let slot = Int(clients.scratch.queueSlot[change.object.index])
      guard slot >= 0, slot < queueCount, clients.importQueues[activity.index][slot] == change.object else { continue }
      let page = slot / pageSize
      firstChange[page] = min(firstChange[page], change.token)
    }
    // Filled in the slot's own buffer, keeping its capacity for the next import in the slot.
    clients.importPageTokens[activity.index].append(contentsOf: repeatElement(snapshot, count: pages))
    var earliestLater = Int32.max
    for page in stride(from: pages - 1, to: 0, by: -1) {
      earliestLater = min(earliestLater, firstChange[page])
      clients.importPageTokens[activity.index][page - 1] = min(snapshot, earliestLater - 1)
    }
  }

  /// The next page: where it starts in the import's queue, its records and bytes (full pages
  /// first, the remainder last).
  @inline(__always)
  func nextPage(_ activity: ActivityID) -> (first: Int, records: Int, bytes: Int64) {
    let run = clients.runs[activity.index]
    let pageSize = max(1, clients.settings.server.importPageSize)
    let total = Int(run.records)
    let pages = max(1, (total + pageSize - 1) / pageSize)
    // Pages past the records (a public poll's extra queries) carry nothing.
    let done = Int(run.pagesTotal - run.pagesLeft)
    let records = done >= pages ? 0 : (done == pages - 1 ? total - pageSize * (pages - 1) : pageSize)
    let bytes = total > 0 ? run.bytes * Int64(records) / Int64(total) : 0
    return (min(done * pageSize, total), records, bytes)
  }

  /// The distinct records changed in (token, snapshot], in the order of their last change (as a
  /// zone-changes fetch returns them), into `queue`; returns their bytes.
  mutating func changedRecords(
    zone: Int, after token: Int32, upTo snapshot: Int32, maxVersion: Int32 = .max, into queue: inout [ObjectID],
    hidden: inout [ObjectID]
  ) -> Int64 {
    queue.removeAllKeepingCapacity()
    guard snapshot > token else { return 0 }
    let stamp = clients.nextStamp()
    var bytes: Int64 = 0
    let isPublic = server.zones[zone].scope == .public
    var index = server.zones[zone].changeLog.count - 1
    while index >= 0 && server.zones[zone].changeLog[index].token > token {
      let change = server.zones[zone].changeLog[index]
      let object = change.object
      index -= 1
      if change.token > snapshot { continue }
      guard markSeen(zone: zone, object, pass: stamp) else { continue }
      let deleted = server.zones[zone].server[Int(server.zones[zone].objects[object.index].fieldBase)].value == 0
      // A public query returns live records only: a deleted record is simply absent.
      if isPublic && deleted { continue }
      // An older app fetches only records with version ≤ its own ([CDModel]'s version attribute).
      if server.zones[zone].objects[object.index].version > maxVersion {
        hidden.append(object)
        continue
      }
      queue.append(object)
      // A deletion comes down as its record's ID and type, not its fields ([A]
      // CKFetchRecordZoneChangesOperation's recordWithIDWasDeletedBlock, CKDatabase.RecordZoneChange
      // .Deletion): the ID's bytes, as its upload in a modify request.
      if deleted {
        bytes += Int64(ServerParameters.deletedRecordIDBytes)
        continue
      }
      let cost = recordCost(zone: zone, object: object)
      bytes += cost.record + cost.assets
    }
    queue.reverse()
    return bytes
  }

  mutating func pageDuration(_ activity: ActivityID) -> SimDuration {
    let state = scheduler.activities[activity.index]
    let device = owner(of: state.store)
    let page = nextPage(activity)
    var duration =
      requestLatency(device)
      + Self.transfer(page.bytes, bytesPerSecond: devices[device.index].downloadBytesPerSecond)
      + SimDuration(
        seconds: applyTimePerRecord(zone: clients.stores[state.store.index].zone.index) * Double(page.records))
    let run = clients.runs[activity.index]
    if run.fromEmptyToken && run.pagesLeft == run.pagesTotal {
      duration += clients.settings.server.initialImportTime
    }
    return duration
  }

  /// The time to apply one record into a store of `zone`: `applyTimePerRecord` at 4,096
  /// records, growing with log₂ of the zone's records when `applyTimeScalesWithZone`.
  @inline(__always)
  func applyTimePerRecord(zone: Int) -> Double {
    let perRecord = clients.settings.server.applyTimePerRecord.seconds
    guard clients.settings.server.applyTimeScalesWithZone else { return perRecord }
    let records = Double(server.zones[zone].objects.count + 2)
    return perRecord * DeterministicMath.log(records) / SyncClients.logReferenceRecords
  }

  /// Requests the import's next page (again, for a retry, not before `notBefore`).
  mutating func scheduleNextPage(_ activity: ActivityID, notBefore: SimTime = .zero, sim: inout Simulation<ModelEvent>)
  {
    let device = owner(of: scheduler.activities[activity.index].store)
    sendRequest(
      .importPageDone(activity), for: activity, from: device, taking: pageDuration(activity), notBefore: notBefore,
      sim: &sim)
  }

  /// A page of an import over several pages is in the store: the store holds every change
  /// through the page's token, and a `fetchedResults` UI shows it after its merge (the rows of
  /// a first import appear page by page [C] eczema-helper #713).
  mutating func pageApplied(_ activity: ActivityID, records: Int, sim: inout Simulation<ModelEvent>) {
    let run = clients.runs[activity.index]
    let done = Int(run.pagesTotal - run.pagesLeft)
    guard done - 1 < clients.importPageTokens[activity.index].count else { return }
    let token = clients.importPageTokens[activity.index][done - 1]
    let store = scheduler.activities[activity.index].store
    guard token > clients.stores[store.index].appliedToken else { return }
    clients.stores[store.index].appliedToken = token
    report { $0.observeImported(store: store, activity: logID(activity), token: token, records: Int32(records), at: sim.now) }
    let app = deviceTraits[traitsIndex(of: owner(of: store))].app
    if app.uiRefresh == .fetchedResults {
      sim.schedule(.uiRefresh(store), after: app.uiMergeDelay)
    }
  }

  /// Merges one page of fetched records into the store (unexported local fields win) and tracks
  /// children whose parent has not arrived yet.
  mutating func applyPage(_ store: StoreID, _ objects: ArraySlice<ObjectID>, at now: SimTime) {
    let zone = clients.stores[store.index].zone.index
    // The engine does not fetch what the app saved outside it, until a relaunch: those fields
    // keep the store's value while the server holds the app's write (`saveOutsideEngine`).
    let blind = clients.engineBlind.isEmpty ? nil : clients.engineBlind[store.raw]
    defer { if let blind { withhold(store, zone: zone, blind) } }
    ensureLocalCapacity(store)
    // Through the store's buffer, without a bounds check per field: `ensureLocalCapacity` made
    // the store as long as the zone's fields.
    clients.local[store.index].withMutableRows { fields in
      for object in objects {
        let base = Int(server.zones[zone].objects[object.index].fieldBase)
        for field in base..<base + fieldCount(zone: zone, object: object) where !fields[field].dirty {
          let server = server.zones[zone].server[field]
          fields[field] = LocalField(write: server.write, value: server.value)
        }
      }
    }
    // A page is applied as a unit: a child is an orphan if its parent is missing after it.
    for object in objects {
      let parent = Int(server.zones[zone].objects[object.index].parent)
      if parent >= 0 && isLive(store, object) && !isLive(store, ObjectID(parent)) {
        clients.orphans[store.index].append((object, now))
      }
    }
    guard !clients.orphans[store.index].isEmpty else { return }
    var still: [(child: ObjectID, since: SimTime)] = []
    for orphan in clients.orphans[store.index] {
      let parent = ObjectID(Int(server.zones[zone].objects[orphan.child.index].parent))
      if isLive(store, parent) {
        report { $0.observe(.orphanWindow(store: store, child: orphan.child, from: orphan.since, to: now)) }
      } else {
        still.append(orphan)
      }
    }
    clients.orphans[store.index] = still
  }

  /// Puts back, after a page, the store's values of the fields its engine does not fetch: those
  /// the page set to the app's write saved outside the engine.
  mutating func withhold(_ store: StoreID, zone: Int, _ blind: [(field: Int32, write: WriteID, kept: LocalField)]) {
    // Only where this page brought the write in: a later edit of the store's own stays.
    for entry in blind where clients.local[store.index][Int(entry.field)].write == entry.write {
      clients.local[store.index][Int(entry.field)] = entry.kept
    }
  }

  /// Whether the store holds `object` alive (its existence field is 1).
  @inline(__always)
  func isLive(_ store: StoreID, _ object: ObjectID) -> Bool {
    let zone = clients.stores[store.index].zone.index
    let base = Int(server.zones[zone].objects[object.index].fieldBase)
    if isReplayed(store) { return localField(store, object, field: base).value == 1 }
    return isLive(store, fieldBase: base)
  }

  /// Whether the store holds alive the object whose fields start at `fieldBase`.
  @inline(__always)
  func isLive(_ store: StoreID, fieldBase base: Int) -> Bool {
    base < clients.local[store.index].count && clients.local[store.index][base].value == 1
  }

  /// The import finished: the store is up to date with the snapshot token, whose change was made
  /// at `changedAt` (for token retention).
  mutating func finishImportToken(_ store: StoreID, upTo snapshot: Int32, changedAt: SimTime) {
    clients.stores[store.index].importedToken = max(clients.stores[store.index].importedToken, snapshot)
    clients.stores[store.index].appliedToken = max(
      clients.stores[store.index].appliedToken, clients.stores[store.index].importedToken)
    clients.stores[store.index].tokenAt = snapshot > 0 ? changedAt : .zero
  }

  // MARK: - UI refresh (spec §4)

  mutating func importFinishedUI(_ store: StoreID, sim: inout Simulation<ModelEvent>) {
    let app = deviceTraits[traitsIndex(of: owner(of: store))].app
    switch app.uiRefresh {
    case .fetchedResults:
      sim.schedule(.uiRefresh(store), after: app.uiMergeDelay)
    case .reloadOnImportEvent:
      sim.cancel(clients.stores[store.index].uiTimer)
      clients.stores[store.index].uiTimer = sim.scheduleCancellable(
        .uiRefresh(store), at: sim.now + SimDuration(seconds: app.uiReloadDebounceSeconds))
    case .onLaunch:
      break
    }
  }

  mutating func uiRefresh(_ store: StoreID, sim: inout Simulation<ModelEvent>) {
    clients.stores[store.index].uiToken = max(
      clients.stores[store.index].uiToken, clients.stores[store.index].appliedToken)
    updateVisibility(store, at: sim.now)
  }

  /// The person sees the UI's state when the app is in front (or always, if so configured).
  mutating func updateVisibility(_ store: StoreID, at now: SimTime) {
    let app = deviceTraits[traitsIndex(of: owner(of: store))].app
    guard !app.visibilityRequiresForeground || devices[owner(of: store).index].app == .foreground else { return }
    if clients.stores[store.index].uiToken > clients.stores[store.index].visibleToken {
      clients.stores[store.index].visibleToken = clients.stores[store.index].uiToken
      report { $0.observeVisible(store: store, token: clients.stores[store.index].uiToken, at: now) }
    }
  }
}
