/// A future-event set: a 4-ary min-heap of flat entries ordered by (time, priority, sequence).
///
/// Entries hold the payload inline (a `BitwiseCopyable` value, so nothing in the heap needs
/// reference counting) and are ordered by time, then priority, then the sequence number taken
/// when they were pushed: events with equal time and priority pop in the order they were pushed.
///
/// Only events pushed with `pushCancellable` take a slot in a side table; cancelling one frees
/// the slot at once and leaves a stale heap entry that is skipped when it reaches the top. The
/// heap is compacted when stale entries outnumber live ones, so cancellation never makes the
/// queue grow without bound. Plain pushes pay nothing for cancellation.
///
/// Pops are lazy: the popped root stays in place until the next operation. If that is a push
/// (a handler scheduling its follow-up, the commonest pattern), the new entry replaces the root
/// with one sift-down instead of a removal and an insertion.
///
/// - Complexity: push and pop are O(log₄ n); cancel is O(1) amortised.
public struct EventQueue<Payload: BitwiseCopyable> {
  @usableFromInline struct Entry: BitwiseCopyable {
    @usableFromInline var time: Int64
    /// Priority in the top 8 bits, the scheduling sequence in the low 56.
    @usableFromInline var order: UInt64
    /// The cancellation slot, or `noSlot`.
    @usableFromInline var slot: UInt32
    @usableFromInline var payload: Payload

    @inlinable init(time: Int64, order: UInt64, slot: UInt32, payload: Payload) {
      self.time = time
      self.order = order
      self.slot = slot
      self.payload = payload
    }

    // Two 64-bit fields rather than one 128-bit key: 24-byte entries stay cache-friendlier at
    // 1e5–1e6 pending events, where the queue is memory-bound (measured; see the README).
    @inlinable @inline(__always) func precedes(_ other: Entry) -> Bool {
      time < other.time || (time == other.time && order < other.order)
    }

    /// The same order as one 128-bit comparison (time with its sign bit flipped, then order):
    /// branch-free, which wins while the heap is in cache and mispredicted branches dominate.
    @inlinable @inline(__always) func precedesBranchless(_ other: Entry) -> Bool {
      let mine = UInt128(UInt64(bitPattern: time) ^ (1 << 63)) &<< 64 | UInt128(order)
      let theirs = UInt128(UInt64(bitPattern: other.time) ^ (1 << 63)) &<< 64 | UInt128(other.order)
      return mine < theirs
    }
  }

  @usableFromInline static var noSlot: UInt32 { UInt32.max }

  @usableFromInline var heap: [Entry] = []
  /// The order key of the live event in each cancellation slot, or 0 when the slot is free.
  @usableFromInline var slotOrders: [UInt64] = []
  @usableFromInline var freeSlots: [UInt32] = []
  @usableFromInline var nextSequence: UInt64 = 1
  @usableFromInline var staleCount = 0
  /// Whether `heap[0]` has been popped but not yet removed.
  @usableFromInline var rootPopped = false

  /// Creates an empty queue.
  public init() {}

  /// The number of live (not cancelled) events.
  @inlinable public var count: Int { heap.count - staleCount - (rootPopped ? 1 : 0) }
  /// Whether no live event remains.
  @inlinable public var isEmpty: Bool { count == 0 }
  /// Entries physically held, stale ones included (for tests of the compaction bound).
  public var storedEntryCount: Int { heap.count - (rootPopped ? 1 : 0) }

  /// Removes a lazily popped root, if any.
  @inlinable mutating func settle() {
    if rootPopped {
      rootPopped = false
      removeTop()
    }
  }

  @inlinable mutating func takeOrder(priority: UInt8) -> UInt64 {
    precondition(nextSequence < (1 << 56), "event sequence exhausted after 2^56 events")
    defer { nextSequence &+= 1 }
    return (UInt64(priority) << 56) | nextSequence
  }

  /// Adds `payload` at `time` with `priority` (lower runs first among equal times).
  @inlinable public mutating func push(_ payload: Payload, time: Int64, priority: UInt8) {
    let order = takeOrder(priority: priority)
    insert(Entry(time: time, order: order, slot: Self.noSlot, payload: payload))
  }

  @inlinable mutating func insert(_ entry: Entry) {
    if rootPopped {
      rootPopped = false
      heap.withUnsafeMutableBufferPointer { h in Self.siftDown(entry, from: 0, in: h) }
    } else {
      heap.append(entry)
      siftUp(from: heap.count - 1)
    }
  }

  /// Adds `payload` like `push` and returns a handle that can cancel it.
  @inlinable public mutating func pushCancellable(_ payload: Payload, time: Int64, priority: UInt8) -> EventHandle {
    let order = takeOrder(priority: priority)
    let slot: UInt32
    if let reused = freeSlots.popLast() {
      slot = reused
      slotOrders[Int(slot)] = order
    } else {
      slot = UInt32(slotOrders.count)
      slotOrders.append(order)
    }
    insert(Entry(time: time, order: order, slot: slot, payload: payload))
    return EventHandle(slot: slot, order: order)
  }

  /// Removes the earliest live event if its time is at or before `limit`.
  @inlinable public mutating func pop(notAfter limit: Int64 = .max) -> (time: Int64, payload: Payload)? {
    settle()
    while let top = heap.first {
      if top.slot != Self.noSlot {
        if slotOrders[Int(top.slot)] != top.order {
          removeTop()
          staleCount -= 1
          continue
        }
        if top.time > limit { return nil }
        slotOrders[Int(top.slot)] = 0
        freeSlots.append(top.slot)
      } else if top.time > limit {
        return nil
      }
      rootPopped = true
      return (top.time, top.payload)
    }
    return nil
  }

  /// The time of the earliest live event, discarding stale entries on the way.
  @inlinable public mutating func peekTime() -> Int64? {
    settle()
    while let top = heap.first {
      if top.slot == Self.noSlot || slotOrders[Int(top.slot)] == top.order { return top.time }
      removeTop()
      staleCount -= 1
    }
    return nil
  }

  /// Cancels the event named by `handle`; returns whether it was still pending.
  @inlinable @discardableResult
  public mutating func cancel(_ handle: EventHandle) -> Bool {
    guard isPending(handle) else { return false }
    settle()
    slotOrders[Int(handle.slot)] = 0
    freeSlots.append(handle.slot)
    staleCount += 1
    if staleCount > 32 && staleCount * 2 > heap.count { compact() }
    return true
  }

  /// Whether the event named by `handle` is still pending.
  @inlinable public func isPending(_ handle: EventHandle) -> Bool {
    let slot = Int(handle.slot)
    return slot < slotOrders.count && handle.order != 0 && slotOrders[slot] == handle.order
  }

  /// Drops every stale entry and restores the heap order in O(n).
  @usableFromInline mutating func compact() {
    heap.removeAll { $0.slot != Self.noSlot && slotOrders[Int($0.slot)] != $0.order }
    staleCount = 0
    if heap.count > 1 {
      var index = (heap.count - 2) / 4
      while index >= 0 {
        siftDown(from: index)
        index -= 1
      }
    }
  }

  @inlinable mutating func removeTop() {
    let last = heap.removeLast()
    if !heap.isEmpty {
      heap.withUnsafeMutableBufferPointer { h in
        Self.siftDown(last, from: 0, in: h)
      }
    }
  }

  @inlinable mutating func siftUp(from start: Int) {
    heap.withUnsafeMutableBufferPointer { h in
      var child = start
      let moving = h[child]
      while child > 0 {
        let parent = (child - 1) >> 2
        if !moving.precedes(h[parent]) { break }
        h[child] = h[parent]
        child = parent
      }
      h[child] = moving
    }
  }

  @inlinable mutating func siftDown(from start: Int) {
    heap.withUnsafeMutableBufferPointer { h in
      Self.siftDown(h[start], from: start, in: h)
    }
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
}

extension EventQueue {
  /// Checks the heap property and the stale count; for tests and debug builds.
  public func checkInvariants() -> Bool {
    var stale = 0
    for (index, entry) in heap.enumerated() where !(index == 0 && rootPopped) {
      let parent = (index - 1) >> 2
      if index > 0 && !(rootPopped && parent == 0) && entry.precedes(heap[parent]) { return false }
      if entry.slot != Self.noSlot && slotOrders[Int(entry.slot)] != entry.order { stale += 1 }
    }
    return stale == staleCount
  }
}
