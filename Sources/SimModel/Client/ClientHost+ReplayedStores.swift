import SimKernel

/// Replayed stores: a public-database store keeps no copy of the zone. Its imports' pages are
/// logged instead (`AppliedPage`), and the copy, when something needs it, is replayed from the
/// log and the zone's history of field sets. A reader's store only imports; an author's store has
/// its own edits laid over the copy (`ClientHost+ReplayedWrites`).
///
/// A public-database app's readers each hold every record: 99,000 readers of 1,900 posts kept
/// 6.5 GB of copies that only the end of the run read (convergence, ghosts). The replay gives
/// the same copy to the field: a page sets each of its records to the server's values when it
/// is applied, so the copy holds, for each record, the values at the last page that carried it:
/// the newest page whose token range holds the record's last change up to the page's snapshot,
/// the record being live when the page's import was asked.
extension ClientHost {
  /// Marks the stores whose copies are replayed (`marked`, per store: `WorldSpec.replayedStores`),
  /// and makes their zones keep their history.
  mutating func markReplayedStores(_ marked: [Bool]) {
    guard marked.contains(true) else { return }
    for index in marked.indices where marked[index] {
      server.zones[clients.stores[index].zone.index].keepsHistory = true
    }
    clients.replayed = marked
    clients.appliedPages = AppliedPageLog(stores: clients.stores.count)
    clients.overlays = [OverlayFields](repeating: OverlayFields(), count: clients.stores.count)
    clients.replayedLive = ReplayedLiveIndex(stores: clients.stores.count)
    clients.mergesPages = clients.stores.indices.map {
      marked[$0] && clients.settings.devices[clients.stores[$0].device.index].workload == nil
    }
    // An author's store reads its pages at each edit: kept whole (`AppliedPageLog.keepUnpacked`).
    for index in marked.indices where marked[index] && !clients.mergesPages[index] {
      clients.appliedPages.keepUnpacked(index)
    }
    clients.replayQueries = [ReplayQuery](repeating: ReplayQuery(), count: clients.stores.count)
    // Without child records no page needs its records' list (orphans are tracked on a kept copy):
    // the imports are sized from the zone's index of live records.
    clients.replayedImportsIndexed = !clients.settings.entities.contains { $0.referencedEntity != nil }
  }

  /// Whether `store`'s copy is replayed rather than kept.
  @inline(__always)
  func isReplayed(_ store: StoreID) -> Bool { !clients.replayed.isEmpty && clients.replayed[store.index] }

  /// Whether `store`'s imports are sized from the zone's index of live records, with no list.
  @inline(__always)
  func importsFromIndex(_ store: StoreID) -> Bool { clients.replayedImportsIndexed && isReplayed(store) }

  /// A replayed store's import query from the zone's index: the live records changed after the
  /// store's token, and their bytes (what `changedRecords` returns, without its list).
  mutating func sizeImportFromIndex(_ activity: ActivityID, zone: Int, after token: Int32) -> (Int, Int64) {
    clients.importQueues[activity.index].removeAll(keepingCapacity: true)
    return server.zones[zone].liveRecords.after(token)
  }

  /// `listPageTokens` from the zone's index: each page but the last ends just before the last
  /// change of the first record of the next (records come in the order of their last change).
  mutating func listPageTokensFromIndex(_ activity: ActivityID, zone: Int, after token: Int32, upTo snapshot: Int32) {
    clients.importPageTokens[activity.index].removeAllKeepingCapacity()
    let pageSize = max(1, clients.settings.server.importPageSize)
    let records = Int(clients.runs[activity.index].records)
    guard records > pageSize else { return }
    let pages = (records + pageSize - 1) / pageSize
    let before = server.zones[zone].liveRecords.rank(atOrBefore: token)
    clients.importPageTokens[activity.index].append(contentsOf: repeatElement(snapshot, count: pages))
    for page in 1..<pages {
      let first = server.zones[zone].liveRecords.token(ofRank: before + page * pageSize + 1) ?? .max
      clients.importPageTokens[activity.index][page - 1] = min(snapshot, first - 1)
    }
  }

  /// Notes a replayed store's import query: its token range, the zone's set counter, and where
  /// its pages split (a reset during the import clears the activity's own list).
  mutating func noteReplayQuery(_ store: StoreID, _ activity: ActivityID, after: Int32, snapshot: Int32) {
    let zone = clients.stores[store.index].zone.index
    clients.replayQueries[store.index].after = after
    clients.replayQueries[store.index].snapshot = snapshot
    clients.replayQueries[store.index].queriedAt = Int32(server.zones[zone].fieldSets.count)
    clients.replayQueries[store.index].pageTokens.removeAll(keepingCapacity: true)
    clients.replayQueries[store.index].pageTokens.append(contentsOf: clients.importPageTokens[activity.index])
  }

  /// Logs a page for a replayed store (`applyPage` for the others). A page holding a child record
  /// makes the store keep its copy, and applies to it (orphans are tracked on the copy).
  mutating func logPage(_ activity: ActivityID, _ store: StoreID, first: Int, records: Int, at now: SimTime) {
    let zone = clients.stores[store.index].zone.index
    if !importsFromIndex(store) {
      let objects = clients.importQueues[activity.index][first..<first + records]
      if objects.contains(where: { server.zones[zone].objects[$0.index].parent >= 0 }) {
        keepCopy(store)
        applyPage(store, objects, at: now)
        return
      }
    }
    guard records > 0 else { return }
    let query = clients.replayQueries[store.index]
    let page = first / max(1, clients.settings.server.importPageSize)
    let bounds = query.pageTokens
    let applied = AppliedPage(
      lower: page == 0 ? query.after : bounds[page - 1], upper: bounds.isEmpty ? query.snapshot : bounds[page],
      snapshot: query.snapshot, queriedAt: query.queriedAt, appliedAt: Int32(server.zones[zone].fieldSets.count))
    if clients.mergesPages[store.index], let last = clients.appliedPages.last(store.index),
      continues(last, with: applied, zone: zone)
    {
      clients.appliedPages.extendLast(store.index, upper: applied.upper, appliedAt: applied.appliedAt)
      clients.replayedLive.invalidate(store.index)
      return
    }
    clients.appliedPages.append(store.index, applied)
    absorbLoggedPage(store, page: applied, zone: zone)
  }

  /// What a page just logged changes, record by record of its range of tokens (only the records
  /// it carried can have changed in the copy): the store's overlay drops what it superseded
  /// (`dropSuperseded`), and the index of live objects reads each record again. One pass asks
  /// once whether the page carried a record; two passes asked twice (a fifth of a run of 40
  /// public authors each).
  mutating func absorbLoggedPage(_ store: StoreID, page: AppliedPage, zone: Int) {
    let drops = !clients.overlays.isEmpty && !clients.overlays[store.index].isEmpty
    let refreshes = clients.replayedLive.isBuilt(store.index) && page.lower < page.upper
    guard drops || refreshes else { return }
    guard page.lower >= 0, Int(page.upper) <= server.zones[zone].allChanges.count else {
      if refreshes { clients.replayedLive.invalidate(store.index) }
      return
    }
    let pages = clients.appliedPages.pages(store.index)
    let ordered = clients.appliedPages.isOrdered(store.index)
    for index in Int(page.lower)..<Int(page.upper) {
      let object = server.zones[zone].allChanges[index].object
      let carried = Self.carries(page, server.zones[zone], object).0
      if drops && carried { dropSuperseded(store, object, zone: zone) }
      guard refreshes else { continue }
      // Read as `isLive` reads (`replayedField`).
      let base = Int(server.zones[zone].objects[object.index].fieldBase)
      let entry = clients.overlays.isEmpty ? nil : clients.overlays[store.index].entry(base, of: object)
      let held: LocalField
      if let entry, entry.local.dirty {
        held = entry.local
      } else {
        // A record this page carried was carried last by it: no search for its page.
        let last =
          carried ? pages.count - 1 : Self.lastAppliedPage(pages, server.zones[zone], object, ordered: ordered)
        assert(!carried || Self.lastAppliedPage(pages, server.zones[zone], object, ordered: ordered) == last)
        held = Self.replayedField(entry, pages, page: last, server.zones[zone], field: base)
      }
      clients.replayedLive.update(
        store.index, object: object.raw, entity: Int(server.zones[zone].objects[object.index].entity),
        isLive: held.value == 1)
    }
  }

  /// Drops the store's clean overlay entries of `object`, which the page just logged carried:
  /// from now on a read replays the record from this page or a later one (`replayedField` takes
  /// the overlay only before the first page after the entry), so they are never read again.
  /// Without this the overlay kept every field the store ever set, and a public author's reads
  /// searched it in a time that grew with the run (30 % of a 32-day run). Unexported (dirty)
  /// entries stay.
  mutating func dropSuperseded(_ store: StoreID, _ object: ObjectID, zone: Int) {
    let base = Int(server.zones[zone].objects[object.index].fieldBase)
    let fields = Int32(base)..<Int32(base + fieldCount(zone: zone, object: object))
    #if DEBUG
      // What the run reads of these fields must not change: checked on every drop in debug builds.
      let before = fields.map { localField(store, object, field: Int($0)) }
      clients.overlays[store.index].remove(fields, of: object) { !$0.local.dirty }
      let after = fields.map { localField(store, object, field: Int($0)) }
      assert(
        zip(before, after).allSatisfy { $0.write == $1.write && $0.value == $1.value && $0.dirty == $1.dirty },
        "a dropped overlay entry was still read")
    #else
      clients.overlays[store.index].remove(fields, of: object) { !$0.local.dirty }
    #endif
  }

  /// Whether `next`, the next page of `last`'s import, can be logged as part of it: their ranges
  /// meet, and the server set no field of a record `last` carried between their applications, so
  /// those records hold the same values at either (the merged page's `appliedAt` is `next`'s).
  /// An import's pages then take one entry, not one each (twelve at a million installs).
  func continues(_ last: AppliedPage, with next: AppliedPage, zone: Int) -> Bool {
    guard last.snapshot == next.snapshot, last.queriedAt == next.queriedAt, last.upper == next.lower else {
      return false
    }
    for set in server.zones[zone].fieldSets[Int(last.appliedAt)..<Int(next.appliedAt)] {
      let object = server.zones[zone].object(atField: Int(set.field))
      if Self.carries(last, server.zones[zone], object).0 { return false }
    }
    return true
  }

  /// A reset wipes a replayed store's copy but what it has not exported: its log starts again.
  mutating func wipeReplayedCopy(_ store: StoreID) {
    clients.appliedPages.removeAll(store.index)
    clients.overlays[store.index].removeAll { !$0.local.dirty }
    clients.replayedLive.invalidate(store.index)
  }

  /// Replays `store`'s copy into `local` and keeps it from now on (something is about to read or
  /// write it): each record takes its values at the last page that carried it (`lastAppliedPage`).
  mutating func keepCopy(_ store: StoreID) {
    guard isReplayed(store) else { return }
    let zone = clients.stores[store.index].zone.index
    let pages = clients.appliedPages.pages(store.index)
    let ordered = clients.appliedPages.isOrdered(store.index)
    let overlay = clients.overlays[store.index]
    clients.replayed[store.index] = false
    clients.appliedPages.removeAll(store.index)
    clients.overlays[store.index] = OverlayFields()
    clients.replayedLive.invalidate(store.index)
    ensureLocalCapacity(store)
    var lastPage = [Int32](repeating: -1, count: overlay.isEmpty ? 0 : server.zones[zone].objects.count)
    for object in 0..<server.zones[zone].objects.count {
      let page = Self.lastAppliedPage(pages, server.zones[zone], ObjectID(object), ordered: ordered)
      if !lastPage.isEmpty { lastPage[object] = Int32(page) }
      guard page >= 0 else { continue }
      let base = Int(server.zones[zone].objects[object].fieldBase)
      for field in base..<base + fieldCount(zone: zone, object: ObjectID(object)) {
        let value = server.zones[zone].value(of: field, at: pages[page].appliedAt)
        clients.local[store.index][field] = LocalField(write: value.write, value: value.value)
      }
    }
    // The store's own fields where no page has overwritten them since (`localField`).
    for entry in overlay {
      let object = server.zones[zone].object(atField: Int(entry.field))
      if entry.local.dirty || lastPage[object.index] < entry.since {
        clients.local[store.index][Int(entry.field)] = entry.local
      }
    }
  }

  /// Works out, once, what the end of the run asks of each replayed store's copy: whether it
  /// equals the server, and how many deleted records it still shows (ghosts).
  mutating func settleReplayedStores() {
    guard !clients.replayed.isEmpty else { return }
    clients.replayedEnds = [ReplayedEnd](repeating: ReplayedEnd(), count: clients.stores.count)
    var deletes: [Int: PublicDeletes] = [:]  // lookup only, by zone
    for index in clients.stores.indices where clients.replayed[index] {
      let zone = clients.stores[index].zone.index
      if deletes[zone] == nil { deletes[zone] = PublicDeletes(server.zones[zone]) }
      clients.replayedEnds[index] = replayedEnd(StoreID(index), zone: zone, deletes: deletes[zone]!)
    }
  }

  /// Whether the store's replayed copy equals the server, and its ghosts, reading only the
  /// records that can differ.
  ///
  /// The pages' token ranges cover (0, covered] without a gap; a record never deleted whose last
  /// change is in there was in the page whose range holds that change (it was live at the query),
  /// applied after the change's commit, its last set: the copy holds the server's values. What
  /// is left are the records changed since, and the deleted ones (a public delete sets the record
  /// without a change the store could fetch). A copy found different stops the search for
  /// convergence, but every deleted record is asked whether it is a ghost.
  func replayedEnd(_ store: StoreID, zone: Int, deletes: PublicDeletes) -> ReplayedEnd {
    var end = ReplayedEnd()
    let pages = clients.appliedPages.pages(store.index)
    let ordered = clients.appliedPages.isOrdered(store.index)
    var ranges = pages.map { (lower: $0.lower, upper: $0.upper) }
    ranges.sort { $0.lower < $1.lower }
    var covered: Int32 = 0
    for range in ranges where range.lower <= covered { covered = max(covered, range.upper) }
    // The records the store set itself are read field by field, as the run read them.
    let own = overlayObjects(store)
    var isOwn = [Bool](repeating: false, count: own.isEmpty ? 0 : server.zones[zone].objects.count)
    for object in own { isOwn[object.index] = true }
    func appliedAt(_ object: ObjectID) -> Int32 {
      let page = Self.lastAppliedPage(pages, server.zones[zone], object, ordered: ordered)
      return page >= 0 ? pages[page].appliedAt : -1
    }
    for object in own where !holdsServerValues(store, object, zone: zone) {
      end.converged = false
      break
    }
    let changes = server.zones[zone].allChanges
    for change in changes[Int(covered)...]
    where server.zones[zone].objects[change.object.index].lastChange == change.token
      && !deletes.isDeleted[change.object.index] && (isOwn.isEmpty || !isOwn[change.object.index])
    {
      guard end.converged else { break }
      if !holdsServerValues(change.object, zone: zone, applied: appliedAt(change.object)) {
        end.converged = false
      }
    }
    for object in deletes.objects {
      let base = Int(server.zones[zone].objects[object.index].fieldBase)
      let now = server.zones[zone].server[base]
      let held: Bool
      if !isOwn.isEmpty && isOwn[object.index] {
        held = localField(store, object, field: base).value == 1
      } else {
        let applied = appliedAt(object)
        if end.converged && !holdsServerValues(object, zone: zone, applied: applied) { end.converged = false }
        held = applied >= 0 && server.zones[zone].value(of: base, at: applied).value == 1
      }
      if now.write != .none && now.value == 0 && held { end.ghosts += 1 }
    }
    return end
  }

  /// Whether the store holds the server's write in every field of `object`, read as the run
  /// reads its copy (`localField`).
  func holdsServerValues(_ store: StoreID, _ object: ObjectID, zone: Int) -> Bool {
    let base = Int(server.zones[zone].objects[object.index].fieldBase)
    for field in base..<base + fieldCount(zone: zone, object: object)
    where localField(store, object, field: field).write != server.zones[zone].server[field].write {
      return false
    }
    return true
  }

  /// Whether a copy that took `object`'s values at set counter `applied` (−1: never) holds the
  /// server's values of every field now.
  func holdsServerValues(_ object: ObjectID, zone: Int, applied: Int32) -> Bool {
    let base = Int(server.zones[zone].objects[object.index].fieldBase)
    let fields = base..<base + fieldCount(zone: zone, object: object)
    if applied >= 0 && applied > server.zones[zone].lastSet(of: fields) { return true }
    for field in fields {
      let held = applied >= 0 ? server.zones[zone].value(of: field, at: applied) : ServerField()
      if held.write != server.zones[zone].server[field].write { return false }
    }
    return true
  }
}

/// The records a public delete set in a zone (no change a store could fetch): what the end of
/// the run asks each replayed copy about, besides the records changed after its pages.
struct PublicDeletes {
  let isDeleted: [Bool]
  /// In object order, each once.
  let objects: [ObjectID]

  init(_ zone: borrowing ZoneState) {
    var isDeleted = [Bool](repeating: false, count: zone.objects.count)
    for object in zone.publicDeletes { isDeleted[object.index] = true }
    self.isDeleted = isDeleted
    objects = isDeleted.indices.filter { isDeleted[$0] }.map { ObjectID($0) }
  }
}

/// A replayed store's running import's query (`AppliedPage`'s source).
struct ReplayQuery {
  var after: Int32 = 0
  var snapshot: Int32 = 0
  var queriedAt: Int32 = 0
  /// Where its pages split (`World.listPageTokens`); empty for one page.
  var pageTokens: [Int32] = []
}

/// What the end of the run reads of a replayed store's copy.
struct ReplayedEnd {
  var converged = true
  var ghosts = 0
}
