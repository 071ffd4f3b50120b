import SimKernel
import SimModel

/// Per store, the pages its imports applied and the tokens its UI showed, in the order they
/// happened, packed as variable-length deltas into chunks (`ByteStreams`).
///
/// These are what a row's import and visibility stages are read from, and a public-database day
/// at a million installs has 80 million pages and as many UI refreshes. As tuples in an array per
/// store they took 16 bytes each and, with the arrays' spare capacity, 3.5 GB; packed, a page
/// and the UI refresh after it take about 9 bytes together, chunks included: 715 MB. Only the
/// end of the run reads them, so past `defaultSpillAfterBytes` the full blocks of sealed chunks
/// go to a temporary file (`SpillFile`), 650 MB of it, and come back mapped for the summary: the
/// million-install day then peaks at 1.61 GiB, not 2.17.
///
/// An entry opens with one unsigned LEB128 number: the token's change from the store's previous
/// entry, zigzagged, times four, plus its kind (`visible`, `samePage`: a page of the previous
/// entry's import, `newImport`). A new import's activity follows, as the zigzagged change from the
/// store's previous import's, and then the time since the store's previous entry, zigzagged. A UI
/// refresh's time is told as its change from the store's previous refresh's lag after the entry
/// before it: a `fetchedResults` UI refreshes a fixed merge delay after each page, so this is
/// mostly 0, one byte instead of five. And such a refresh (the token of the page just before it,
/// at the same lag as the store's previous refresh) after a page of the same import is not written
/// at all: the page's kind becomes `samePageShown`, and the two take the page's bytes alone.
public final class ObserverLog: @unchecked Sendable {
  /// An import's page: the import and the token the store reached.
  public typealias Page = (activity: ActivityID, token: Int32, at: SimTime)
  /// A UI refresh that showed more: the token the person could see from then.
  public typealias Refresh = (token: Int32, at: SimTime)

  /// One logged entry, as `forEach` hands it over.
  public enum Entry {
    case page(Page)
    case refresh(Refresh)
  }

  static let kindVisible: UInt64 = 0
  static let kindSamePage: UInt64 = 1
  static let kindNewImport: UInt64 = 2
  /// A page of the same import, then a UI refresh to its token at the store's last lag.
  static let kindSamePageShown: UInt64 = 3
  /// Sealed bytes past which full blocks go to a temporary file (`SpillFile`): a million-install
  /// day logs 0.7 GB that only the end of the run reads.
  public static let defaultSpillAfterBytes = 128 << 20

  let streams: ByteStreams
  var lastToken: [Int32] = []
  var lastAt: [Int64] = []
  var lastActivity: [Int32] = []
  /// Per store, how long after the entry before it its last UI refresh came.
  var lastRefreshLag: [Int64] = []
  /// Per store, where its last entry's first byte is in its newest chunk, when that entry is a
  /// page of the same import as the one before (−1: it is not): a refresh that repeats it flips
  /// its kind.
  var samePageOffset: [Int8] = []

  /// A log whose sealed chunks past `spillAfterBytes` go to a temporary file in `folder` (else
  /// `TMPDIR`, else `/tmp`), when one can be made (they stay in memory otherwise).
  public init(spillAfterBytes: Int = ObserverLog.defaultSpillAfterBytes, folder: String? = nil) {
    let spill = spillAfterBytes == .max ? nil : SpillFile(folder: folder)
    streams = ByteStreams(spill: spill, spillAfterBytes: spillAfterBytes)
  }

  /// The number of stores the log has room for.
  public var storeCount: Int { streams.streamCount }

  /// Makes room for one more store, with no entries.
  public func addStore() {
    streams.addStream()
    lastToken.append(0)
    lastAt.append(0)
    lastActivity.append(-1)
    lastRefreshLag.append(0)
    samePageOffset.append(-1)
  }

  /// Bytes of chunks in use (what the log holds beyond its per-store fields), in memory or spilled.
  public var chunkBytesInUse: Int { streams.chunkCount * ByteStreams.chunkBytes }

  /// Bytes the log holds in memory beyond its per-store fields.
  public var bytesInMemory: Int { streams.bytesInMemory }

  /// Blocks of sealed chunks moved to the temporary file.
  public var spilledBlocks: Int { streams.spilledBlocks }

  /// Logs that an import's page brought `store` to `token` at `at`.
  public func addPage(store: StoreID, activity: ActivityID, token: Int32, at: SimTime) {
    let index = store.index
    // The decoder starts from the same −1, so a store's first page is a new import.
    let same = activity.raw == lastActivity[index]
    var entry = ByteStreams.Entry()
    entry.put(Self.tokenWord(token, after: lastToken[index], kind: same ? Self.kindSamePage : Self.kindNewImport))
    if !same { entry.putSigned(Int64(activity.raw) - Int64(lastActivity[index])) }
    entry.putSigned(at.nanoseconds &- lastAt[index])
    let offset = streams.append(index, entry)
    samePageOffset[index] = same ? Int8(offset) : -1
    lastActivity[index] = activity.raw
    lastToken[index] = token
    lastAt[index] = at.nanoseconds
  }

  /// Logs that `store`'s UI showed everything through `token` from `at`.
  public func addRefresh(store: StoreID, token: Int32, at: SimTime) {
    let index = store.index
    let lag = at.nanoseconds &- lastAt[index]
    if samePageOffset[index] >= 0 && token == lastToken[index] && lag == lastRefreshLag[index] {
      streams.patch(index, at: Int(samePageOffset[index]), or: UInt8(Self.kindSamePageShown))
      samePageOffset[index] = -1
      lastAt[index] = at.nanoseconds
      return
    }
    samePageOffset[index] = -1
    var entry = ByteStreams.Entry()
    entry.put(Self.tokenWord(token, after: lastToken[index], kind: Self.kindVisible))
    entry.putSigned(lag &- lastRefreshLag[index])
    streams.append(index, entry)
    lastRefreshLag[index] = lag
    lastToken[index] = token
    lastAt[index] = at.nanoseconds
  }

  /// Maps back what went to the temporary file: call before reading from several threads.
  public func prepareForReading() { streams.prepareForReading() }

  /// Calls `body` with each of `store`'s entries, in the order they were logged.
  @inline(__always)
  public func forEach(store: StoreID, _ body: (Entry) -> Void) {
    var reader = streams.reader(of: store.index)
    var (token, at, activity, refreshLag) = (Int32(0), Int64(0), Int32(-1), Int64(0))
    while reader.hasMore {
      let word = reader.next()
      token = Int32(truncatingIfNeeded: Int64(token) + ByteStreams.unzigzag(word >> 2))
      let kind = word & 3
      if kind == Self.kindNewImport {
        activity = Int32(truncatingIfNeeded: Int64(activity) + reader.nextSigned())
      }
      let delta = reader.nextSigned()
      if kind == Self.kindVisible {
        refreshLag = refreshLag &+ delta
        at = at &+ refreshLag
        body(.refresh((token, SimTime(nanoseconds: at))))
      } else {
        at = at &+ delta
        body(.page((ActivityID(Int(activity)), token, SimTime(nanoseconds: at))))
        if kind == Self.kindSamePageShown {
          at = at &+ refreshLag
          body(.refresh((token, SimTime(nanoseconds: at))))
        }
      }
    }
  }

  /// `store`'s import pages and its UI refreshes, each in order, from one pass over its entries.
  public func entries(of store: StoreID) -> (pages: [Page], refreshes: [Refresh]) {
    var result: (pages: [Page], refreshes: [Refresh]) = ([], [])
    forEach(store: store) {
      switch $0 {
      case .page(let page): result.pages.append(page)
      case .refresh(let refresh): result.refreshes.append(refresh)
      }
    }
    return result
  }

  @inline(__always)
  static func tokenWord(_ token: Int32, after last: Int32, kind: UInt64) -> UInt64 {
    ByteStreams.zigzag(Int64(token) - Int64(last)) << 2 | kind
  }
}
