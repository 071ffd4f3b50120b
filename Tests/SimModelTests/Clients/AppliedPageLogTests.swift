import SimKernel
import Testing

@testable import SimModel

/// Issue 37: replayed stores' pages are packed (`AppliedPageLog`). Every page must read back as
/// it was logged, and a day's pages must take a fraction of the 20 bytes each an array took.
@Suite struct AppliedPageLogTests {
  /// Random appends, extensions and clears over many interleaved stores, checked against arrays,
  /// with fields anywhere in Int32 (differences that wrap) as well as the usual small steps. Reads
  /// in between go through the cache of recently read stores, which takes later pages as they
  /// come (issue 53): each read must match too, and the log must know when it stays ordered.
  /// Authors' stores keep their pages whole (`keepUnpacked`): with a third of the stores so, every
  /// read is the same.
  @Test(arguments: [false, true])
  func pagesReadBackAsLogged(unpackingSome: Bool) {
    var random = RandomStream(seed: 37)
    let stores = 40
    let log = AppliedPageLog(stores: stores)
    if unpackingSome { for store in stride(from: 0, to: stores, by: 3) { log.keepUnpacked(store) } }
    var expected = [[AppliedPage]](repeating: [], count: stores)
    var ordered = [Bool](repeating: true, count: stores)
    var readsBetween = 0
    func value(near base: Int32) -> Int32 {
      random.nextInt(below: 8) == 0
        ? Int32(truncatingIfNeeded: random.next()) : base &+ Int32(random.nextInt(below: 500))
    }
    for _ in 0..<20_000 {
      let store = Int(random.nextInt(below: UInt64(stores)))
      let last = expected[store].last
      switch random.nextInt(below: 400) {
      case 0:
        log.removeAll(store)
        expected[store].removeAll()
        ordered[store] = true
      case 120..<200:
        // Few stores read often: most reads find them cached and extended since.
        let read = store % 6
        #expect(log.pages(read).map(\.upper) == expected[read].map(\.upper))
        #expect(log.pages(read).map(\.appliedAt) == expected[read].map(\.appliedAt))
        #expect(log.isOrdered(read) == ordered[read])
        readsBetween += 1
      case 1..<120 where last != nil:
        let upper = value(near: last!.upper)
        let appliedAt = value(near: last!.appliedAt)
        log.extendLast(store, upper: upper, appliedAt: appliedAt)
        expected[store][expected[store].count - 1].upper = upper
        expected[store][expected[store].count - 1].appliedAt = appliedAt
      default:
        let lower = last?.upper ?? 0
        let queriedAt = value(near: last?.queriedAt ?? 0)
        let page = AppliedPage(
          lower: random.nextInt(below: 4) == 0 ? value(near: lower) : lower, upper: value(near: lower),
          snapshot: value(near: last?.snapshot ?? 0), queriedAt: queriedAt, appliedAt: value(near: queriedAt))
        log.append(store, page)
        if let last, page.lower < last.lower || page.snapshot < last.snapshot { ordered[store] = false }
        expected[store].append(page)
      }
    }
    var checked = 0
    for store in 0..<stores {
      let pages = log.pages(store)
      #expect(log.count(store) == expected[store].count)
      #expect(pages.count == expected[store].count)
      for (got, want) in zip(pages, expected[store]) {
        #expect(
          (got.lower, got.upper, got.snapshot, got.queriedAt, got.appliedAt)
            == (want.lower, want.upper, want.snapshot, want.queriedAt, want.appliedAt))
        checked += 1
      }
    }
    #expect(checked > 5_000 && readsBetween > 3_000)
  }

  /// A reader's day: a dozen imports of a few hundred tokens, asked a few hundred sets apart.
  /// Packed, the pages take under 11 bytes each, chunks' unused tails included; as an array they
  /// took 20 each, and the array's header, allocation and spare capacity besides.
  @Test func aReadersPagesTakeFewBytes() {
    let readers = 1_000
    let log = AppliedPageLog(stores: readers)
    let before = log.bytes
    for reader in 0..<readers {
      var token: Int32 = Int32(reader % 7)
      var sets: Int32 = 0
      for _ in 0..<12 {
        let snapshot = token + 180 + Int32(reader % 50)
        log.append(
          reader, AppliedPage(lower: token, upper: snapshot, snapshot: snapshot, queriedAt: sets, appliedAt: sets + 3))
        token = snapshot
        sets += 400 + Int32(reader % 90)
      }
    }
    let perPage = Double(log.bytes - before) / Double(readers * 12)
    #expect(perPage < 11, "\(perPage) bytes a page")
    #expect(log.pages(readers - 1).count == 12)
    #expect(log.pages(readers - 1)[11].upper == log.last(readers - 1)!.upper)
  }
}
