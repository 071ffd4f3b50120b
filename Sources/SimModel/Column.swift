/// A growable table of model state with reference semantics, so that writing an element needs no
/// copy-on-write check.
///
/// Every write to an element of a Swift array first asks the runtime whether the array's buffer is
/// uniquely referenced: a call, and a read of the buffer's header. The world's hottest tables
/// (devices, stores, activities) are written many times per event, and the world owns them alone:
/// it is built once and run in place (`WorldRunner`), never copied. A column's writes are plain
/// stores. A copy of a column, or of a `World`, shares the elements.
///
/// Elements may be noncopyable (a store's `RowBuffer`s): the column then owns them, lends them
/// in place, and ends them when it ends.
final class Column<Element: ~Copyable> {
  private(set) var count = 0
  /// Elements that fit before the next growth (for the memory report).
  private(set) var capacity: Int
  private var base: UnsafeMutablePointer<Element>

  init(capacity: Int = 1) {
    self.capacity = Swift.max(capacity, 1)
    base = UnsafeMutablePointer<Element>.allocate(capacity: self.capacity)
  }

  deinit {
    base.deinitialize(count: count)
    base.deallocate()
  }

  var indices: Range<Int> { 0..<count }

  /// The element at `index`; reads and writes are bounds-checked like an array's.
  subscript(index: Int) -> Element {
    _read {
      precondition(UInt(bitPattern: index) < UInt(bitPattern: count), "Column index out of range")
      yield base[index]
    }
    _modify {
      precondition(UInt(bitPattern: index) < UInt(bitPattern: count), "Column index out of range")
      yield &base[index]
    }
  }

  /// Makes room for at least `minimumCapacity` elements.
  func reserveCapacity(_ minimumCapacity: Int) {
    guard minimumCapacity > capacity else { return }
    let grown = UnsafeMutablePointer<Element>.allocate(capacity: minimumCapacity)
    grown.moveInitialize(from: base, count: count)
    base.deallocate()
    base = grown
    capacity = minimumCapacity
  }

  /// Adds `element` at the end, doubling the storage when it is full.
  func append(_ element: consuming Element) {
    if count == capacity { reserveCapacity(capacity * 2) }
    (base + count).initialize(to: element)
    count += 1
  }
}

extension Column: Sequence, Collection, BidirectionalCollection, RandomAccessCollection where Element: Copyable {
  var startIndex: Int { 0 }
  var endIndex: Int { count }
}
