import SimKernel

/// Read-only stores: a public-database store on a device that never writes keeps no copy of the
/// zone. Its imports' pages are logged instead (`AppliedPage`), and the copy, when something
/// needs it, is replayed from the log and the zone's history of field sets.
///
/// A public-database app's readers each hold every record: 99,000 readers of 1,900 posts kept
/// 6.5 GB of copies that only the end of the run read (convergence, ghosts). The replay gives
/// the same copy to the field: a page sets each of its records to the server's values when it
/// is applied, so the copy holds, for each record, the values at the last page that carried it;
/// and the page's records are the import's queue, rebuilt from the zone's changes and which
/// records were live when it was asked.
extension World {
  /// Marks the stores whose copies are replayed (`WorldSpec.readOnlyStores`), and makes their
  /// zones keep their history.
  mutating func markReadOnlyStores() {
    let marked = spec.readOnlyStores(
      storeZones: stores.map { Int32($0.zone.exists ? $0.zone.index : -1) },
      zoneScopes: server.zones.indices.map { server.zones[$0].scope })
    guard marked.contains(true) else { return }
    for index in marked.indices where marked[index] { server.zones[stores[index].zone.index].keepsHistory = true }
    readOnly = marked
    appliedPages = [[AppliedPage]](repeating: [], count: stores.count)
    readOnlyQueries = [AppliedPage](
      repeating: AppliedPage(after: 0, snapshot: 0, queriedAt: 0, first: 0, records: 0, appliedAt: 0),
      count: stores.count)
  }

  /// Whether `store`'s copy is replayed rather than kept.
  @inline(__always)
  func isReadOnly(_ store: StoreID) -> Bool { !readOnly.isEmpty && readOnly[store.index] }

  /// Notes a read-only store's import query: its token range and the zone's set counter.
  mutating func noteReadOnlyQuery(_ store: StoreID, after: Int32, snapshot: Int32) {
    let zone = stores[store.index].zone.index
    readOnlyQueries[store.index] = AppliedPage(
      after: after, snapshot: snapshot, queriedAt: Int32(server.zones[zone].fieldSets.count), first: 0, records: 0,
      appliedAt: 0)
  }

  /// Applies a page to `store`'s copy, or logs it for a read-only store. A page holding a child
  /// record makes the store keep its copy (orphans are tracked on it).
  mutating func applyOrLogPage(_ activity: ActivityID, _ store: StoreID, first: Int, records: Int, at now: SimTime) {
    let objects = importQueues[activity.index][first..<first + records]
    if isReadOnly(store) {
      let zone = stores[store.index].zone.index
      if !objects.contains(where: { server.zones[zone].objects[$0.index].parent >= 0 }) {
        var page = readOnlyQueries[store.index]
        page.first = Int32(first)
        page.records = Int32(records)
        page.appliedAt = Int32(server.zones[zone].fieldSets.count)
        appliedPages[store.index].append(page)
        return
      }
      keepCopy(store)
    }
    applyPage(store, objects, at: now)
  }

  /// A reset wipes a read-only store's copy: its log starts again.
  mutating func wipeReadOnlyCopy(_ store: StoreID) {
    appliedPages[store.index].removeAll(keepingCapacity: true)
  }

  /// Replays `store`'s copy into `local` and keeps it from now on (something is about to read or
  /// write it).
  mutating func keepCopy(_ store: StoreID) {
    guard isReadOnly(store) else { return }
    let zone = stores[store.index].zone.index
    let history = FieldHistory(server.zones[zone]) { fieldCount(zone: zone, object: $0) }
    let last = lastAppliedCounters(store, history: history)
    readOnly[store.index] = false
    appliedPages[store.index] = []
    ensureLocalCapacity(store)
    for object in last.indices where last[object] >= 0 {
      let base = Int(server.zones[zone].objects[object].fieldBase)
      for field in base..<base + fieldCount(zone: zone, object: ObjectID(object)) {
        let value = history.value(of: field, at: last[object], in: server.zones[zone])
        local[store.index][field] = LocalField(write: value.write, value: value.value)
      }
    }
  }

  /// Per object of the store's zone, the set counter at which the last page carrying it was
  /// applied (−1: no page did).
  func lastAppliedCounters(_ store: StoreID, history: FieldHistory) -> [Int32] {
    let zone = stores[store.index].zone.index
    var last = [Int32](repeating: -1, count: server.zones[zone].objects.count)
    var queued = [Int32](repeating: 0, count: server.zones[zone].objects.count)  // query mark
    var queue: [ObjectID] = []
    let pages = appliedPages[store.index]
    var index = 0
    var mark: Int32 = 0
    while index < pages.count {
      let query = pages[index]
      mark += 1
      queue.removeAll(keepingCapacity: true)
      // The import's queue as `changedRecords` made it: the live records whose last change up to
      // the snapshot is after the store's token, in the order of that change.
      // The zone kept every change from the start: change k has token k + 1.
      var change = Int(query.snapshot) - 1
      while change >= 0 && server.zones[zone].allChanges[change].token > query.after {
        let object = server.zones[zone].allChanges[change].object
        change -= 1
        guard queued[object.index] != mark else { continue }
        queued[object.index] = mark
        let base = Int(server.zones[zone].objects[object.index].fieldBase)
        guard history.value(of: base, at: query.queriedAt, in: server.zones[zone]).value != 0 else { continue }
        queue.append(object)
      }
      queue.reverse()
      while index < pages.count && pages[index].after == query.after && pages[index].snapshot == query.snapshot
        && pages[index].queriedAt == query.queriedAt
      {
        let page = pages[index]
        for object in queue[Int(page.first)..<Int(page.first + page.records)] {
          last[object.index] = page.appliedAt
        }
        index += 1
      }
    }
    return last
  }

  /// Works out, once, what the end of the run asks of each read-only store's copy: whether it
  /// equals the server, and how many deleted records it still shows (ghosts).
  mutating func settleReadOnlyStores() {
    guard !readOnly.isEmpty else { return }
    readOnlyEnds = [ReadOnlyEnd](repeating: ReadOnlyEnd(), count: stores.count)
    var histories: [Int: FieldHistory] = [:]  // lookup only, by zone
    for index in stores.indices where readOnly[index] {
      let store = StoreID(index)
      let zone = stores[index].zone.index
      if histories[zone] == nil {
        histories[zone] = FieldHistory(server.zones[zone]) { fieldCount(zone: zone, object: $0) }
      }
      readOnlyEnds[index] = readOnlyEnd(store, zone: zone, history: histories[zone]!)
    }
  }

  /// Whether the store's replayed copy equals the server, and its ghosts.
  func readOnlyEnd(_ store: StoreID, zone: Int, history: FieldHistory) -> ReadOnlyEnd {
    var end = ReadOnlyEnd()
    let last = lastAppliedCounters(store, history: history)
    for object in last.indices {
      let base = Int(server.zones[zone].objects[object].fieldBase)
      let fields = base..<base + fieldCount(zone: zone, object: ObjectID(object))
      let applied = last[object]
      // Applied after the object's last set: every field holds the server's value.
      if applied >= 0 && applied > history.lastSetOfObject[object] { continue }
      for field in fields {
        let held = applied >= 0 ? history.value(of: field, at: applied, in: server.zones[zone]) : ServerField()
        if held.write != server.zones[zone].server[field].write { end.converged = false }
      }
      let now = server.zones[zone].server[base]
      if now.write != .none && now.value == 0 && applied >= 0
        && history.value(of: base, at: applied, in: server.zones[zone]).value == 1
      {
        end.ghosts += 1
      }
    }
    return end
  }
}

/// What the end of the run reads of a read-only store's copy.
struct ReadOnlyEnd {
  var converged = true
  var ghosts = 0
}
