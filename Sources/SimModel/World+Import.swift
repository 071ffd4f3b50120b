import SimKernel

/// Import: fetch changes since the store's token in pages, merge, refresh the UI (MODEL §8, §4).
extension World {
  mutating func beginImport(_ activity: ActivityID, sim: inout Simulation<ModelEvent>) {
    let mirror = activities[activity.index].mirror
    guard devices[owner(of: mirror).index].online else {
      finishActivity(activity, succeeded: false, sim: &sim)
      requestImport(mirror, trigger: .importAgain, sim: &sim)
      return
    }
    let zone = Int(mirrors[mirror.index].zone)
    if tokenExpired(mirror, at: sim.now) {
      // changeTokenExpired: reset, then fetch the whole zone from a nil token. [A] CKError.h
      sink.observe(.cloudError(mirror: mirror, error: .changeTokenExpired, retryAfter: nil, at: sim.now))
      resetSync(mirror, reason: .tokenExpired, sim: &sim)
    }
    let snapshot = Int32(zones[zone].changeLog.count)
    activities[activity.index].snapshotToken = snapshot
    let (records, bytes) = changedRecords(zone: zone, after: mirrors[mirror.index].importedToken, upTo: snapshot)
    activities[activity.index].records = Int32(records)
    activities[activity.index].bytes = bytes
    let pageSize = max(1, spec.server.importPageSize)
    activities[activity.index].pagesLeft = Int32(max(1, (records + pageSize - 1) / pageSize))
    scheduleNextPage(activity, sim: &sim)
  }

  /// The records and bytes of the next page: full pages first, the remainder last.
  func nextPage(_ activity: ActivityID) -> (records: Int, bytes: Int64) {
    let state = activities[activity.index]
    let pageSize = max(1, spec.server.importPageSize)
    let total = Int(state.records)
    let pages = max(1, (total + pageSize - 1) / pageSize)
    let records = state.pagesLeft == 1 ? total - pageSize * (pages - 1) : pageSize
    let bytes = total > 0 ? state.bytes * Int64(records) / Int64(total) : 0
    return (records, bytes)
  }

  /// Distinct records changed in (token, snapshot], and their bytes.
  mutating func changedRecords(zone: Int, after token: Int32, upTo snapshot: Int32) -> (Int, Int64) {
    guard snapshot > token else { return (0, 0) }
    stampCounter &+= 1
    let stamp = stampCounter
    if objectStamp[zone].count < zones[zone].objectEntity.count {
      objectStamp[zone].append(contentsOf: repeatElement(0, count: zones[zone].objectEntity.count - objectStamp[zone].count))
    }
    var records = 0
    var bytes: Int64 = 0
    let isPublic = zones[zone].scope == .public
    for index in Int(token)..<Int(snapshot) {
      let object = zones[zone].changeLog[index]
      if objectStamp[zone][object.index] == stamp { continue }
      // A public query returns live records only: a deleted record is simply absent.
      if isPublic && zones[zone].serverValue[Int(zones[zone].objectFieldBase[object.index])] == 0 { continue }
      objectStamp[zone][object.index] = stamp
      records += 1
      let entity = Int(zones[zone].objectEntity[object.index])
      bytes += entity >= 0 ? recordBytesByEntity[entity] + assetBytesByEntity[entity] : Int64(spec.server.joinRecordBytes)
    }
    return (records, bytes)
  }

  mutating func pageDuration(_ activity: ActivityID) -> SimDuration {
    let device = owner(of: activities[activity.index].mirror)
    let page = nextPage(activity)
    return requestLatency(device)
      + Self.transfer(page.bytes, bytesPerSecond: devices[device.index].downloadBytesPerSecond)
      + SimDuration(seconds: spec.server.applyTimePerRecordSeconds * Double(page.records))
  }

  mutating func scheduleNextPage(_ activity: ActivityID, sim: inout Simulation<ModelEvent>) {
    sendRequest(.importPageDone(activity), taking: pageDuration(activity), sim: &sim)
  }

  mutating func importPageDone(_ activity: ActivityID, sim: inout Simulation<ModelEvent>) {
    let mirror = activities[activity.index].mirror
    switch generalVerdict(activity, at: sim.now) {
    case .retry(let at):
      sim.schedule(.importPageDone(activity), at: max(at, containerBlockedUntil) + pageDuration(activity))
      return
    case .failed:
      // networkUnavailable mid-import: nothing applied; a new import waits for the network.
      finishActivity(activity, succeeded: false, sim: &sim)
      requestImport(mirror, trigger: .importAgain, sim: &sim)
      return
    case .accepted:
      break
    }
    let page = nextPage(activity)
    sink.observe(.request(mirror: mirror, upload: false, records: Int32(page.records), bytes: page.bytes, at: sim.now))
    activities[activity.index].pagesLeft -= 1
    if activities[activity.index].pagesLeft > 0 {
      scheduleNextPage(activity, sim: &sim)
      return
    }
    let state = activities[activity.index]
    applyImport(mirror, upTo: state.snapshotToken)
    sink.observe(.imported(mirror: mirror, activity: logID(activity), token: state.snapshotToken, records: state.records, at: sim.now))
    finishActivity(activity, succeeded: true, sim: &sim)
    importFinishedUI(mirror, sim: &sim)
    endResetIfNeeded(mirror, sim: &sim)
    if spec.devices[owner(of: mirror).index].app.deduplicate { deduplicate(mirror, sim: &sim) }
  }

  /// Merges the server's records changed since the store's token; unexported local fields win.
  mutating func applyImport(_ mirror: MirrorID, upTo snapshot: Int32) {
    let zone = Int(mirrors[mirror.index].zone)
    let token = mirrors[mirror.index].importedToken
    guard snapshot > token else { return }
    ensureLocalCapacity(mirror)
    let isPublic = zones[zone].scope == .public
    for index in Int(token)..<Int(snapshot) {
      let object = zones[zone].changeLog[index]
      let base = Int(zones[zone].objectFieldBase[object.index])
      // Deletes leave no tombstone in the public database: the device keeps what it had.
      if isPublic && zones[zone].serverValue[base] == 0 { continue }
      let entity = Int(zones[zone].objectEntity[object.index])
      let fieldCount = entity >= 0 ? spec.entities[entity].fieldCount : 1
      for field in base..<base + fieldCount where !dirty[mirror.index][field] {
        localWrite[mirror.index][field] = zones[zone].serverWrite[field]
        localValue[mirror.index][field] = zones[zone].serverValue[field]
      }
    }
    mirrors[mirror.index].importedToken = snapshot
    mirrors[mirror.index].tokenAt = tokenTime(zone: zone, token: snapshot)
  }

  /// When the change a token points at was made (zero for the empty token).
  func tokenTime(zone: Int, token: Int32) -> SimTime {
    token > 0 ? zones[zone].changeTimes[Int(token) - 1] : .zero
  }

  // MARK: - UI refresh (MODEL §4)

  mutating func importFinishedUI(_ mirror: MirrorID, sim: inout Simulation<ModelEvent>) {
    let app = spec.devices[owner(of: mirror).index].app
    switch app.uiRefresh {
    case .fetchedResults:
      sim.schedule(.uiRefresh(mirror), after: SimDuration(seconds: app.uiMergeSeconds))
    case .reloadOnImportEvent:
      sim.cancel(mirrors[mirror.index].uiTimer)
      mirrors[mirror.index].uiTimer = sim.scheduleCancellable(
        .uiRefresh(mirror), at: sim.now + SimDuration(seconds: app.uiReloadDebounceSeconds))
    case .onLaunch:
      break
    }
  }

  mutating func uiRefresh(_ mirror: MirrorID, sim: inout Simulation<ModelEvent>) {
    mirrors[mirror.index].uiToken = max(mirrors[mirror.index].uiToken, mirrors[mirror.index].importedToken)
    updateVisibility(mirror, at: sim.now)
  }

  /// The person sees the UI's state when the app is in front (or always, if so configured).
  mutating func updateVisibility(_ mirror: MirrorID, at now: SimTime) {
    let app = spec.devices[owner(of: mirror).index].app
    guard !app.visibilityRequiresForeground || devices[owner(of: mirror).index].app == .foreground else { return }
    if mirrors[mirror.index].uiToken > mirrors[mirror.index].visibleToken {
      mirrors[mirror.index].visibleToken = mirrors[mirror.index].uiToken
      sink.observe(.visible(mirror: mirror, token: mirrors[mirror.index].uiToken, at: now))
    }
  }
}
