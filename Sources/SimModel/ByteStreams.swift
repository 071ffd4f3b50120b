/// Many append-only streams of unsigned LEB128 numbers, packed into 64-byte chunks that all the
/// streams share: the storage of the logs that a million-install world keeps per store.
///
/// An array per store costs its header, its allocation and its spare capacity (a store that logs a
/// hundred bytes took three hundred so); here a stream wastes at most its last chunk's tail and
/// four bytes a chunk for the link to the next. Chunks come in blocks of 64 (4 KiB) that are never
/// moved, so growing never copies what is logged, and a small world does not take a megabyte.
public final class ByteStreams: @unchecked Sendable {
  /// A chunk's payload, then the next chunk's index (0: none; chunk 0 is never used).
  public static let chunkBytes = 64
  public static let payloadBytes = 60
  static let chunksPerBlock = 64

  @usableFromInline var blocks: [UnsafeMutablePointer<UInt8>] = []
  @usableFromInline var chunkCount = 1
  /// Per stream, its first and last chunk (0: the stream is empty), and the bytes used of the last.
  public private(set) var head: [UInt32] = []
  public private(set) var tail: [UInt32] = []
  public private(set) var used: [UInt8] = []

  public init() {}

  deinit {
    for block in blocks { block.deallocate() }
  }

  /// The number of streams.
  public var streamCount: Int { head.count }

  /// Bytes the chunks take (what the streams hold beyond their per-stream fields).
  public var chunkBytesInUse: Int { chunkCount * Self.chunkBytes }

  /// Adds an empty stream.
  public func addStream() {
    head.append(0)
    tail.append(0)
    used.append(0)
  }

  /// Empties `stream`. Its chunks are not reused: a reset, the one caller, is rare.
  public func clear(_ stream: Int) {
    head[stream] = 0
    tail[stream] = 0
    used[stream] = 0
  }

  /// Where the next byte of `stream` goes, as (chunk, offset); chunk 0 when the byte opens a chunk
  /// (the stream is empty, or its last chunk is full).
  public func nextByteAt(_ stream: Int) -> (chunk: UInt32, offset: UInt8) {
    head[stream] == 0 || Int(used[stream]) == Self.payloadBytes ? (0, 0) : (tail[stream], used[stream])
  }

  /// Appends `value` to `stream` as unsigned LEB128.
  @inline(__always)
  public func put(_ stream: Int, _ value: UInt64) {
    var value = value
    repeat {
      var byte = UInt8(value & 0x7f)
      value >>= 7
      if value != 0 { byte |= 0x80 }
      putByte(stream, byte)
    } while value != 0
  }

  /// Appends `value`, zigzagged (small magnitudes of either sign take few bytes).
  @inline(__always)
  public func putSigned(_ stream: Int, _ value: Int64) { put(stream, Self.zigzag(value)) }

  @inline(__always)
  func putByte(_ stream: Int, _ byte: UInt8) {
    if head[stream] == 0 {
      let chunk = newChunk()
      head[stream] = chunk
      tail[stream] = chunk
      used[stream] = 0
    } else if Int(used[stream]) == Self.payloadBytes {
      let chunk = newChunk()
      UnsafeMutableRawPointer(pointer(tail[stream]) + Self.payloadBytes).storeBytes(of: chunk, as: UInt32.self)
      tail[stream] = chunk
      used[stream] = 0
    }
    pointer(tail[stream])[Int(used[stream])] = byte
    used[stream] += 1
  }

  /// The first byte of `chunk`.
  @inline(__always)
  public func pointer(_ chunk: UInt32) -> UnsafeMutablePointer<UInt8> {
    let chunk = Int(chunk)
    return blocks[chunk / Self.chunksPerBlock] + (chunk % Self.chunksPerBlock) * Self.chunkBytes
  }

  @inline(__always)
  func nextChunk(of pointer: UnsafeMutablePointer<UInt8>) -> UInt32 {
    UnsafeRawPointer(pointer + Self.payloadBytes).loadUnaligned(as: UInt32.self)
  }

  func newChunk() -> UInt32 {
    if chunkCount >= blocks.count * Self.chunksPerBlock {
      blocks.append(UnsafeMutablePointer<UInt8>.allocate(capacity: Self.chunksPerBlock * Self.chunkBytes))
    }
    let chunk = UInt32(chunkCount)
    chunkCount += 1
    UnsafeMutableRawPointer(pointer(chunk) + Self.payloadBytes).storeBytes(of: 0, as: UInt32.self)
    return chunk
  }

  /// A reader of `stream`'s numbers from its first.
  public func reader(of stream: Int) -> Reader {
    let first = head[stream]
    return Reader(
      chunk: first, pointer: first == 0 ? nil : pointer(first), offset: 0, endChunk: tail[stream],
      endOffset: Int(used[stream]), streams: self)
  }

  /// Reads a stream's numbers one by one.
  public struct Reader {
    var chunk: UInt32
    var pointer: UnsafeMutablePointer<UInt8>?
    var offset: Int
    let endChunk: UInt32
    let endOffset: Int
    unowned(unsafe) let streams: ByteStreams

    /// Whether a number is left.
    @inline(__always)
    public var hasMore: Bool { chunk != 0 && (chunk != endChunk || offset < endOffset) }

    /// The next number, unsigned.
    @inline(__always)
    public mutating func next() -> UInt64 {
      var value: UInt64 = 0
      var shift: UInt64 = 0
      while true {
        if offset == ByteStreams.payloadBytes {
          chunk = streams.nextChunk(of: pointer!)
          pointer = streams.pointer(chunk)
          offset = 0
        }
        let byte = pointer![offset]
        offset += 1
        value |= UInt64(byte & 0x7f) << shift
        if byte < 0x80 { return value }
        shift += 7
      }
    }

    /// The next number, unzigzagged.
    @inline(__always)
    public mutating func nextSigned() -> Int64 { ByteStreams.unzigzag(next()) }
  }

  @inline(__always)
  public static func zigzag(_ value: Int64) -> UInt64 { UInt64(bitPattern: (value << 1) ^ (value >> 63)) }

  @inline(__always)
  public static func unzigzag(_ value: UInt64) -> Int64 {
    Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1)
  }
}
