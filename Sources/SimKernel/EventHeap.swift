/// A 4-ary min-heap of event entries: the ladder queue's bottom, where the earliest events wait.
///
/// Pops are lazy: the popped root stays in place until the next operation. If that is an insert
/// (a handler scheduling its follow-up, the commonest pattern), the new entry replaces the root
/// with one sift-down instead of a removal and an insertion.
@usableFromInline struct EventHeap<Payload: BitwiseCopyable> {
  @usableFromInline typealias Entry = EventEntry<Payload>

  @usableFromInline var entries: [Entry] = []
  /// Whether `entries[0]` has been popped but not yet removed.
  @usableFromInline var rootPopped = false

  @inlinable init() {}

  /// Entries held, a lazily popped root excluded.
  @inlinable var count: Int { entries.count - (rootPopped ? 1 : 0) }

  /// Marks the root as popped; it is removed by the next operation.
  @inlinable mutating func popFirstLazily() { rootPopped = true }

  /// Removes the root now.
  @inlinable mutating func removeFirst() {
    let last = entries.removeLast()
    if !entries.isEmpty {
      entries.withUnsafeMutableBufferPointer { h in Self.siftDown(last, from: 0, in: h) }
    }
  }

  /// Removes a lazily popped root, if any.
  @inlinable mutating func settle() {
    if rootPopped {
      rootPopped = false
      removeFirst()
    }
  }

  @inlinable mutating func insert(_ entry: Entry) {
    if rootPopped {
      rootPopped = false
      entries.withUnsafeMutableBufferPointer { h in Self.siftDown(entry, from: 0, in: h) }
    } else {
      entries.append(entry)
      entries.withUnsafeMutableBufferPointer { h in
        var child = h.count - 1
        while child > 0 {
          let parent = (child - 1) >> 2
          if !entry.precedes(h[parent]) { break }
          h[child] = h[parent]
          child = parent
        }
        h[child] = entry
      }
    }
  }

  /// Adds `entry` without restoring the heap order; call `restoreOrder` after a batch.
  @inlinable mutating func appendUnordered(_ entry: Entry) {
    settle()
    entries.append(entry)
  }

  /// Restores the heap order after `appendUnordered` (Floyd's O(n) heap construction).
  @inlinable mutating func restoreOrder() {
    guard entries.count > 1 else { return }
    entries.withUnsafeMutableBufferPointer { h in
      var index = (h.count - 2) >> 2
      while index >= 0 {
        Self.siftDown(h[index], from: index, in: h)
        index -= 1
      }
    }
  }

  /// Empties the heap, keeping its storage.
  @inlinable mutating func removeAll() {
    entries.removeAll(keepingCapacity: true)
    rootPopped = false
  }

  /// Places `moving` at `start` and sifts it down to where it belongs.
  ///
  /// Bottom-up (Floyd): the hole first walks down to a leaf along the least children, then
  /// `moving` climbs back up from there. An entry placed at the root usually belongs near the
  /// bottom, so this saves the comparison with `moving` at every level on the way down.
  @inlinable static func siftDown(_ moving: Entry, from start: Int, in h: UnsafeMutableBufferPointer<Entry>) {
    // Below this size the heap stays in cache: branch-free comparisons are faster. Above it the
    // walk is memory-bound and branchy comparisons let the processor run ahead (measured).
    if h.count < 32_768 {
      siftDown(moving, from: start, in: h) { $0.precedesBranchless($1) }
    } else {
      siftDown(moving, from: start, in: h) { $0.precedes($1) }
    }
  }

  @inlinable @inline(__always) static func siftDown(
    _ moving: Entry, from start: Int, in h: UnsafeMutableBufferPointer<Entry>, by less: (Entry, Entry) -> Bool
  ) {
    let n = h.count
    var hole = start
    while true {
      let first = (hole << 2) &+ 1
      if first >= n { break }
      var best = first
      if first &+ 3 < n {
        let a = less(h[first], h[first &+ 1]) ? first : first &+ 1
        let b = less(h[first &+ 2], h[first &+ 3]) ? first &+ 2 : first &+ 3
        best = less(h[a], h[b]) ? a : b
      } else {
        var candidate = first &+ 1
        while candidate < n {
          if less(h[candidate], h[best]) { best = candidate }
          candidate &+= 1
        }
      }
      h[hole] = h[best]
      hole = best
    }
    while hole > start {
      let parent = (hole &- 1) >> 2
      if !less(moving, h[parent]) { break }
      h[hole] = h[parent]
      hole = parent
    }
    h[hole] = moving
  }

  /// Whether every entry follows its parent (a lazily popped root aside).
  func isOrdered() -> Bool {
    for index in entries.indices where index > 0 {
      let parent = (index - 1) >> 2
      if rootPopped && parent == 0 { continue }
      if entries[index].precedes(entries[parent]) { return false }
    }
    return true
  }
}
