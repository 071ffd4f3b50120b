/// Per replayed store, its live objects of each entity, ascending: an edit's random live object is
/// one successor search, not a scan that replays every object from the store's pages.
///
/// Finding it by scanning took time that grew with the objects times the pages (each look
/// decoded the store's page log and walked it back), so a public-database author editing at 600
/// an hour with 40 % deletes ran 1 day in 9 s and 2 days in 72 s. The index is a cache: dropped
/// when the store's pages change (an import applied, a reset, the copy kept), rebuilt at the
/// next look with the pages decoded once, and kept exact meanwhile through the store's own
/// edits (`World.setOverlay`). Its answer is the scan's: the first live object of the entity at
/// or after the drawn start, wrapping round.
struct ReplayedLiveIndex {
  /// Per store: nil while not built; else, per entity, the live objects ascending.
  private var live: [[[Int32]]?] = []

  init(stores: Int) { live = [[[Int32]]?](repeating: nil, count: stores) }

  /// Whether `store`'s index is built.
  func isBuilt(_ store: Int) -> Bool { store < live.count && live[store] != nil }

  /// Drops `store`'s index (its pages changed).
  mutating func invalidate(_ store: Int) {
    if store < live.count { live[store] = nil }
  }

  /// Sets `store`'s index: per entity, the live objects ascending.
  mutating func set(_ store: Int, _ lists: [[Int32]]) { live[store] = lists }

  /// Records that `object` of `entity` is now live in `store`, or not.
  mutating func update(_ store: Int, object: Int32, entity: Int, isLive: Bool) {
    guard store < live.count, live[store] != nil else { return }
    if entity >= live[store]!.count { live[store]!.append(contentsOf: repeatElement([], count: entity + 1 - live[store]!.count)) }
    let position = live[store]![entity].partitionPoint { $0 < object }
    let present = position < live[store]![entity].count && live[store]![entity][position] == object
    if isLive && !present { live[store]![entity].insert(object, at: position) }
    if !isLive && present { live[store]![entity].remove(at: position) }
  }

  /// The first live object of `entity` in `store` at or after `start`, wrapping round; nil when
  /// none is live. - Precondition: the index is built.
  func first(_ store: Int, entity: Int, atOrAfter start: Int32) -> Int32? {
    guard entity < live[store]!.count else { return nil }
    let objects = live[store]![entity]
    guard !objects.isEmpty else { return nil }
    let position = objects.partitionPoint { $0 < start }
    return position < objects.count ? objects[position] : objects[0]
  }
}
