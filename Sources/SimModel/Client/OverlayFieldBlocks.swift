/// Overlay entries (`OverlayField`) sorted by field, in blocks of at most `blockLimit` entries:
/// setting a field in the middle moves one block's entries, not every entry after it.
///
/// As one sorted array, an author editing random old records at 600 an hour inserted into the
/// middle each time, and the moves were a quarter of an 8-day public-database run, growing with
/// the square of its days.
struct OverlayFieldBlocks: Sequence {
  /// The most entries a block holds before it splits in two.
  static let blockLimit = 512
  private var blocks: [[OverlayField]] = []
  /// Each block's first field, for finding a field's block.
  private var firsts: [Int32] = []

  var isEmpty: Bool { blocks.isEmpty }

  /// How many entries there are.
  var count: Int { blocks.reduce(0) { $0 + $1.count } }

  /// Bytes the entries and their blocks take (capacity, as `World.memoryReport` counts arrays).
  var bytes: Int {
    blocks.reduce(blocks.capacity * MemoryLayout<[OverlayField]>.stride) {
      $0 + $1.capacity * MemoryLayout<OverlayField>.stride
    } + firsts.capacity * MemoryLayout<Int32>.stride
  }

  /// The entry of `field`, if the store set it.
  func entry(_ field: Int) -> OverlayField? {
    guard let (block, position, found) = locate(Int32(field)), found else { return nil }
    return blocks[block][position]
  }

  /// Sets `entry`, replacing the entry of its field if there is one.
  mutating func set(_ entry: OverlayField) {
    guard let (index, position, found) = locate(entry.field) else {
      blocks = [[entry]]
      firsts = [entry.field]
      return
    }
    if found {
      blocks[index][position] = entry
      return
    }
    blocks[index].insert(entry, at: position)
    firsts[index] = blocks[index][0].field
    if blocks[index].count > Self.blockLimit {
      let half = blocks[index].count / 2
      let upper = Array(blocks[index][half...])
      blocks[index].removeSubrange(half...)
      blocks.insert(upper, at: index + 1)
      firsts.insert(upper[0].field, at: index + 1)
    }
  }

  /// Changes the entry of `field` in place with `body`; false when the store did not set it.
  @discardableResult
  mutating func modify(_ field: Int, _ body: (inout OverlayField) -> Void) -> Bool {
    guard let (block, position, found) = locate(Int32(field)), found else { return false }
    body(&blocks[block][position])
    return true
  }

  /// Removes the entry of each field of `fields` that is there and that `shouldRemove` says to.
  ///
  /// The entries of a range are consecutive: one search finds the first, and the walk goes on
  /// from there (a search per field was 8 % of a 32-day public author's run).
  mutating func remove(_ fields: Range<Int32>, where shouldRemove: (OverlayField) -> Bool) {
    guard !fields.isEmpty, var (block, position, _) = locate(fields.lowerBound) else { return }
    while block < blocks.count {
      var reachedEnd = false
      while position < blocks[block].count {
        let entry = blocks[block][position]
        if entry.field >= fields.upperBound {
          reachedEnd = true
          break
        }
        if entry.field >= fields.lowerBound && shouldRemove(entry) {
          blocks[block].remove(at: position)
        } else {
          position += 1
        }
      }
      if blocks[block].isEmpty {
        blocks.remove(at: block)
        firsts.remove(at: block)
      } else {
        firsts[block] = blocks[block][0].field
        block += 1
      }
      if reachedEnd { return }
      position = 0
    }
  }

  /// Removes the entries of `fields` and returns them, in field order.
  mutating func take(_ fields: Range<Int32>) -> [OverlayField] {
    var taken: [OverlayField] = []
    remove(fields) {
      taken.append($0)
      return true
    }
    return taken
  }

  /// Removes every entry that `shouldRemove` says to.
  mutating func removeAll(where shouldRemove: (OverlayField) -> Bool) {
    for index in blocks.indices { blocks[index].removeAll(where: shouldRemove) }
    blocks.removeAll { $0.isEmpty }
    firsts = blocks.map { $0[0].field }
  }

  typealias Iterator = FlattenSequence<[[OverlayField]]>.Iterator

  func makeIterator() -> Iterator { blocks.joined().makeIterator() }

  /// Where `field` is, or would go: its block (the last whose first field is at or before it,
  /// the first block for a field before every block), its position there, and whether it is
  /// there; nil when there is no block.
  private func locate(_ field: Int32) -> (block: Int, position: Int, found: Bool)? {
    guard !blocks.isEmpty else { return nil }
    // Searched through buffer pointers: reading `blocks[block]` as an array retained and released
    // it on every search, the most called path of a public author's run.
    let block = firsts.withUnsafeBufferPointer { firsts in Swift.max(0, firsts.partitionPoint { $0 <= field } - 1) }
    return blocks.withUnsafeBufferPointer { blocks in
      blocks[block].withUnsafeBufferPointer { entries in
        let position = entries.partitionPoint { $0.field < field }
        return (block, position, position < entries.count && entries[position].field == field)
      }
    }
  }
}
