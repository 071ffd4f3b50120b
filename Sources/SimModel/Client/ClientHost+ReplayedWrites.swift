import SimKernel

/// Replayed stores that write: a public-database author keeps no copy of the zone either.
///
/// An author of a public-database app holds every record, as a reader does: 10,000 authors of
/// 19,000 posts kept 7.6 GB of copies. Its copy is replayed from its pages like a reader's
/// (`ClientHost+ReplayedStores`), and the fields it set itself are laid over it (`OverlayField`), a
/// handful a day. What the run reads of the copy (an edit's record and the write it replaces,
/// an export's fields) is answered from the overlay, or from the zone's history at the last page
/// that carried the record, found by walking the record's changes and the field's sets back
/// (`ZoneState.lastChange(of:upTo:)`, `ZoneState.value(of:at:)`).
extension ClientHost {
  /// The store's field as its copy holds it now: kept, laid over, or replayed.
  ///
  /// The replay reads the store's overlay, pages and zone, not `self`: a call that takes the
  /// world by value copies it (over 800 bytes) on every read, replayed or not (`fleet-100k` ran
  /// 1.04x slower so).
  @inline(__always)
  func localField(_ store: StoreID, _ object: ObjectID, field: Int) -> LocalField {
    guard isReplayed(store) else {
      return field < clients.local[store.index].count ? clients.local[store.index][field] : LocalField()
    }
    return Self.replayedField(
      clients.overlays[store.index], clients.appliedPages, store.index,
      server.zones[clients.stores[store.index].zone.index], object,
      field: field)
  }

  /// A replayed store's field: laid over, or replayed from its last page that carried the record
  /// (its pages are unpacked only then).
  static func replayedField(
    _ overlay: OverlayFields, _ log: AppliedPageLog, _ store: Int, _ zone: borrowing ZoneState, _ object: ObjectID,
    field: Int
  ) -> LocalField {
    let entry = overlay.entry(field, of: object)
    if let entry, entry.local.dirty { return entry.local }
    let pages = log.pages(store)
    let page = lastAppliedPage(pages, zone, object, ordered: log.isOrdered(store))
    return replayedField(entry, pages, page: page, zone, field: field)
  }

  /// A replayed store's field whose overlay entry (`entry`) is not dirty, given the position in
  /// `pages` of the last page that carried its record (−1: none): the entry while no page has
  /// overwritten it, else the value at that page. For a caller that knows the page already (a
  /// page just logged that carried the record).
  @inline(__always)
  static func replayedField(
    _ entry: OverlayField?, _ pages: [AppliedPage], page: Int, _ zone: borrowing ZoneState, field: Int
  ) -> LocalField {
    if let entry, page < Int(entry.since) { return entry.local }
    guard page >= 0 else { return LocalField() }
    let held = zone.value(of: field, at: pages[page].appliedAt)
    return LocalField(write: held.write, value: held.value)
  }

  /// Sets a replayed store's field: unexported (a local edit), or clean (an edit lost, the field
  /// taking the server's value).
  mutating func setOverlay(
    _ store: StoreID, _ object: ObjectID, _ field: Int, write: WriteID, value: Int32, dirty: Bool = true
  ) {
    let entry = OverlayField(
      field: Int32(field), local: LocalField(write: write, value: value, dirty: dirty),
      since: Int32(clients.appliedPages.count(store.index)))
    clients.overlays[store.index].set(entry, of: object)
    // The newest overlay entry is the field's value (no page applied since it): an object's
    // first field set so is its liveness in the store.
    if clients.replayedLive.isBuilt(store.index) {
      let zone = clients.stores[store.index].zone.index
      if Int(server.zones[zone].objects[object.index].fieldBase) == field {
        clients.replayedLive.update(
          store.index, object: object.raw, entity: Int(server.zones[zone].objects[object.index].entity),
          isLive: value == 1)
      }
    }
  }

  /// Builds `store`'s index of live objects: every object's first field replayed (the page log
  /// keeps this store's pages decoded meanwhile).
  mutating func buildReplayedLiveIndex(_ store: StoreID) {
    let zone = clients.stores[store.index].zone.index
    var lists: [[Int32]] = []
    for object in 0..<server.zones[zone].objects.count where isLive(store, ObjectID(object)) {
      let entity = Int(server.zones[zone].objects[object].entity)
      if entity >= lists.count { lists.append(contentsOf: repeatElement([], count: entity + 1 - lists.count)) }
      lists[entity].append(Int32(object))
    }
    clients.replayedLive.set(store.index, lists)
  }

  /// The export committed `write`: a replayed store's field that still holds it is clean from
  /// now on (a page applied later overwrites it). A delete's record is put apart in the overlay
  /// once it is clean (`OverlayFields.retire`).
  mutating func markExported(_ store: StoreID, _ object: ObjectID, _ field: Int, write: WriteID) {
    guard !clients.overlays.isEmpty else { return }
    let since = Int32(clients.appliedPages.count(store.index))
    var deleted = false
    clients.overlays[store.index].modify(field, of: object) { entry in
      guard entry.local.dirty, entry.local.write == write else { return }
      entry.local.dirty = false
      entry.since = since
      deleted = entry.local.value == 0
    }
    guard deleted else { return }
    let zone = clients.stores[store.index].zone.index
    let base = Int(server.zones[zone].objects[object.index].fieldBase)
    guard field == base else { return }
    clients.overlays[store.index].retire(
      object, fields: Int32(base)..<Int32(base + fieldCount(zone: zone, object: object)))
  }

  /// The position in a store's log of the last page that carried `object` (−1: none): the
  /// newest whose range holds the record's last change up to its snapshot, the record being live
  /// at its query. It walks the zone's chains back (`ZoneState.lastChange(of:upTo:)`,
  /// `ZoneState.value(of:at:)`): the run's reads, `keepCopy` and the end of the run share it.
  ///
  /// In a log whose ranges and snapshots never go down (`AppliedPageLog.isOrdered`), a page whose
  /// range starts at or after the record's last change up to its snapshot is followed by a binary
  /// search for the newest page that starts before it: every page in between starts after that
  /// change, and sees it or an older one, so it cannot have carried the record. A record last
  /// changed weeks ago was found by walking back every page since (a public author's run of 16
  /// days spent a fifth of its time so).
  static func lastAppliedPage(
    _ pages: [AppliedPage], _ zone: borrowing ZoneState, _ object: ObjectID, ordered: Bool
  ) -> Int {
    let found = lastAppliedPage(pages, zone, object, searching: ordered)
    assert(
      !ordered || found == lastAppliedPage(pages, zone, object, searching: false), "the search and the walk differ")
    return found
  }

  private static func lastAppliedPage(
    _ pages: [AppliedPage], _ zone: borrowing ZoneState, _ object: ObjectID, searching: Bool
  ) -> Int {
    var index = pages.count - 1
    while index >= 0 {
      let (carried, token) = carries(pages[index], zone, object)
      if carried { return index }
      if searching && token <= pages[index].lower {
        index = min(index, pages.partitionPoint { $0.lower < token }) - 1
      } else {
        index -= 1
      }
    }
    return -1
  }

  /// Whether `page` carried `object`: the record's last change up to the page's snapshot is in
  /// the page's range, and the record was live at its query. Also that change's token. The one
  /// rule `lastAppliedPage`, `dropSupersededOverlay` and `continues` read a page by.
  @inline(__always)
  static func carries(_ page: AppliedPage, _ zone: borrowing ZoneState, _ object: ObjectID) -> (Bool, token: Int32) {
    let token = zone.lastChange(of: object, upTo: page.snapshot)
    guard page.lower < token && token <= page.upper else { return (false, token) }
    let base = Int(zone.objects[object.index].fieldBase)
    return (zone.value(of: base, at: page.queriedAt).value != 0, token)
  }

  /// The objects a replayed store's overlay touches, ascending, each once.
  func overlayObjects(_ store: StoreID) -> [ObjectID] {
    guard !clients.overlays.isEmpty, !clients.overlays[store.index].isEmpty else { return [] }
    let zone = clients.stores[store.index].zone.index
    var objects: [ObjectID] = []
    for entry in clients.overlays[store.index] {
      let object = server.zones[zone].object(atField: Int(entry.field))
      if objects.last != object { objects.append(object) }
    }
    return objects
  }
}
