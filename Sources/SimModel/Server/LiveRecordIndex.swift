/// A zone's live records counted at their last change's token, with their bytes: what a public
/// query of the changes since a token returns (how many records, how many bytes, and the token at
/// which each page of them starts), in logarithmic time instead of a pass over the changes.
///
/// A Fenwick tree over tokens. Kept only for zones with replayed stores (`ClientHost+ReplayedStores`),
/// whose imports need no list of records: a million readers each scanning the day's changes were
/// most of a public-database run's model time.
struct LiveRecordIndex {
  /// Fenwick trees of the records and bytes counted at each token (1-based; index 0 unused).
  private var counts: [Int32] = [0]
  private var bytes: [Int64] = [0]
  /// Per object, the token it is counted at (0: not counted), and its bytes.
  private var countedAt: [Int32] = []
  private var objectBytes: [Int64] = []

  /// Counts `object` at `token` (0: not at all, a deleted record) with `size` bytes.
  mutating func set(_ object: Int, token: Int32, size: Int64) {
    while countedAt.count <= object {
      countedAt.append(0)
      objectBytes.append(0)
    }
    let old = countedAt[object]
    guard old != token || objectBytes[object] != size else { return }
    if old > 0 { add(at: Int(old), count: -1, bytes: -objectBytes[object]) }
    countedAt[object] = 0
    guard token > 0 else { return }
    if Int(token) >= counts.count { grow(to: Int(token)) }
    countedAt[object] = token
    objectBytes[object] = size
    add(at: Int(token), count: 1, bytes: size)
  }

  /// The records counted after `token`, and their bytes.
  func after(_ token: Int32) -> (records: Int, bytes: Int64) {
    let (total, totalBytes) = prefix(counts.count - 1)
    let (before, beforeBytes) = prefix(min(Int(token), counts.count - 1))
    return (Int(total - before), totalBytes - beforeBytes)
  }

  /// The token of the `rank`-th counted record (1-based) in token order, or nil past the last.
  func token(ofRank rank: Int) -> Int32? {
    var position = 0
    var remaining = Int32(rank)
    var step = 1
    while step * 2 < counts.count { step *= 2 }
    while step > 0 {
      let next = position + step
      if next < counts.count && counts[next] < remaining {
        position = next
        remaining -= counts[next]
      }
      step /= 2
    }
    return position + 1 < counts.count ? Int32(position + 1) : nil
  }

  /// How many records are counted at tokens up to `token`.
  func rank(atOrBefore token: Int32) -> Int { Int(prefix(min(Int(token), counts.count - 1)).0) }

  private func prefix(_ index: Int) -> (Int32, Int64) {
    var (count, size) = (Int32(0), Int64(0))
    var i = index
    while i > 0 {
      count += counts[i]
      size += bytes[i]
      i &= i - 1
    }
    return (count, size)
  }

  private mutating func add(at index: Int, count: Int32, bytes size: Int64) {
    var i = index
    while i < counts.count {
      counts[i] += count
      bytes[i] += size
      i += i & -i
    }
  }

  /// Rebuilds the trees for tokens up to at least `token` (doubling, so growth is amortised).
  private mutating func grow(to token: Int) {
    var capacity = max(1024, counts.count)
    while capacity <= token { capacity *= 2 }
    counts = [Int32](repeating: 0, count: capacity)
    bytes = [Int64](repeating: 0, count: capacity)
    for object in countedAt.indices where countedAt[object] > 0 {
      add(at: Int(countedAt[object]), count: 1, bytes: objectBytes[object])
    }
  }
}
