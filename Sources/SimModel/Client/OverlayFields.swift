/// A replayed store's own fields (`OverlayField`), laid over the copy replayed from its pages:
/// the entries of records it may still touch, and apart from them those of records it deleted
/// itself (retired).
///
/// A page never carries a record that a public delete removed (it leaves nothing a store can
/// fetch), so the entries of an author's own deletes stayed for the whole run: at 32 days,
/// 266,000 of each author's 290,000 entries, and every search at an edit or an export went
/// through them. Kept apart, the entries those searches read stay about as many as the store's
/// unexported edits. Every operation names the entry's object and goes to the part that holds
/// it, so an object's entries are always in one part and every answer is the one a single set
/// of entries would give.
struct OverlayFields: Sequence {
  private var current = OverlayFieldBlocks()
  private var retired = RetiredOverlayFields()

  var isEmpty: Bool { current.isEmpty && retired.isEmpty }

  /// How many entries each part holds: those searched at edits and exports, and those put apart.
  var counts: (current: Int, retired: Int) { (current.count, retired.count) }

  /// Bytes the entries and their blocks and runs take.
  var bytes: Int { current.bytes + retired.bytes }

  /// The entry of `field`, one of `object`'s, if the store set it.
  func entry(_ field: Int, of object: ObjectID) -> OverlayField? {
    retired.holds(object) ? retired.entry(field, of: object) : current.entry(field)
  }

  /// Sets `entry`, a field of `object`, replacing the entry of its field if there is one.
  mutating func set(_ entry: OverlayField, of object: ObjectID) {
    if retired.holds(object) { retired.set(entry, of: object) } else { current.set(entry) }
  }

  /// Changes the entry of `field`, one of `object`'s, in place with `body`; false when the store
  /// did not set it.
  @discardableResult
  mutating func modify(_ field: Int, of object: ObjectID, _ body: (inout OverlayField) -> Void) -> Bool {
    retired.holds(object) ? retired.modify(field, of: object, body) : current.modify(field, body)
  }

  /// Removes the entry of each of `object`'s `fields` that is there and that `shouldRemove`
  /// says to.
  mutating func remove(_ fields: Range<Int32>, of object: ObjectID, where shouldRemove: (OverlayField) -> Bool) {
    if retired.holds(object) {
      retired.remove(fields, of: object, where: shouldRemove)
    } else {
      current.remove(fields, where: shouldRemove)
    }
  }

  /// Puts `object`'s entries (its `fields`) apart, for good: the store deleted it and is
  /// unlikely to touch it again.
  mutating func retire(_ object: ObjectID, fields: Range<Int32>) {
    guard !retired.holds(object) else { return }
    retired.add(object, current.take(fields))
  }

  /// Removes every entry that `shouldRemove` says to.
  mutating func removeAll(where shouldRemove: (OverlayField) -> Bool) {
    current.removeAll(where: shouldRemove)
    retired.removeAll(where: shouldRemove)
  }

  /// Every entry, by field (each field is in one part).
  func makeIterator() -> Iterator { Iterator(current.makeIterator(), retired.sortedEntries().makeIterator()) }

  /// The two parts' entries merged by field.
  struct Iterator: IteratorProtocol {
    private var current: OverlayFieldBlocks.Iterator
    private var retired: [OverlayField].Iterator
    private var nextCurrent: OverlayField?
    private var nextRetired: OverlayField?

    init(_ current: OverlayFieldBlocks.Iterator, _ retired: [OverlayField].Iterator) {
      self.current = current
      self.retired = retired
      nextCurrent = self.current.next()
      nextRetired = self.retired.next()
    }

    mutating func next() -> OverlayField? {
      guard let fromCurrent = nextCurrent else {
        defer { nextRetired = retired.next() }
        return nextRetired
      }
      if let fromRetired = nextRetired, fromRetired.field < fromCurrent.field {
        nextRetired = retired.next()
        return fromRetired
      }
      nextCurrent = current.next()
      return fromCurrent
    }
  }
}
