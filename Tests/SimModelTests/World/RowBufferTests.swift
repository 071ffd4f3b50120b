import SimKernel
import Testing

@testable import SimModel

/// `RowBuffer`: the inline-addressed row lists of stores and zones.
@Suite struct RowBufferTests {
  /// Thirty thousand random operations give the same rows as an array given the same operations.
  @Test func behavesLikeAnArray() {
    var random = SplitMix64(seed: 20_261_122)
    var rows = RowBuffer<Int32>()
    var model: [Int32] = []
    var grown = 0
    for step in 0..<30_000 {
      let value = Int32(truncatingIfNeeded: step)
      let capacityBefore = rows.capacity
      switch random.next() % 9 {
      case 0, 1, 2:
        rows.append(value)
        model.append(value)
      case 3:
        let count = Int(random.next() % 40)
        rows.append(repeating: value, count: count)
        model.append(contentsOf: repeatElement(value, count: count))
      case 4:
        let index = Int(random.next() % UInt64(model.count + 1))
        rows.insert(value, at: index)
        model.insert(value, at: index)
      case 5 where !model.isEmpty:
        let k = Int(random.next() % UInt64(min(model.count, 30) + 1))
        rows.removeFirst(k)
        model.removeFirst(k)
      case 6 where !model.isEmpty:
        let k = Int(random.next() % UInt64(min(model.count, 30) + 1))
        rows.removeLast(k)
        model.removeLast(k)
      case 7 where !model.isEmpty:
        let index = Int(random.next() % UInt64(model.count))
        rows[index] = -value
        model[index] = -value
      case 8 where random.next() % 50 == 0:
        rows.removeLast(rows.count)
        model.removeAll()
      default:
        rows.reserveCapacity(model.count + Int(random.next() % 64))
      }
      if rows.capacity != capacityBefore { grown += 1 }
      #expect(rows.count == model.count)
      #expect(rows.capacity >= rows.count)
    }
    #expect(rows.array == model)
    #expect(grown > 10)
    #expect(rows.withRows(3..<9) { Array($0) } == Array(model[3..<9]))
  }

  /// Writing through `withMutableRows` lands in the rows; an empty buffer lends an empty range.
  @Test func mutableRowsWriteInPlace() {
    var rows = RowBuffer<Int64>()
    #expect(rows.withMutableRows { $0.count } == 0)
    #expect(rows.withRows(0..<0) { $0.count } == 0)
    for value in 0..<100 { rows.append(Int64(value)) }
    rows.withMutableRows { buffer in
      for index in buffer.indices { buffer[index] *= 3 }
    }
    #expect(rows.array == (0..<100).map { Int64($0) * 3 })
  }

  /// A column of row buffers keeps each buffer's rows when it grows (moving the buffers) and
  /// writes a buffer in place.
  @Test func columnOfRowBuffersKeepsRowsThroughGrowth() {
    let column = Column<RowBuffer<Int32>>()
    for index in 0..<200 {
      column.append(RowBuffer())
      column[index].append(repeating: Int32(index), count: index % 7 + 1)
    }
    column[150].append(-1)
    for index in 0..<200 where index != 150 {
      #expect(column[index].array == Array(repeating: Int32(index), count: index % 7 + 1))
    }
    #expect(column[150].array == Array(repeating: 150, count: 150 % 7 + 1) + [-1])
  }

  /// A column ends its noncopyable elements exactly once when it ends (so row buffers are freed).
  @Test func columnEndsNoncopyableElements() {
    final class Tally { var ended = 0 }
    struct Owned: ~Copyable {
      let tally: Tally
      deinit { tally.ended += 1 }
    }
    let tally = Tally()
    do {
      let column = Column<Owned>()
      for _ in 0..<37 { column.append(Owned(tally: tally)) }
      #expect(tally.ended == 0)
    }
    #expect(tally.ended == 37)
  }
}
