/// Per replayed store, its live objects of each entity: an edit's random live object is one
/// successor search, not a scan that replays every object from the store's pages.
///
/// Finding it by scanning took time that grew with the objects times the pages (each look
/// decoded the store's page log and walked it back), so a public-database author editing at 600
/// an hour with 40 % deletes ran 1 day in 9 s and 2 days in 72 s. The index is a cache: dropped
/// when the store's pages change (an import applied, a reset, the copy kept), rebuilt at the
/// next look with the pages decoded once, and kept exact meanwhile through the store's own
/// edits (`World.setOverlay`). Its answer is the scan's: the first live object of the entity at
/// or after the drawn start, wrapping round.
///
/// Each entity's objects are a bit set over the zone's object ids with a summary bit per word
/// that is not empty: an update is constant time, and a search skips 4,096 dead ids per summary
/// bit. (A sorted array of the live ids moved its tail at every delete: a sixth of a 16-day
/// author's run.)
struct ReplayedLiveIndex {
  /// Per store: nil while not built; else, per entity, its live objects.
  private var live: [[LiveSet]?] = []

  init(stores: Int) { live = [[LiveSet]?](repeating: nil, count: stores) }

  /// Whether `store`'s index is built.
  func isBuilt(_ store: Int) -> Bool { store < live.count && live[store] != nil }

  /// Drops `store`'s index (its pages changed).
  mutating func invalidate(_ store: Int) {
    if store < live.count { live[store] = nil }
  }

  /// Sets `store`'s index: per entity, its live objects (any order).
  mutating func set(_ store: Int, _ lists: [[Int32]]) {
    live[store] = lists.map { objects in
      var set = LiveSet()
      for object in objects { set.update(object, isLive: true) }
      return set
    }
  }

  /// Records that `object` of `entity` is now live in `store`, or not.
  mutating func update(_ store: Int, object: Int32, entity: Int, isLive: Bool) {
    guard store < live.count, live[store] != nil else { return }
    if entity >= live[store]!.count {
      live[store]!.append(contentsOf: repeatElement(LiveSet(), count: entity + 1 - live[store]!.count))
    }
    live[store]![entity].update(object, isLive: isLive)
  }

  /// The first live object of `entity` in `store` at or after `start`, wrapping round; nil when
  /// none is live. - Precondition: the index is built.
  func first(_ store: Int, entity: Int, atOrAfter start: Int32) -> Int32? {
    guard entity < live[store]!.count else { return nil }
    let objects = live[store]![entity]
    return objects.first(atOrAfter: max(0, start)) ?? objects.first(atOrAfter: 0)
  }

  /// A set of object ids: a bit per id, and a summary bit per word that has any.
  struct LiveSet {
    private var words: [UInt64] = []
    private var summary: [UInt64] = []

    mutating func update(_ object: Int32, isLive: Bool) {
      guard object >= 0 else { return }
      let word = Int(object) >> 6
      if word >= words.count {
        guard isLive else { return }
        words.append(contentsOf: repeatElement(0, count: max(word + 1, 2 * words.count) - words.count))
        summary.append(contentsOf: repeatElement(0, count: (words.count + 63) / 64 - summary.count))
      }
      let bit = UInt64(1) << UInt64(object & 63)
      if isLive { words[word] |= bit } else { words[word] &= ~bit }
      let summaryBit = UInt64(1) << UInt64(word & 63)
      if words[word] != 0 { summary[word >> 6] |= summaryBit } else { summary[word >> 6] &= ~summaryBit }
    }

    /// The smallest id in the set at or after `start`, nil when none.
    func first(atOrAfter start: Int32) -> Int32? {
      let word = Int(start) >> 6
      guard word < words.count else { return nil }
      let here = words[word] & (~UInt64(0) << UInt64(start & 63))
      if here != 0 { return Int32(word << 6 + here.trailingZeroBitCount) }
      // The next word that has any, through the summary.
      var group = (word + 1) >> 6
      var mask = (word + 1) & 63 == 0 ? ~UInt64(0) : ~UInt64(0) << UInt64((word + 1) & 63)
      while group < summary.count {
        let bits = summary[group] & mask
        if bits != 0 {
          let next = group << 6 + bits.trailingZeroBitCount
          return Int32(next << 6 + words[next].trailingZeroBitCount)
        }
        group += 1
        mask = ~UInt64(0)
      }
      return nil
    }
  }
}
