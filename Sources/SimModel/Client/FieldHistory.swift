/// The server's values of a zone's fields over its set counter, for replaying read-only stores'
/// copies: each field's sets, in order, found by binary search.
struct FieldHistory {
  /// Per field, where its sets start in `sets` (one more entry than fields).
  private var start: [Int32]
  /// Positions in the zone's `fieldSets`, grouped by field, ascending within each.
  private var positions: [Int32]
  /// The last set of any field of each object (−1 if none).
  private(set) var lastSetOfObject: [Int32]

  /// Indexes `zone`'s field sets as they are now.
  init(_ zone: borrowing ZoneState, fieldCount: (ObjectID) -> Int) {
    let fields = Int(zone.fieldCount)
    var counts = [Int32](repeating: 0, count: fields + 1)
    for set in zone.fieldSets { counts[Int(set.field) + 1] += 1 }
    for field in 0..<fields { counts[field + 1] += counts[field] }
    start = counts
    var next = counts
    positions = [Int32](repeating: 0, count: zone.fieldSets.count)
    for (index, set) in zone.fieldSets.enumerated() {
      positions[Int(next[Int(set.field)])] = Int32(index)
      next[Int(set.field)] += 1
    }
    lastSetOfObject = [Int32](repeating: -1, count: zone.objects.count)
    for object in 0..<zone.objects.count {
      let base = Int(zone.objects[object].fieldBase)
      for field in base..<base + fieldCount(ObjectID(object)) where start[field + 1] > start[field] {
        lastSetOfObject[object] = max(lastSetOfObject[object], positions[Int(start[field + 1]) - 1])
      }
    }
  }

  /// The field's value when the zone's set counter was `counter`: its last set before then, or
  /// none.
  func value(of field: Int, at counter: Int32, in zone: borrowing ZoneState) -> ServerField {
    var (low, high) = (Int(start[field]), Int(start[field + 1]))
    while low < high {
      let mid = (low + high) / 2
      if positions[mid] < counter { low = mid + 1 } else { high = mid }
    }
    guard low > Int(start[field]) else { return ServerField() }
    let set = zone.fieldSets[Int(positions[low - 1])]
    return ServerField(write: set.write, value: set.value)
  }
}
