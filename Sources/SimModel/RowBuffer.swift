/// A growable list of flat rows whose address and length live inline in their owner, so that
/// reading or writing a row touches the row's own cache line and nothing else.
///
/// A Swift array keeps its length and reference count in a header before its elements: a read
/// checks the index against the length there, and a write first asks the runtime whether the
/// buffer is shared. For a store's fields or history, or a zone's records (thousands of rows,
/// touched minutes apart), that header is one more cold cache line on every access: 13 % of the
/// fleet bench's last-level read misses went to the runtime's uniqueness check alone (cachegrind).
///
/// Noncopyable, so it has exactly one owner (a slot of a `Column`, or a field of a value kept in
/// one), which frees the rows when it ends; no copy can outlive a growth that moved them.
struct RowBuffer<Element: BitwiseCopyable>: ~Copyable {
  private var base: UnsafeMutablePointer<Element>?
  private var rowCount: Int32 = 0
  private var rowCapacity: Int32 = 0

  init() {}

  deinit { base?.deallocate() }

  var count: Int { Int(rowCount) }
  var capacity: Int { Int(rowCapacity) }
  var isEmpty: Bool { rowCount == 0 }
  var indices: Range<Int> { 0..<Int(rowCount) }

  /// The row at `index`, bounds-checked like an array's.
  subscript(index: Int) -> Element {
    @inline(__always) get {
      precondition(UInt(bitPattern: index) < UInt(bitPattern: Int(rowCount)), "RowBuffer index out of range")
      return base.unsafelyUnwrapped[index]
    }
    @inline(__always) set {
      precondition(UInt(bitPattern: index) < UInt(bitPattern: Int(rowCount)), "RowBuffer index out of range")
      base.unsafelyUnwrapped[index] = newValue
    }
  }

  /// Makes room for at least `minimumCapacity` rows.
  mutating func reserveCapacity(_ minimumCapacity: Int) {
    guard minimumCapacity > capacity else { return }
    precondition(minimumCapacity <= Int(Int32.max), "RowBuffer too large")
    let grown = UnsafeMutablePointer<Element>.allocate(capacity: minimumCapacity)
    if let base {
      grown.moveInitialize(from: base, count: count)
      base.deallocate()
    }
    base = grown
    rowCapacity = Int32(minimumCapacity)
  }

  /// Adds `row` at the end, doubling the storage when it is full.
  @inline(__always) mutating func append(_ row: Element) {
    if rowCount == rowCapacity { reserveCapacity(Swift.max(2 * capacity, 4)) }
    (base.unsafelyUnwrapped + count).initialize(to: row)
    rowCount += 1
  }

  /// Appends `count` copies of `row`.
  mutating func append(repeating row: Element, count added: Int) {
    guard added > 0 else { return }
    if count + added > capacity { reserveCapacity(Swift.max(2 * capacity, count + added)) }
    (base.unsafelyUnwrapped + count).initialize(repeating: row, count: added)
    rowCount += Int32(added)
  }

  /// Inserts `row` before the row at `index` (or at the end, for `index == count`).
  mutating func insert(_ row: Element, at index: Int) {
    precondition(index >= 0 && index <= count, "RowBuffer insertion index out of range")
    if rowCount == rowCapacity { reserveCapacity(Swift.max(2 * capacity, 4)) }
    let start = base.unsafelyUnwrapped + index
    (start + 1).moveInitialize(from: start, count: count - index)
    start.initialize(to: row)
    rowCount += 1
  }

  /// Removes the last `k` rows, keeping the storage.
  @inline(__always) mutating func removeLast(_ k: Int = 1) {
    precondition(k >= 0 && k <= count, "RowBuffer can't remove more rows than it has")
    rowCount -= Int32(k)
  }

  /// Removes the first `k` rows, moving the rest to the front and keeping the storage.
  mutating func removeFirst(_ k: Int) {
    precondition(k >= 0 && k <= count, "RowBuffer can't remove more rows than it has")
    guard k > 0 else { return }
    if k < count { base.unsafelyUnwrapped.moveInitialize(from: base.unsafelyUnwrapped + k, count: count - k) }
    rowCount -= Int32(k)
  }

  /// Calls `body` with the rows in `range`, in place: valid only during the call, and only while
  /// the buffer does not grow.
  @inline(__always) func withRows<Result>(
    _ range: Range<Int>, _ body: (RowsView<Element>) throws -> Result
  ) rethrows -> Result {
    precondition(range.lowerBound >= 0 && range.upperBound <= count, "RowBuffer range out of bounds")
    return try body(RowsView(UnsafeBufferPointer(start: base.map { $0 + range.lowerBound }, count: range.count)))
  }

  /// Calls `body` with all the rows, writable in place (valid only during the call).
  @inline(__always) mutating func withMutableRows<Result>(
    _ body: (UnsafeMutableBufferPointer<Element>) throws -> Result
  ) rethrows -> Result {
    try body(UnsafeMutableBufferPointer(start: base, count: count))
  }

  /// A copy of the rows, as an array (for reports and tests).
  var array: [Element] { withRows(indices) { Array($0) } }
}

/// Rows of a `RowBuffer` lent read-only for one call: a collection over memory the buffer owns.
///
/// The model reads histories through this rather than through a pointer type, so that the one
/// place that knows the rows are raw memory is this file.
struct RowsView<Element: BitwiseCopyable>: RandomAccessCollection {
  private let rows: UnsafeBufferPointer<Element>

  @inline(__always) init(_ rows: UnsafeBufferPointer<Element>) { self.rows = rows }

  var startIndex: Int { 0 }
  var endIndex: Int { rows.count }

  @inline(__always) subscript(index: Int) -> Element { rows[index] }

  /// The rows as the pointer they are, for the other low-level files (`RunHistory`).
  var buffer: UnsafeBufferPointer<Element> { rows }
}
