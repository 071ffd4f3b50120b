/// Overlay entries (`OverlayField`) kept by object, each object's in one run of a flat array:
/// the entries of records a replayed store put apart (`OverlayFields.retire`).
///
/// Finding a field reads its object's run, a few entries; putting an object's entries apart
/// appends them. A field set that is not in its object's run moves the run to the end; the
/// entries left behind and those removed stay as gaps (`OverlayField.field` of −1), few since an
/// object is put apart once it is deleted and clean.
struct RetiredOverlayFields {
  private var entries: [OverlayField] = []
  /// Per object (by index, grown as objects are put apart): its run in `entries`, or a count of
  /// −1 when it has none.
  private var runs: [(start: Int32, count: Int32)] = []
  private static let gap: Int32 = -1

  var isEmpty: Bool { entries.isEmpty }

  /// How many entries there are (gaps left out).
  var count: Int { entries.reduce(0) { $0 + ($1.field == Self.gap ? 0 : 1) } }

  /// Bytes the entries and the runs take (capacity).
  var bytes: Int {
    entries.capacity * MemoryLayout<OverlayField>.stride + runs.capacity * MemoryLayout<(Int32, Int32)>.stride
  }

  /// Whether `object`'s entries are kept here.
  @inline(__always)
  func holds(_ object: ObjectID) -> Bool { object.index < runs.count && runs[object.index].count >= 0 }

  /// Keeps `taken`, `object`'s entries in field order, from now on (the object must not be here).
  mutating func add(_ object: ObjectID, _ taken: [OverlayField]) {
    if object.index >= runs.count {
      runs.append(contentsOf: repeatElement((start: 0, count: -1), count: object.index + 1 - runs.count))
    }
    runs[object.index] = (Int32(entries.count), Int32(taken.count))
    entries.append(contentsOf: taken)
  }

  /// Where `field` is in `object`'s run.
  private func position(_ field: Int32, of object: ObjectID) -> Int? {
    let run = runs[object.index]
    for position in Int(run.start)..<Int(run.start + run.count) where entries[position].field == field {
      return position
    }
    return nil
  }

  /// The entry of `field`, one of `object`'s, if there is one.
  func entry(_ field: Int, of object: ObjectID) -> OverlayField? {
    position(Int32(field), of: object).map { entries[$0] }
  }

  /// Sets `entry`, one of `object`'s fields, replacing the entry of its field if there is one.
  mutating func set(_ entry: OverlayField, of object: ObjectID) {
    if let position = position(entry.field, of: object) {
      entries[position] = entry
      return
    }
    let run = runs[object.index]
    var moved = entries[Int(run.start)..<Int(run.start + run.count)].filter { $0.field != Self.gap }
    for position in Int(run.start)..<Int(run.start + run.count) { entries[position].field = Self.gap }
    moved.insert(entry, at: moved.partitionPoint { $0.field < entry.field })
    runs[object.index] = (Int32(entries.count), Int32(moved.count))
    entries.append(contentsOf: moved)
  }

  /// Changes the entry of `field`, one of `object`'s, in place; false when there is none.
  mutating func modify(_ field: Int, of object: ObjectID, _ body: (inout OverlayField) -> Void) -> Bool {
    guard let position = position(Int32(field), of: object) else { return false }
    body(&entries[position])
    return true
  }

  /// Removes each of `object`'s entries in `fields` that `shouldRemove` says to.
  mutating func remove(_ fields: Range<Int32>, of object: ObjectID, where shouldRemove: (OverlayField) -> Bool) {
    let run = runs[object.index]
    for position in Int(run.start)..<Int(run.start + run.count)
    where fields.contains(entries[position].field) && shouldRemove(entries[position]) {
      entries[position].field = Self.gap
    }
  }

  /// Removes every entry that `shouldRemove` says to.
  mutating func removeAll(where shouldRemove: (OverlayField) -> Bool) {
    for position in entries.indices where entries[position].field != Self.gap && shouldRemove(entries[position]) {
      entries[position].field = Self.gap
    }
  }

  /// Every entry, by field: objects' fields are laid out in object order, and each run is in
  /// field order.
  func sortedEntries() -> [OverlayField] {
    var sorted: [OverlayField] = []
    for run in runs where run.count > 0 {
      for position in Int(run.start)..<Int(run.start + run.count) where entries[position].field != Self.gap {
        sorted.append(entries[position])
      }
    }
    return sorted
  }
}
