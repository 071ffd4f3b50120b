import SimKernel
import Testing

@testable import SimModel

/// Issue 37: the logs' shared storage (`ByteStreams`). Every stream reads back what it was
/// given, whether its sealed chunks stay in memory, go to a spill, or the spill fails midway.
@Suite struct ByteStreamsTests {
  /// A spill that keeps its blocks in an array, and can refuse from its `failAfter`th write on.
  final class ArraySpill: BlockSpill {
    var blocks: [[UInt8]] = []
    var failAfter = Int.max
    var mapped: UnsafeMutableRawPointer?

    deinit { mapped?.deallocate() }

    func write(_ block: UnsafeRawPointer, index: Int) -> Bool {
      guard blocks.count < failAfter else { return false }
      #expect(index == blocks.count)
      blocks.append(Array(UnsafeRawBufferPointer(start: block, count: ByteStreams.blockBytes)))
      return true
    }

    func map(blocks count: Int) -> UnsafeRawPointer? {
      mapped?.deallocate()
      let copy = UnsafeMutableRawPointer.allocate(byteCount: count * ByteStreams.blockBytes, alignment: 16)
      for index in 0..<count {
        blocks[index].withUnsafeBytes {
          (copy + index * ByteStreams.blockBytes).copyMemory(from: $0.baseAddress!, byteCount: $0.count)
        }
      }
      mapped = copy
      return UnsafeRawPointer(copy)
    }
  }

  /// Appends random entries of one to three numbers (at most 30 bytes) to `streams`, returning each
  /// stream's numbers.
  func fill(_ streams: ByteStreams, count: Int, entries: Int, seed: UInt64) -> [[UInt64]] {
    var random = RandomStream(seed: seed)
    var expected = [[UInt64]](repeating: [], count: count)
    for _ in 0..<count { streams.addStream() }
    for _ in 0..<entries {
      let stream = Int(random.nextInt(below: UInt64(count)))
      var entry = ByteStreams.Entry()
      for _ in 0...random.nextInt(below: 3) {
        // Zero to 64 bits: one to ten bytes each.
        let value = random.next() >> random.nextInt(below: 64)
        entry.put(value)
        expected[stream].append(value)
      }
      streams.append(stream, entry)
    }
    return expected
  }

  func read(_ streams: ByteStreams, _ stream: Int) -> [UInt64] {
    var reader = streams.reader(of: stream)
    var values: [UInt64] = []
    while reader.hasMore { values.append(reader.next()) }
    return values
  }

  @Test(arguments: [Int.max, 0, 40])
  func everyStreamReadsBackWhatItWasGiven(failAfter: Int) {
    let spill = ArraySpill()
    spill.failAfter = failAfter
    let streams = ByteStreams(spill: spill, spillAfterBytes: 8 * ByteStreams.blockBytes)
    let expected = fill(streams, count: 300, entries: 40_000, seed: 5)
    // About 40,000 × 2 numbers × 5 bytes: some 100 blocks of sealed chunks.
    let full = (streams.chunkCount - streams.streamCount) / 64
    #expect(full > 80)
    #expect(streams.spilledBlocks == min(failAfter, full))
    #expect(spill.blocks.count == min(failAfter, full))
    var mismatches = 0
    for stream in 0..<300 where read(streams, stream) != expected[stream] { mismatches += 1 }
    #expect(mismatches == 0)
  }

  @Test func aClearedStreamReadsNothingAndTheOthersKeepTheirs() {
    let streams = ByteStreams()
    let expected = fill(streams, count: 20, entries: 2_000, seed: 9)
    streams.clear(7)
    #expect(read(streams, 7).isEmpty)
    #expect(read(streams, 8) == expected[8])
    var entry = ByteStreams.Entry()
    entry.put(300)
    let offset = streams.append(7, entry)
    #expect(offset == 0)
    streams.patch(7, at: 0, or: 0x01)
    // 300 is 0xAC 0x02 in LEB128: the patched first byte reads 301.
    #expect(read(streams, 7) == [301])
  }
}
