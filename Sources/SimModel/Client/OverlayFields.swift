/// A replayed store's own fields (`OverlayField`), sorted by field, in blocks of at most
/// `blockLimit` entries: setting a field in the middle moves one block's entries, not every
/// entry after it.
///
/// As one sorted array, an author editing random old records at 600 an hour inserted into the
/// middle each time, and the moves were a quarter of an 8-day public-database run, growing with
/// the square of its days.
struct OverlayFields: Sequence {
  /// The most entries a block holds before it splits in two.
  static let blockLimit = 512
  private var blocks: [[OverlayField]] = []
  /// Each block's first field, for finding a field's block.
  private var firsts: [Int32] = []

  var isEmpty: Bool { blocks.isEmpty }

  /// Bytes the entries and their blocks take (capacity, as `World.memoryReport` counts arrays).
  var bytes: Int {
    blocks.reduce(blocks.capacity * MemoryLayout<[OverlayField]>.stride) {
      $0 + $1.capacity * MemoryLayout<OverlayField>.stride
    } + firsts.capacity * MemoryLayout<Int32>.stride
  }

  /// The entry of `field`, if the store set it.
  func entry(_ field: Int) -> OverlayField? {
    guard !blocks.isEmpty else { return nil }
    let block = blocks[blockIndex(Int32(field))]
    let position = Self.firstPosition(block, atOrAfter: Int32(field))
    return position < block.count && block[position].field == Int32(field) ? block[position] : nil
  }

  /// Sets `entry`, replacing the entry of its field if there is one.
  mutating func set(_ entry: OverlayField) {
    guard !blocks.isEmpty else {
      blocks = [[entry]]
      firsts = [entry.field]
      return
    }
    let index = blockIndex(entry.field)
    let position = Self.firstPosition(blocks[index], atOrAfter: entry.field)
    if position < blocks[index].count && blocks[index][position].field == entry.field {
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
    guard !blocks.isEmpty else { return false }
    let index = blockIndex(Int32(field))
    let position = Self.firstPosition(blocks[index], atOrAfter: Int32(field))
    guard position < blocks[index].count && blocks[index][position].field == Int32(field) else { return false }
    body(&blocks[index][position])
    return true
  }

  /// Removes every entry that `shouldRemove` says to.
  mutating func removeAll(where shouldRemove: (OverlayField) -> Bool) {
    for index in blocks.indices { blocks[index].removeAll(where: shouldRemove) }
    blocks.removeAll { $0.isEmpty }
    firsts = blocks.map { $0[0].field }
  }

  func makeIterator() -> FlattenSequence<[[OverlayField]]>.Iterator { blocks.joined().makeIterator() }

  /// The block that holds `field`, or would: the last whose first field is at or before it (the
  /// first block for a field before every block).
  private func blockIndex(_ field: Int32) -> Int {
    var (low, high) = (0, firsts.count)
    while low < high {
      let mid = (low + high) / 2
      if firsts[mid] <= field { low = mid + 1 } else { high = mid }
    }
    return Swift.max(0, low - 1)
  }

  /// The first position in the ascending `block` of a field at or after `field`.
  private static func firstPosition(_ block: [OverlayField], atOrAfter field: Int32) -> Int {
    var (low, high) = (0, block.count)
    while low < high {
      let mid = (low + high) / 2
      if block[mid].field < field { low = mid + 1 } else { high = mid }
    }
    return low
  }
}
