/// Many append-only streams of small entries (unsigned LEB128 numbers), packed into 64-byte chunks
/// that all the streams share: the storage of the logs that a million-install world keeps per
/// store (`AppliedPageLog`, and the metrics' page log).
///
/// An array per store costs its header, its allocation and its spare capacity (90,000 readers'
/// pages took 36.6 MB so, 11.4 MB here). Here each stream fills one chunk of its own; when an
/// entry no longer fits, the chunk is sealed: copied to the end of the sealed chunks, which all
/// streams share in the order they sealed, each pointing back to its stream's chunk before it.
/// An entry never spans two chunks, so the newest entry is always in its stream's own chunk and
/// can still be changed (`patch`). Sealed chunks fill 4 KiB blocks in order, so a full block is
/// never written again: past `spillAfterBytes`, full blocks go to a `BlockSpill` (a temporary
/// file) and leave memory, and come back mapped when the streams are read.
public final class ByteStreams: @unchecked Sendable {
  public static let chunkBytes = 64
  /// A chunk opens with the stream's previous chunk (UInt32, 0: none) and its used bytes (UInt8).
  static let headerBytes = 5
  public static let payloadBytes = chunkBytes - headerBytes
  static let chunksPerBlock = 64
  public static let blockBytes = chunkBytes * chunksPerBlock

  /// Sealed chunks by number (chunk 0 is never used), in blocks; nil: spilled and not mapped.
  var blocks: [UnsafeMutablePointer<UInt8>?] = []
  var sealedCount = 1
  /// Each stream's own chunk, side by side (moved as streams are added: no pointer to one is
  /// kept across calls).
  var owned: UnsafeMutablePointer<UInt8>
  var ownedCapacity = 0
  public private(set) var streamCount = 0
  let spill: (any BlockSpill)?
  let spillAfterBytes: Int
  /// Set when the spill could not take a block: the blocks from then on stay in memory.
  var spillFailed = false
  /// Blocks 0..<spilledBlocks are spilled; the first mappedBlocks of them are mapped.
  public private(set) var spilledBlocks = 0
  var mappedBlocks = 0

  /// Streams that keep every chunk in memory, or with `spill`, that move full blocks of sealed
  /// chunks to it once the sealed chunks pass `spillAfterBytes`.
  public init(spill: (any BlockSpill)? = nil, spillAfterBytes: Int = .max) {
    self.spill = spill
    self.spillAfterBytes = spillAfterBytes
    owned = UnsafeMutablePointer<UInt8>.allocate(capacity: 0)
  }

  deinit {
    for block in blocks[spilledBlocks...] { block?.deallocate() }
    owned.deallocate()
  }

  /// Bytes the streams hold in memory: their own chunks and the sealed chunks not spilled.
  public var bytesInMemory: Int {
    ownedCapacity * Self.chunkBytes + (blocks.count - spilledBlocks) * Self.blockBytes
  }

  /// Chunks in use: the streams' own and the sealed ones (spilled or not).
  public var chunkCount: Int { streamCount + sealedCount - 1 }

  /// Adds an empty stream.
  public func addStream() {
    if streamCount == ownedCapacity {
      // Doubling, as an array grows: a fleet's part of two devices takes two chunks, not a page.
      let capacity = max(4, ownedCapacity * 2)
      let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity * Self.chunkBytes)
      grown.moveInitialize(from: owned, count: ownedCapacity * Self.chunkBytes)
      (grown + ownedCapacity * Self.chunkBytes).initialize(
        repeating: 0, count: (capacity - ownedCapacity) * Self.chunkBytes)
      owned.deallocate()
      owned = grown
      ownedCapacity = capacity
    }
    streamCount += 1
  }

  /// Empties `stream`. Its sealed chunks are not reused: a reset, the one caller, is rare.
  public func clear(_ stream: Int) {
    let chunk = own(stream)
    UnsafeMutableRawPointer(chunk).storeBytes(of: 0, as: UInt32.self)
    chunk[4] = 0
  }

  /// Appends `entry` to `stream`, in one chunk; returns where its first byte is in the stream's
  /// own chunk (for `patch`).
  @discardableResult
  public func append(_ stream: Int, _ entry: Entry) -> Int {
    var chunk = own(stream)
    var used = Int(chunk[4])
    if used + entry.count > Self.payloadBytes {
      seal(stream)
      chunk = own(stream)
      used = 0
    }
    withUnsafeBytes(of: entry.bytes) { bytes in
      (chunk + Self.headerBytes + used).update(
        from: bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), count: entry.count)
    }
    chunk[4] = UInt8(used + entry.count)
    return used
  }

  /// ORs `bits` into the byte at `offset` of `stream`'s newest chunk (an offset `append` returned
  /// for the newest entry).
  public func patch(_ stream: Int, at offset: Int, or bits: UInt8) {
    own(stream)[Self.headerBytes + offset] |= bits
  }

  /// `stream`'s own chunk.
  @inline(__always)
  func own(_ stream: Int) -> UnsafeMutablePointer<UInt8> {
    owned + stream * Self.chunkBytes
  }

  /// Copies `stream`'s chunk to the sealed chunks and starts it again, pointing back to the copy.
  func seal(_ stream: Int) {
    let number = sealedCount
    if number / Self.chunksPerBlock == blocks.count {
      blocks.append(UnsafeMutablePointer<UInt8>.allocate(capacity: Self.blockBytes))
    }
    let chunk = own(stream)
    sealed(number).update(from: chunk, count: Self.chunkBytes)
    sealedCount += 1
    UnsafeMutableRawPointer(chunk).storeBytes(of: UInt32(number), as: UInt32.self)
    chunk[4] = 0
    if sealedCount % Self.chunksPerBlock == 0 { spillFullBlocks() }
  }

  @inline(__always)
  func sealed(_ number: Int) -> UnsafeMutablePointer<UInt8> {
    blocks[number / Self.chunksPerBlock]! + (number % Self.chunksPerBlock) * Self.chunkBytes
  }

  /// Moves the full blocks to the spill once the sealed chunks pass `spillAfterBytes`. A block
  /// the spill cannot take stays in memory, and so do all after it.
  func spillFullBlocks() {
    guard let spill, !spillFailed, sealedCount * Self.chunkBytes > spillAfterBytes else { return }
    let full = sealedCount / Self.chunksPerBlock
    while spilledBlocks < full {
      guard spill.write(UnsafeRawPointer(blocks[spilledBlocks]!), index: spilledBlocks) else {
        spillFailed = true
        return
      }
      blocks[spilledBlocks]!.deallocate()
      blocks[spilledBlocks] = nil
      spilledBlocks += 1
    }
  }

  /// Maps the spilled blocks back, so that the streams can be read: call before reading them
  /// from several threads (a reader maps them itself otherwise).
  public func prepareForReading() {
    guard spilledBlocks > mappedBlocks, let spill else { return }
    guard let base = spill.map(blocks: spilledBlocks) else {
      preconditionFailure("the spilled page log could not be read back")
    }
    for index in 0..<spilledBlocks {
      blocks[index] = UnsafeMutablePointer(mutating: base.assumingMemoryBound(to: UInt8.self)) + index * Self.blockBytes
    }
    mappedBlocks = spilledBlocks
  }

  /// A reader of `stream`'s numbers from its first.
  public func reader(of stream: Int) -> Reader {
    prepareForReading()
    var chunks: [UnsafePointer<UInt8>] = [UnsafePointer(own(stream))]
    var previous = Int(UnsafeRawPointer(own(stream)).loadUnaligned(as: UInt32.self))
    while previous != 0 {
      let chunk = sealed(previous)
      chunks.append(UnsafePointer(chunk))
      previous = Int(UnsafeRawPointer(chunk).loadUnaligned(as: UInt32.self))
    }
    return Reader(chunks: chunks.reversed())
  }

  /// One entry's numbers, built before they are appended (at most 32 bytes).
  public struct Entry {
    @usableFromInline var bytes: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
    public var count = 0

    @inlinable public init() {}

    /// Adds `value` as unsigned LEB128 (at most ten bytes, which must fit).
    @inlinable
    public mutating func put(_ value: UInt64) {
      precondition(count <= 22, "a ByteStreams entry holds at most 32 bytes")
      var value = value
      var end = count
      withUnsafeMutableBytes(of: &bytes) { bytes in
        repeat {
          var byte = UInt8(value & 0x7f)
          value >>= 7
          if value != 0 { byte |= 0x80 }
          bytes[end] = byte
          end += 1
        } while value != 0
      }
      count = end
    }

    /// Adds `value`, zigzagged (small magnitudes of either sign take few bytes).
    @inlinable
    public mutating func putSigned(_ value: Int64) { put(ByteStreams.zigzag(value)) }
  }

  /// Reads a stream's numbers one by one, chunk after chunk.
  public struct Reader {
    @usableFromInline let chunks: [UnsafePointer<UInt8>]
    @usableFromInline var index = 0
    @usableFromInline var pointer: UnsafePointer<UInt8>
    @usableFromInline var offset = 0
    @usableFromInline var used: Int

    init(chunks: [UnsafePointer<UInt8>]) {
      self.chunks = chunks
      pointer = chunks[0] + ByteStreams.headerBytes
      used = Int(chunks[0][4])
      skipFinishedChunks()
    }

    /// Whether a number is left.
    @inlinable
    public var hasMore: Bool { offset < used }

    /// The next number, unsigned.
    @inlinable
    public mutating func next() -> UInt64 {
      var value: UInt64 = 0
      var shift: UInt64 = 0
      while true {
        let byte = pointer[offset]
        offset += 1
        value |= UInt64(byte & 0x7f) << shift
        if byte < 0x80 { break }
        shift += 7
      }
      if offset == used { skipFinishedChunks() }
      return value
    }

    /// The next number, unzigzagged.
    @inlinable
    public mutating func nextSigned() -> Int64 { ByteStreams.unzigzag(next()) }

    /// Moves on to the next chunk with bytes left, if the current one has none.
    @usableFromInline
    mutating func skipFinishedChunks() {
      while offset == used && index + 1 < chunks.count {
        index += 1
        pointer = chunks[index] + ByteStreams.headerBytes
        offset = 0
        used = Int(chunks[index][4])
      }
    }
  }

  @inlinable
  public static func zigzag(_ value: Int64) -> UInt64 { UInt64(bitPattern: (value << 1) ^ (value >> 63)) }

  @inlinable
  public static func unzigzag(_ value: UInt64) -> Int64 {
    Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1)
  }
}

/// Where a `ByteStreams`' full blocks of sealed chunks go to leave memory (the metrics' page log
/// gives a temporary file).
public protocol BlockSpill: AnyObject {
  /// Writes block `index` (`ByteStreams.blockBytes` bytes); false when it could not (it then
  /// stays in memory).
  func write(_ block: UnsafeRawPointer, index: Int) -> Bool
  /// Blocks 0..<count as written, readable in place from the returned address (block i at
  /// i × `ByteStreams.blockBytes`) until the next call or the spill's end; nil when they cannot
  /// be read back.
  func map(blocks count: Int) -> UnsafeRawPointer?
}
