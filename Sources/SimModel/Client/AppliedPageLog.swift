/// Per replayed store, the pages its imports applied (`AppliedPage`), in order, packed.
///
/// A million-install public-database day logs about a dozen pages a reader. As an array per
/// store they took about 400 bytes a reader (20 bytes a page, the array's header, allocation and
/// spare capacity), 0.4 GB in all. Here each store's newest page is kept whole, since the next
/// page of its import may still extend it (`World.logPage`), and the older ones are packed into
/// shared chunks (`ByteStreams`) as five small numbers: each told as its difference from the page
/// after it, which is mostly zero or a few hundred tokens.
final class AppliedPageLog {
  private let packed = ByteStreams()
  /// Per store, its newest page (valid when its count is above 0) and how many it has.
  private var newest: [AppliedPage] = []
  private var counts: [Int32] = []
  /// Per store, whether a page was logged whose token range or snapshot is below its
  /// predecessor's: `World.lastAppliedPage` may search an ordered log instead of walking it.
  private var disordered: [Bool] = []
  /// The stores whose pages were decoded last, and them, newest use last: an author's edits read
  /// its copy again and again, and decoding every page each time made a public-database author's
  /// run grow as the square of its days. A few stores' only, so readers' logs stay packed; a
  /// cached store's new pages are added to its decoded ones, not decoded again (two authors,
  /// each editing in turn, decoded the other's whole log at every edit while one store was kept).
  private var decoded: [(store: Int, pages: [AppliedPage])] = []
  static let decodedStores = 4
  /// Per store, where its pages are kept whole in `unpacked` (−1: packed). An author's store
  /// reads its pages at each of its edits: 40 authors editing in turn through four decoded
  /// stores decoded a whole log at nearly every edit (48 % of a 10-day run), growing with the
  /// square of the days. Authors are few beside readers, and their logs a few thousand pages.
  private var unpackedSlot: [Int32] = []
  private var unpacked: [[AppliedPage]] = []

  init(stores: Int) {
    newest = [AppliedPage](
      repeating: AppliedPage(lower: 0, upper: 0, snapshot: 0, queriedAt: 0, appliedAt: 0), count: stores)
    counts = [Int32](repeating: 0, count: stores)
    disordered = [Bool](repeating: false, count: stores)
    unpackedSlot = [Int32](repeating: -1, count: stores)
    for _ in 0..<stores { packed.addStream() }
  }

  /// Keeps `store`'s pages whole from now on, never packed (it must have none yet).
  func keepUnpacked(_ store: Int) {
    guard unpackedSlot[store] < 0 else { return }
    precondition(counts[store] == 0, "a store's pages are kept whole from its start")
    unpackedSlot[store] = Int32(unpacked.count)
    unpacked.append([])
  }

  /// Bytes the log takes: its chunks, its per-store fields and the few stores' decoded pages.
  var bytes: Int {
    packed.bytesInMemory
      + (newest.capacity + decoded.reduce(0) { $0 + $1.pages.capacity } + unpacked.reduce(0) { $0 + $1.capacity })
      * MemoryLayout<AppliedPage>.stride + (counts.capacity + unpackedSlot.capacity) * 4
  }

  /// How many pages `store` has logged.
  @inline(__always)
  func count(_ store: Int) -> Int { Int(counts[store]) }

  /// Whether `store`'s pages have token ranges (`lower`) and snapshots that never go down.
  func isOrdered(_ store: Int) -> Bool { !disordered[store] }

  /// `store`'s newest page, if it has one.
  func last(_ store: Int) -> AppliedPage? { counts[store] > 0 ? newest[store] : nil }

  /// Logs `page` as `store`'s newest.
  func append(_ store: Int, _ page: AppliedPage) {
    if let slot = slot(of: store) { decoded[slot].pages.append(page) }
    if counts[store] > 0 {
      let previous = newest[store]
      if page.lower < previous.lower || page.snapshot < previous.snapshot { disordered[store] = true }
      if unpackedSlot[store] < 0 { pack(store, previous, before: page) }
    }
    if unpackedSlot[store] >= 0 { unpacked[Int(unpackedSlot[store])].append(page) }
    newest[store] = page
    counts[store] += 1
  }

  /// Extends `store`'s newest page to `upper`, its records taking their values at `appliedAt`.
  func extendLast(_ store: Int, upper: Int32, appliedAt: Int32) {
    if unpackedSlot[store] >= 0, !unpacked[Int(unpackedSlot[store])].isEmpty {
      let slot = Int(unpackedSlot[store])
      unpacked[slot][unpacked[slot].count - 1].upper = upper
      unpacked[slot][unpacked[slot].count - 1].appliedAt = appliedAt
    }
    if let slot = slot(of: store), !decoded[slot].pages.isEmpty {
      decoded[slot].pages[decoded[slot].pages.count - 1].upper = upper
      decoded[slot].pages[decoded[slot].pages.count - 1].appliedAt = appliedAt
    }
    newest[store].upper = upper
    newest[store].appliedAt = appliedAt
  }

  /// Forgets `store`'s pages.
  func removeAll(_ store: Int) {
    decoded.removeAll { $0.store == store }
    if unpackedSlot[store] >= 0 { unpacked[Int(unpackedSlot[store])].removeAll() }
    disordered[store] = false
    packed.clear(store)
    counts[store] = 0
  }

  /// `store`'s pages, oldest first.
  func pages(_ store: Int) -> [AppliedPage] {
    if unpackedSlot[store] >= 0 { return unpacked[Int(unpackedSlot[store])] }
    if let slot = slot(of: store) {
      if slot != decoded.count - 1 { decoded.append(decoded.remove(at: slot)) }
      return decoded[decoded.count - 1].pages
    }
    let result = decode(store)
    if decoded.count == Self.decodedStores { decoded.removeFirst() }
    decoded.append((store, result))
    return result
  }

  /// Where `store`'s decoded pages are among the few kept, if they are.
  private func slot(of store: Int) -> Int? { decoded.firstIndex { $0.store == store } }

  /// `store`'s pages, decoded from the packed log.
  private func decode(_ store: Int) -> [AppliedPage] {
    let count = Int(counts[store])
    guard count > 0 else { return [] }
    var result = [AppliedPage](repeating: newest[store], count: count)
    // The packed pages' differences, read oldest first into their slots, then resolved from the
    // newest back.
    var reader = packed.reader(of: store)
    for index in 0..<count - 1 {
      result[index] = AppliedPage(
        lower: Self.next(&reader), upper: Self.next(&reader), snapshot: Self.next(&reader),
        queriedAt: Self.next(&reader), appliedAt: Self.next(&reader))
    }
    for index in stride(from: count - 2, through: 0, by: -1) {
      let difference = result[index]
      let next = result[index + 1]
      let upper = next.lower &- difference.lower
      let queriedAt = next.queriedAt &- difference.queriedAt
      result[index] = AppliedPage(
        lower: upper &- difference.upper, upper: upper, snapshot: next.snapshot &- difference.snapshot,
        queriedAt: queriedAt, appliedAt: queriedAt &+ difference.appliedAt)
    }
    return result
  }

  /// Packs `page` as its differences from `next`, the page logged after it (wrapping: any two
  /// pages' fields differ by an Int32 modulo 2³²), in `AppliedPage`'s field order.
  private func pack(_ store: Int, _ page: AppliedPage, before next: AppliedPage) {
    var entry = ByteStreams.Entry()
    entry.putSigned(Int64(next.lower &- page.upper))
    entry.putSigned(Int64(page.upper &- page.lower))
    entry.putSigned(Int64(next.snapshot &- page.snapshot))
    entry.putSigned(Int64(next.queriedAt &- page.queriedAt))
    entry.putSigned(Int64(page.appliedAt &- page.queriedAt))
    packed.append(store, entry)
  }

  @inline(__always)
  private static func next(_ reader: inout ByteStreams.Reader) -> Int32 {
    Int32(truncatingIfNeeded: reader.nextSigned())
  }
}
