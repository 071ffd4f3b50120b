import SimKernel
import SimModel
import Testing

@testable import SimMetrics

/// The packed log of each store's import pages and UI refreshes gives back exactly what was
/// logged, store by store, in order, however the stores' entries interleave.
@Suite struct ObserverLogTests {
  /// Entries of `stores` stores, interleaved at random: pages of imports that follow one another
  /// or come back to an earlier activity, tokens that fall back (a reset), times a nanosecond to
  /// days apart.
  func logged(
    stores: Int, entries: Int, seed: UInt64, into log: ObserverLog = ObserverLog(),
    keeping kept: [[ObserverLog.Entry]] = []
  ) -> (ObserverLog, [[ObserverLog.Entry]]) {
    var random = RandomStream(seed: seed)
    var expected = kept.isEmpty ? [[ObserverLog.Entry]](repeating: [], count: stores) : kept
    var (activity, token, at) = ([Int32](repeating: 0, count: stores), [Int32](repeating: 0, count: stores), Int64(0))
    for store in 0..<stores {
      if store >= log.storeCount { log.addStore() }
      // Carries on from what is kept, after its last time.
      if case .page(let page)? = expected[store].last { at = max(at, page.at.nanoseconds) }
      if case .refresh(let refresh)? = expected[store].last { at = max(at, refresh.at.nanoseconds) }
    }
    for _ in 0..<entries {
      let store = Int(random.next() % UInt64(stores))
      let step = [Int64(1), 999_999_937, 86_400_000_000_000][Int(random.next() % 3)]
      at += Int64(random.next() % UInt64(step)) + (random.next() % 5 == 0 ? 0 : 1)
      switch random.next() % 10 {
      case 0: token[store] = Int32(truncatingIfNeeded: random.next() % 50)  // a reset
      case 1: token[store] = Int32.max - Int32(random.next() % 3)
      default: token[store] &+= Int32(random.next() % 700)  // wraps past Int32.max too
      }
      if random.next() % 3 == 0 {
        expected[store].append(.refresh((token[store], SimTime(nanoseconds: at))))
        log.addRefresh(store: StoreID(store), token: token[store], at: SimTime(nanoseconds: at))
      } else {
        var samePage = false
        switch random.next() % 4 {
        case 0: activity[store] += Int32(random.next() % 3_000_000)
        case 1: activity[store] = Int32(random.next() % 40)
        default: samePage = true  // the same import's next page
        }
        expected[store].append(.page((ActivityID(Int(activity[store])), token[store], SimTime(nanoseconds: at))))
        log.addPage(
          store: StoreID(store), activity: ActivityID(Int(activity[store])), token: token[store],
          at: SimTime(nanoseconds: at))
        // Often a UI refresh to the page's token 50 ms after it (merged into the page when the
        // store's previous refresh had the same lag), or at a lag a nanosecond off.
        if samePage && random.next() % 2 == 0 {
          at += 50_000_000 + (random.next() % 8 == 0 ? 1 : 0)
          expected[store].append(.refresh((token[store], SimTime(nanoseconds: at))))
          log.addRefresh(store: StoreID(store), token: token[store], at: SimTime(nanoseconds: at))
        }
      }
    }
    return (log, expected)
  }

  func same(_ a: ObserverLog.Entry, _ b: ObserverLog.Entry) -> Bool {
    switch (a, b) {
    case (.page(let x), .page(let y)): x.activity == y.activity && x.token == y.token && x.at == y.at
    case (.refresh(let x), .refresh(let y)): x.token == y.token && x.at == y.at
    default: false
    }
  }

  @Test(arguments: [(1, 3), (3, 500), (40, 20_000), (1_000, 30_000)])
  func everyStoreReadsBackWhatItLogged(stores: Int, entries: Int) {
    let (log, expected) = logged(stores: stores, entries: entries, seed: UInt64(stores * 7 + entries))
    var mismatches = 0
    for store in 0..<stores {
      var read: [ObserverLog.Entry] = []
      log.forEach(store: StoreID(store)) { read.append($0) }
      #expect(read.count == expected[store].count, "store \(store)")
      mismatches += zip(read, expected[store]).filter { !same($0, $1) }.count
      let entries = log.entries(of: StoreID(store))
      #expect(entries.pages.count + entries.refreshes.count == expected[store].count)
    }
    #expect(mismatches == 0)
  }

  /// Past its limit, the log moves full blocks of sealed chunks to a temporary file and reads
  /// them back mapped: the same entries, also when more is logged after a read.
  @Test func aSpilledLogReadsBackWhatItLogged() {
    let (log, first) = logged(stores: 1_000, entries: 60_000, seed: 11, into: ObserverLog(spillAfterBytes: 16_384))
    // About 600 kB of entries: all but the last block of sealed chunks spilled.
    #expect(log.spilledBlocks > 100)
    #expect(log.bytesInMemory <= 1_024 * ByteStreams.chunkBytes + ByteStreams.blockBytes)
    func mismatches(_ expected: [[ObserverLog.Entry]]) -> Int {
      var count = 0
      for store in 0..<expected.count {
        var read: [ObserverLog.Entry] = []
        log.forEach(store: StoreID(store)) { read.append($0) }
        count += read.count == expected[store].count ? zip(read, expected[store]).filter { !same($0, $1) }.count : 1
      }
      return count
    }
    #expect(mismatches(first) == 0)
    let spilledBefore = log.spilledBlocks
    let (_, second) = logged(stores: 1_000, entries: 30_000, seed: 12, into: log, keeping: first)
    #expect(log.spilledBlocks > spilledBefore)
    #expect(mismatches(second) == 0)
  }

  @Test func aStoreWithNothingLoggedReadsNothingAndChunksAreShared() {
    let log = ObserverLog()
    for _ in 0..<3 { log.addStore() }
    log.addPage(store: StoreID(2), activity: ActivityID(5), token: 3, at: SimTime(nanoseconds: 10))
    var count = 0
    log.forEach(store: StoreID(0)) { _ in count += 1 }
    #expect(count == 0)
    #expect(log.entries(of: StoreID(2)).pages.map(\.token) == [3])
    // A page of the same import after a one-second page takes 1 + 5 bytes: ten of them, with
    // the first page's activity (3 bytes), fit the store's own chunk (57 of its 59 bytes), and
    // nothing is sealed: the three stores' own chunks are all the log holds.
    for page in 1...9 {
      log.addPage(
        store: StoreID(2), activity: ActivityID(5), token: 3 + Int32(page),
        at: SimTime(nanoseconds: 10 + Int64(page) * 1_000_000_000))
    }
    #expect(log.chunkBytesInUse == 3 * ByteStreams.chunkBytes)
    #expect(log.entries(of: StoreID(2)).pages.map(\.activity.raw) == [Int32](repeating: 5, count: 10))
  }

  @Test func aRefreshAFixedDelayAfterEachPageTakesTwoBytes() {
    let log = ObserverLog()
    log.addStore()
    // Polls half an hour apart, each one page, and the UI's refresh 50 ms after it.
    for poll in 0..<40 {
      let at = Int64(poll) * 1_800_000_000_000
      log.addPage(
        store: StoreID(0), activity: ActivityID(poll * 1_000), token: Int32(poll * 7), at: SimTime(nanoseconds: at))
      log.addRefresh(store: StoreID(0), token: Int32(poll * 7), at: SimTime(nanoseconds: at + 50_000_000))
    }
    // A page: 1 byte of token, 2 of activity, 6 of time (the first 3); a refresh: 1 and 1 (the
    // first 1 and 4): 39 × 11 + 3 + 5 = 437 bytes. An entry never spans two chunks of 59, so a
    // chunk holds the first two and four polls, then five polls each: 8 chunks.
    #expect(log.chunkBytesInUse == 8 * ByteStreams.chunkBytes)
    let times = log.entries(of: StoreID(0)).refreshes.map(\.at.nanoseconds)
    #expect(times == (0..<40).map { Int64($0) * 1_800_000_000_000 + 50_000_000 })
  }

  @Test func aRefreshOfTheSameImportsPageAtTheSameLagTakesNoBytes() {
    let log = ObserverLog()
    log.addStore()
    // One import of 40 pages a second apart, each shown 50 ms later, then one shown 60 ms later.
    for page in 0..<40 {
      let at = Int64(page) * 1_000_000_000
      log.addPage(store: StoreID(0), activity: ActivityID(7), token: Int32(page * 200), at: SimTime(nanoseconds: at))
      log.addRefresh(store: StoreID(0), token: Int32(page * 200), at: SimTime(nanoseconds: at + 50_000_000))
    }
    log.addPage(store: StoreID(0), activity: ActivityID(7), token: 8_000, at: SimTime(nanoseconds: 40_000_000_000))
    log.addRefresh(store: StoreID(0), token: 8_000, at: SimTime(nanoseconds: 40_060_000_000))
    // The first page: 1 + 1 + 1 bytes, its refresh 1 + 4; each later page 2 of token and 5 of
    // time, its refresh none; the last refresh 1 + 4: 3 + 5 + 40 × 7 + 5 = 293 bytes, in 6 chunks
    // of 59 (7, 8, 8, 8, 8 and 1 pages). Written out, the 39 refreshes were 78 bytes more: 7.
    #expect(log.chunkBytesInUse == 6 * ByteStreams.chunkBytes)
    let entries = log.entries(of: StoreID(0))
    #expect(entries.pages.map(\.token) == (0...40).map { Int32($0 * 200) })
    #expect(entries.refreshes.map(\.token) == (0...40).map { Int32($0 * 200) })
    let shown: [Int64] = (0..<40).map { Int64($0) * 1_000_000_000 + 50_000_000 } + [40_060_000_000]
    #expect(entries.refreshes.map(\.at.nanoseconds) == shown)
  }
}

/// Where no temporary file can be made, the log keeps its chunks in memory and reads the same.
@Suite struct ObserverLogWithoutSpillTests {
  @Test func aLogThatCannotSpillKeepsItsChunks() {
    let log = ObserverLog(spillAfterBytes: 4_096, folder: "/nonexistent-syncsim-folder")
    log.addStore()
    for page in 0..<2_000 {
      log.addPage(
        store: StoreID(0), activity: ActivityID(page / 10), token: Int32(page * 3),
        at: SimTime(nanoseconds: Int64(page) * 1_000_003))
    }
    #expect(log.spilledBlocks == 0)
    #expect(log.bytesInMemory >= log.chunkBytesInUse - 4 * ByteStreams.chunkBytes)
    let pages = log.entries(of: StoreID(0)).pages
    #expect(pages.map(\.token) == (0..<2_000).map { Int32($0 * 3) })
    let last = pages.last?.at.nanoseconds ?? 0
    #expect(last == Int64(1_999) * 1_000_003, "\(last)")
  }
}
