import SimKernel
import SimModel

/// Per store, the pages its imports applied and the tokens its UI showed, in the order they
/// happened, packed as variable-length deltas into chunks that all stores share.
///
/// These are what a row's import and visibility stages are read from, and a public-database day
/// at a million installs has 80 million of each. As tuples in an array per store they took 16
/// bytes each and, with the arrays' spare capacity, 3.5 GB; packed, a page and the UI refresh
/// after it take about 12 bytes together (public-300k: 91 MB for 7.8 million of each), and a store
/// wastes at most one chunk's tail.
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

  // A chunk's payload, then the next chunk's index (0: none; chunk 0 is never used).
  static let chunkBytes = 64
  static let payloadBytes = 60
  static let chunksPerBlock = 64
  static let kindVisible: UInt64 = 0
  static let kindSamePage: UInt64 = 1
  static let kindNewImport: UInt64 = 2
  /// A page of the same import, then a UI refresh to its token at the store's last lag.
  static let kindSamePageShown: UInt64 = 3

  /// Blocks of 64 chunks (4 KiB): never moved, so growing the log never copies it, and small
  /// enough that a part of two devices, which logs a few hundred bytes, does not take a megabyte.
  var blocks: [UnsafeMutablePointer<UInt8>] = []
  var chunkCount = 1
  var head: [UInt32] = []
  var tail: [UInt32] = []
  var used: [UInt8] = []
  var lastToken: [Int32] = []
  var lastAt: [Int64] = []
  var lastActivity: [Int32] = []
  /// Per store, how long after the entry before it its last UI refresh came.
  var lastRefreshLag: [Int64] = []
  /// Per store, where its last entry's first byte is, when that entry is a page of the same
  /// import as the one before (chunk 0: it is not): a refresh that repeats it flips its kind.
  var samePageChunk: [UInt32] = []
  var samePageOffset: [UInt8] = []

  public init() {}

  deinit {
    for block in blocks { block.deallocate() }
  }

  /// The number of stores the log has room for.
  public var storeCount: Int { head.count }

  /// Makes room for one more store, with no entries.
  public func addStore() {
    head.append(0)
    tail.append(0)
    used.append(0)
    lastToken.append(0)
    lastAt.append(0)
    lastActivity.append(-1)
    lastRefreshLag.append(0)
    samePageChunk.append(0)
    samePageOffset.append(0)
  }

  /// Bytes the chunks take (what the log holds beyond its per-store fields).
  public var chunkBytesInUse: Int { chunkCount * Self.chunkBytes }

  /// Logs that an import's page brought `store` to `token` at `at`.
  public func addPage(store: StoreID, activity: ActivityID, token: Int32, at: SimTime) {
    let index = store.index
    // The decoder starts from the same −1, so a store's first page is a new import.
    let same = activity.raw == lastActivity[index]
    // Where the entry's first byte goes: a chunk opened for it holds the whole number (at most
    // ten bytes), so it is then the tail.
    let opensChunk = head[index] == 0 || Int(used[index]) == Self.payloadBytes
    let (chunk, offset) = (tail[index], used[index])
    put(index, Self.tokenWord(token, after: lastToken[index], kind: same ? Self.kindSamePage : Self.kindNewImport))
    if same {
      (samePageChunk[index], samePageOffset[index]) = opensChunk ? (tail[index], 0) : (chunk, offset)
    } else {
      samePageChunk[index] = 0
      put(index, Self.zigzag(Int64(activity.raw) - Int64(lastActivity[index])))
    }
    put(index, Self.zigzag(at.nanoseconds &- lastAt[index]))
    lastActivity[index] = activity.raw
    lastToken[index] = token
    lastAt[index] = at.nanoseconds
  }

  /// Logs that `store`'s UI showed everything through `token` from `at`.
  public func addRefresh(store: StoreID, token: Int32, at: SimTime) {
    let index = store.index
    let lag = at.nanoseconds &- lastAt[index]
    if samePageChunk[index] != 0 && token == lastToken[index] && lag == lastRefreshLag[index] {
      pointer(samePageChunk[index])[Int(samePageOffset[index])] |= UInt8(Self.kindSamePageShown)
      samePageChunk[index] = 0
      lastAt[index] = at.nanoseconds
      return
    }
    samePageChunk[index] = 0
    put(index, Self.tokenWord(token, after: lastToken[index], kind: Self.kindVisible))
    put(index, Self.zigzag(lag &- lastRefreshLag[index]))
    lastRefreshLag[index] = lag
    lastToken[index] = token
    lastAt[index] = at.nanoseconds
  }

  /// Calls `body` with each of `store`'s entries, in the order they were logged.
  @inline(__always)
  public func forEach(store: StoreID, _ body: (Entry) -> Void) {
    var chunk = head[store.index]
    guard chunk != 0 else { return }
    var reader = Reader(pointer: pointer(chunk), offset: 0, log: self)
    let end = (tail[store.index], Int(used[store.index]))
    var (token, at, activity, refreshLag) = (Int32(0), Int64(0), Int32(-1), Int64(0))
    while chunk != end.0 || reader.offset < end.1 {
      let word = reader.next(&chunk)
      token = Int32(truncatingIfNeeded: Int64(token) + Self.unzigzag(word >> 2))
      let kind = word & 3
      if kind == Self.kindNewImport {
        activity = Int32(truncatingIfNeeded: Int64(activity) + Self.unzigzag(reader.next(&chunk)))
      }
      let delta = Self.unzigzag(reader.next(&chunk))
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

  /// Reads a chunk chain's numbers one by one.
  struct Reader {
    var pointer: UnsafeMutablePointer<UInt8>
    var offset: Int
    unowned(unsafe) let log: ObserverLog

    /// The next unsigned LEB128 number; `chunk` follows the reader into the next chunk.
    @inline(__always)
    mutating func next(_ chunk: inout UInt32) -> UInt64 {
      var value: UInt64 = 0
      var shift: UInt64 = 0
      while true {
        if offset == ObserverLog.payloadBytes {
          chunk = log.nextChunk(of: pointer)
          pointer = log.pointer(chunk)
          offset = 0
        }
        let byte = pointer[offset]
        offset += 1
        value |= UInt64(byte & 0x7f) << shift
        if byte < 0x80 { return value }
        shift += 7
      }
    }
  }

  @inline(__always)
  func pointer(_ chunk: UInt32) -> UnsafeMutablePointer<UInt8> {
    let chunk = Int(chunk)
    return blocks[chunk / Self.chunksPerBlock] + (chunk % Self.chunksPerBlock) * Self.chunkBytes
  }

  @inline(__always)
  func nextChunk(of pointer: UnsafeMutablePointer<UInt8>) -> UInt32 {
    UnsafeRawPointer(pointer + Self.payloadBytes).loadUnaligned(as: UInt32.self)
  }

  /// Appends `value` as unsigned LEB128 to the store's chain.
  @inline(__always)
  func put(_ store: Int, _ value: UInt64) {
    var value = value
    repeat {
      var byte = UInt8(value & 0x7f)
      value >>= 7
      if value != 0 { byte |= 0x80 }
      putByte(store, byte)
    } while value != 0
  }

  @inline(__always)
  func putByte(_ store: Int, _ byte: UInt8) {
    if head[store] == 0 {
      let chunk = newChunk()
      head[store] = chunk
      tail[store] = chunk
      used[store] = 0
    } else if Int(used[store]) == Self.payloadBytes {
      let chunk = newChunk()
      UnsafeMutableRawPointer(pointer(tail[store]) + Self.payloadBytes).storeBytes(of: chunk, as: UInt32.self)
      tail[store] = chunk
      used[store] = 0
    }
    pointer(tail[store])[Int(used[store])] = byte
    used[store] += 1
  }

  func newChunk() -> UInt32 {
    if chunkCount >= blocks.count * Self.chunksPerBlock {
      let block = UnsafeMutablePointer<UInt8>.allocate(capacity: Self.chunksPerBlock * Self.chunkBytes)
      blocks.append(block)
    }
    let chunk = UInt32(chunkCount)
    chunkCount += 1
    UnsafeMutableRawPointer(pointer(chunk) + Self.payloadBytes).storeBytes(of: 0, as: UInt32.self)
    return chunk
  }

  @inline(__always)
  static func tokenWord(_ token: Int32, after last: Int32, kind: UInt64) -> UInt64 {
    zigzag(Int64(token) - Int64(last)) << 2 | kind
  }

  @inline(__always)
  static func zigzag(_ value: Int64) -> UInt64 { UInt64(bitPattern: (value << 1) ^ (value >> 63)) }

  @inline(__always)
  static func unzigzag(_ value: UInt64) -> Int64 { Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1) }
}
