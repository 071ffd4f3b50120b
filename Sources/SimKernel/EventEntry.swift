/// One scheduled event as the queue stores it: a flat value, ordered by (time, priority, sequence).
@usableFromInline struct EventEntry<Payload: BitwiseCopyable>: BitwiseCopyable {
  @usableFromInline var time: Int64
  /// Priority in the top 8 bits, the scheduling sequence in the low 56.
  @usableFromInline var order: UInt64
  /// The payload sits right after the two 64-bit keys, at an 8-byte offset. After the 4-byte slot
  /// (offset 20) a model's 9-byte event was moved through the stack in pieces that straddled
  /// that offset, and every insert waited on a failed store-to-load forward (measured: most of
  /// the heap's insert time on the peer fleet, docs/performance-history.md).
  @usableFromInline var payload: Payload
  /// The cancellation slot, or `EventEntry.noSlot`.
  @usableFromInline var slot: UInt32

  @usableFromInline static var noSlot: UInt32 { UInt32.max }

  @inlinable init(time: Int64, order: UInt64, slot: UInt32, payload: Payload) {
    self.time = time
    self.order = order
    self.slot = slot
    self.payload = payload
  }

  // Two 64-bit fields rather than one 128-bit key keep entries small (measured; see docs/performance-history.md).
  @inlinable @inline(__always) func precedes(_ other: EventEntry) -> Bool {
    time < other.time || (time == other.time && order < other.order)
  }

  /// The same order as one 128-bit comparison (time, then order): branch-free, which wins while
  /// the heap is in cache and mispredicted branches dominate. Times are never negative (`push`
  /// checks), so their bit patterns compare as unsigned numbers in the same order.
  @inlinable @inline(__always) func precedesBranchless(_ other: EventEntry) -> Bool {
    let mine = UInt128(UInt64(bitPattern: time)) &<< 64 | UInt128(order)
    let theirs = UInt128(UInt64(bitPattern: other.time)) &<< 64 | UInt128(other.order)
    return mine < theirs
  }
}
