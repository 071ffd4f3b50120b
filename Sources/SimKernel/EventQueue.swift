/// A future-event set: a ladder queue of flat entries ordered by (time, priority, sequence).
///
/// Entries hold the payload inline (a `BitwiseCopyable` value, so nothing in the queue needs
/// reference counting) and are ordered by time, then priority, then the sequence number taken
/// when they were pushed: events with equal time and priority pop in the order they were pushed.
///
/// The structure is Tang, Goh and Thng's ladder queue (ACM TOMACS 15(3), 2005) with a 4-ary heap
/// as its bottom:
/// - **top**: an unsorted list of the events at or after `topStart`;
/// - **rungs**: arrays of buckets, each bucket an unsorted list of the events in its time range.
///   Rung 0 spans what the top held when it was last emptied; each deeper rung spans the part of
///   one bucket of the rung above that is left to run, cut into finer buckets;
/// - **bottom**: a heap of the earliest events, all before the deepest rung's current bucket.
/// A push appends to the one list whose range holds its time (or enters the small bottom heap);
/// when the bottom runs dry, the next non-empty bucket of the deepest rung moves into it, or is
/// cut into a new rung first if it holds many events. Every event is moved a bounded number of
/// times, so push and pop cost O(1) amortised for any increment distribution with a finite mean,
/// and the few cache lines each touches keep large queues fast where a heap walks ~log₄ n levels
/// through memory. The ranges of top, rungs and bottom never overlap, so events at the same time
/// always meet in one place and pop exactly in heap order.
///
/// Small queues are just the bottom heap: a top of at most `heapOnlyLimit` events moves into it
/// whole and every push follows, until the heap outgrows `bottomCutLimit` and is cut into a rung.
/// In cache, the heap's few comparisons beat the ladder's bookkeeping.
///
/// Only events pushed with `pushCancellable` take a slot in a side table; cancelling one frees
/// the slot at once and leaves a stale entry that is skipped when it reaches the front. The queue
/// is rebuilt when stale entries outnumber live ones, so cancellation never makes it grow without
/// bound. Plain pushes pay nothing for cancellation.
///
/// - Complexity: push and pop are O(1) amortised; cancel is O(1) amortised.
public struct EventQueue<Payload: BitwiseCopyable> {
  @usableFromInline typealias Entry = EventEntry<Payload>

  /// One bucket of a rung: an unsorted list of entries threaded through `nodes`.
  @usableFromInline struct Bucket: BitwiseCopyable {
    @usableFromInline var head: UInt32
    @usableFromInline var count: UInt32

    @inlinable init(head: UInt32 = EventQueue.noLink, count: UInt32 = 0) {
      self.head = head
      self.count = count
    }
  }

  /// One rung of the ladder: `bucketCount` buckets of 2^`shift` ns from `start`.
  ///
  /// Bounds are keys (see `key`), not times.
  @usableFromInline struct Rung: BitwiseCopyable {
    @usableFromInline var start: UInt64
    @usableFromInline var shift: UInt64
    /// Where bucket 0 sits in `buckets`.
    @usableFromInline var base: Int
    @usableFromInline var bucketCount: Int
    /// The next bucket to empty; the ones before it are empty.
    @usableFromInline var current: Int
    /// The start of bucket `current`: the rung holds the events from here to its end.
    @usableFromInline var currentStart: UInt64

    @inlinable init(start: UInt64, shift: UInt64, base: Int, bucketCount: Int) {
      self.start = start
      self.shift = shift
      self.base = base
      self.bucketCount = bucketCount
      self.current = 0
      self.currentStart = start
    }

    @inlinable var end: UInt64 { start &+ (UInt64(bucketCount) << shift) }
  }

  /// The end of a list of nodes.
  @usableFromInline static var noLink: UInt32 { UInt32.max }
  /// A bucket with more events than this is cut into a new rung instead of entering the bottom.
  @usableFromInline static var spawnThreshold: UInt32 { 48 }
  /// Rungs deeper than this are not made; their buckets enter the bottom whole.
  @usableFromInline static var maximumRungs: Int { 16 }
  /// A top with at most this many events goes straight into the bottom heap: a heap this small
  /// stays in cache and beats the ladder's bookkeeping (measured; see docs/performance-history.md).
  @usableFromInline static var heapOnlyLimit: Int { 1024 }

  @usableFromInline var bottom = EventHeap<Payload>()
  /// When the bottom grows past this, it is cut into a new rung.
  @usableFromInline var bottomCutLimit = 2 * heapOnlyLimit
  /// Storage for the entries of the top and the rungs.
  @usableFromInline var nodes: [Entry] = []
  /// The next node in the same list as each node, or `noLink`. Kept apart from `nodes` so that
  /// walking a list chases small, cache-resident links while the entries load in parallel.
  @usableFromInline var links: [UInt32] = []
  @usableFromInline var freeNode: UInt32 = Self.noLink
  @usableFromInline var nodesInUse = 0
  /// The buckets of every rung, rung 0 first.
  @usableFromInline var buckets: [Bucket] = []
  @usableFromInline var rungs: [Rung] = []
  @usableFromInline var topHead: UInt32 = Self.noLink
  @usableFromInline var topCount = 0
  @usableFromInline var topMinimum: Int64 = .max
  @usableFromInline var topMaximum: Int64 = .min
  /// Events whose key is at or after this go to the top.
  @usableFromInline var topStart: UInt64 = 0
  /// Events whose key is before this go to the bottom: the deepest rung's `currentStart`, or
  /// `topStart` when there is no rung. Kept so that the commonest push needs one comparison.
  @usableFromInline var bottomEnd: UInt64 = 0

  /// The order key of the live event in each cancellation slot, or 0 when the slot is free.
  @usableFromInline var slotOrders: [UInt64] = []
  @usableFromInline var freeSlots: [UInt32] = []
  @usableFromInline var nextSequence: UInt64 = 1
  @usableFromInline var staleCount = 0

  /// Creates an empty queue.
  public init() {}

  /// The number of live (not cancelled) events.
  @inlinable public var count: Int { storedEntryCount - staleCount }
  /// Whether no live event remains.
  @inlinable public var isEmpty: Bool { count == 0 }
  /// Entries physically held, stale ones included (for tests of the compaction bound).
  @inlinable public var storedEntryCount: Int { bottom.count + nodesInUse }

  /// An event time as the ladder's unsigned key: the time plus 2^62.
  ///
  /// Times are never negative, so keys lie in [2^62, 2^62 + 2^63). A rung made from n ≥ 49
  /// events has buckets of at most 2^58 ns (see `makeRung`), and its bounds stray from its events'
  /// keys by less than one bucket, so they neither wrap below zero nor above 2^64.
  @inlinable @inline(__always) static func key(_ time: Int64) -> UInt64 {
    UInt64(bitPattern: time) &+ (1 << 62)
  }

  @inlinable mutating func takeOrder(priority: UInt8) -> UInt64 {
    precondition(nextSequence < (1 << 56), "event sequence exhausted after 2^56 events")
    defer { nextSequence &+= 1 }
    return (UInt64(priority) << 56) | nextSequence
  }

  /// Adds `payload` at `time` with `priority` (lower runs first among equal times).
  ///
  /// - Precondition: `time` is not negative (simulated time starts at zero).
  @inlinable public mutating func push(_ payload: Payload, time: Int64, priority: UInt8) {
    precondition(time >= 0, "event times start at zero; cannot queue an event at \(time) ns")
    let order = takeOrder(priority: priority)
    place(Entry(time: time, order: order, slot: Entry.noSlot, payload: payload))
  }

  /// Adds `payload` like `push` and returns a handle that can cancel it.
  @inlinable public mutating func pushCancellable(_ payload: Payload, time: Int64, priority: UInt8) -> EventHandle {
    precondition(time >= 0, "event times start at zero; cannot queue an event at \(time) ns")
    let order = takeOrder(priority: priority)
    let slot: UInt32
    if let reused = freeSlots.popLast() {
      slot = reused
      slotOrders[Int(slot)] = order
    } else {
      slot = UInt32(slotOrders.count)
      slotOrders.append(order)
    }
    place(Entry(time: time, order: order, slot: slot, payload: payload))
    return EventHandle(slot: slot, order: order)
  }

  /// Puts `entry` in the bottom, the top or the rung bucket whose range holds its time.
  @inlinable @inline(__always) mutating func place(_ entry: Entry) {
    let time = Self.key(entry.time)
    if time < bottomEnd {
      bottom.insert(entry)
      if bottom.entries.count > bottomCutLimit { cutBottomIntoRung() }
    } else {
      placeInLadder(entry, key: time)
    }
  }

  /// Puts `entry`, which follows the bottom's range, in the top or its rung's bucket.
  @inlinable @inline(never) mutating func placeInLadder(_ entry: Entry, key time: UInt64) {
    if time >= topStart {
      addToTop(entry)
      return
    }
    for index in rungs.indices {
      let rung = rungs[index]
      if time >= rung.currentStart {
        add(entry, toBucket: rung.base &+ Int(truncatingIfNeeded: (time &- rung.start) &>> rung.shift))
        return
      }
    }
    preconditionFailure("ladder queue: no range holds key \(time)")
  }

  /// Recomputes `bottomEnd` after the rungs or the top changed.
  @inlinable mutating func updateBottomEnd() {
    bottomEnd = rungs.last?.currentStart ?? topStart
  }

  /// Stores `entry` in a free node that links to `next` and returns the node's index.
  @inlinable mutating func store(_ entry: Entry, linkingTo next: UInt32) -> UInt32 {
    nodesInUse &+= 1
    let index = freeNode
    if index != Self.noLink {
      freeNode = links[Int(index)]
      nodes[Int(index)] = entry
      links[Int(index)] = next
      return index
    }
    precondition(nodes.count < Int(Self.noLink), "more than 2^32 - 1 events pending")
    nodes.append(entry)
    links.append(next)
    return UInt32(truncatingIfNeeded: nodes.count &- 1)
  }

  @inlinable mutating func release(_ index: UInt32) {
    links[Int(index)] = freeNode
    freeNode = index
    nodesInUse &-= 1
  }

  @inlinable mutating func add(_ entry: Entry, toBucket index: Int) {
    let bucket = buckets[index]
    buckets[index] = Bucket(head: store(entry, linkingTo: bucket.head), count: bucket.count &+ 1)
  }

  @inlinable mutating func addToTop(_ entry: Entry) {
    topHead = store(entry, linkingTo: topHead)
    topCount &+= 1
    topMinimum = min(topMinimum, entry.time)
    topMaximum = max(topMaximum, entry.time)
  }

  /// Removes the earliest live event if its time is at or before `limit`.
  @inlinable public mutating func pop(notAfter limit: Int64 = .max) -> (time: Int64, payload: Payload)? {
    guard let front = liveFront() else { return nil }
    if front.time > limit { return nil }
    if front.slot != Entry.noSlot {
      slotOrders[Int(front.slot)] = 0
      freeSlots.append(front.slot)
    }
    bottom.popFirstLazily()
    return (front.time, front.payload)
  }

  /// The time of the earliest live event, discarding stale entries on the way.
  @inlinable public mutating func peekTime() -> Int64? { liveFront()?.time }

  /// The earliest live entry, now at the bottom's root: refills the bottom from the ladder and
  /// drops stale entries as needed.
  @inlinable @inline(__always) mutating func liveFront() -> Entry? {
    bottom.settle()
    while true {
      guard let front = bottom.entries.first else {
        if refillBottom() { continue }
        return nil
      }
      if isStale(front) {
        bottom.removeFirst()
        staleCount -= 1
        continue
      }
      return front
    }
  }

  /// Cancels the event named by `handle`; returns whether it was still pending.
  @inlinable @discardableResult
  public mutating func cancel(_ handle: EventHandle) -> Bool {
    guard isPending(handle) else { return false }
    slotOrders[Int(handle.slot)] = 0
    freeSlots.append(handle.slot)
    staleCount += 1
    if staleCount > 32 && staleCount * 2 > storedEntryCount { compact() }
    return true
  }

  /// Whether the event named by `handle` is still pending.
  @inlinable public func isPending(_ handle: EventHandle) -> Bool {
    let slot = Int(handle.slot)
    return slot < slotOrders.count && handle.order != 0 && slotOrders[slot] == handle.order
  }

  @inlinable func isStale(_ entry: Entry) -> Bool {
    entry.slot != Entry.noSlot && slotOrders[Int(entry.slot)] != entry.order
  }
}

// MARK: - Moving events down the ladder

extension EventQueue {
  /// Moves the next events into the empty bottom; returns `false` when no event is left.
  @inlinable mutating func refillBottom() -> Bool {
    defer { updateBottomEnd() }
    while bottom.entries.isEmpty {
      guard var rung = rungs.last else {
        if topCount == 0 { return false }
        emptyTop()
        continue
      }
      var index = rung.current
      while index < rung.bucketCount && buckets[rung.base &+ index].count == 0 { index &+= 1 }
      if index == rung.bucketCount {
        buckets.removeLast(rung.bucketCount)
        rungs.removeLast()
        continue
      }
      let bucket = buckets[rung.base &+ index]
      buckets[rung.base &+ index] = Bucket()
      rung.current = index &+ 1
      rung.currentStart = rung.start &+ (UInt64(rung.current) << rung.shift)
      rungs[rungs.count - 1] = rung
      if bucket.count > Self.spawnThreshold && rung.shift > 0 && rungs.count < Self.maximumRungs {
        cutIntoRung(bucket, end: rung.currentStart)
      } else {
        moveToBottom(bucket.head)
      }
    }
    return true
  }

  /// Forgets the top's list and bounds (its nodes are moved or dropped by the caller).
  @inlinable mutating func clearTop() {
    topHead = Self.noLink
    topCount = 0
    topMinimum = .max
    topMaximum = .min
  }

  /// Moves the top into a new rung 0, or straight into the bottom when it holds few events.
  @inlinable mutating func emptyTop() {
    let head = topHead
    let count = topCount
    let lowest = topMinimum
    let highest = topMaximum
    clearTop()
    if count <= Self.heapOnlyLimit || lowest == highest {
      // Few events: the queue becomes a plain heap, and every push goes to the bottom until it
      // grows large enough to be cut into a rung.
      moveToBottom(head)
      topStart = .max
    } else {
      makeRung(head, count: count, lowest: Self.key(lowest), highest: Self.key(highest), end: nil)
      topStart = rungs[0].end
    }
  }

  /// Cuts a bucket holding many events into a deeper rung that ends where the bucket did.
  @inlinable mutating func cutIntoRung(_ bucket: Bucket, end: UInt64) {
    var lowest = UInt64.max
    var highest = UInt64.min
    var index = bucket.head
    while index != Self.noLink {
      let time = Self.key(nodes[Int(index)].time)
      lowest = min(lowest, time)
      highest = max(highest, time)
      index = links[Int(index)]
    }
    if lowest == highest {
      moveToBottom(bucket.head)
      return
    }
    makeRung(bucket.head, count: Int(bucket.count), lowest: lowest, highest: highest, end: end)
  }

  /// Adds a rung covering keys `lowest...highest` in at most `count` buckets and distributes
  /// `head`'s list into it. A rung cut from a bucket or the bottom ends exactly at `end`, so the
  /// ranges stay nested; its start may then lie up to one bucket below `lowest`.
  ///
  /// - Precondition: `count` > 48 (so a bucket is at most 2^58 ns wide).
  @inlinable mutating func makeRung(_ head: UInt32, count: Int, lowest: UInt64, highest: UInt64, end: UInt64?) {
    let last = end.map { $0 &- 1 } ?? highest
    let span = last &- lowest
    var shift: UInt64 = 0
    while span &>> shift >= UInt64(count) { shift &+= 1 }
    let bucketCount = Int(span &>> shift) &+ 1
    // Aligned to the end for a cut bucket (start ≤ lowest), to the lowest time for the top.
    let start = end.map { $0 &- (UInt64(bucketCount) << shift) } ?? lowest
    let rung = Rung(start: start, shift: shift, base: buckets.count, bucketCount: bucketCount)
    buckets.append(contentsOf: repeatElement(Bucket(), count: bucketCount))
    rungs.append(rung)
    var index = head
    while index != Self.noLink {
      let next = links[Int(index)]
      let time = Self.key(nodes[Int(index)].time)
      let target = rung.base &+ Int(truncatingIfNeeded: (time &- start) &>> shift)
      let bucket = buckets[target]
      links[Int(index)] = bucket.head
      buckets[target] = Bucket(head: index, count: bucket.count &+ 1)
      index = next
    }
  }

  /// Moves a list into the (empty) bottom and frees its nodes.
  @inlinable mutating func moveToBottom(_ head: UInt32) {
    var index = head
    while index != Self.noLink {
      let next = links[Int(index)]
      bottom.appendUnordered(nodes[Int(index)])
      release(index)
      index = next
    }
    bottom.restoreOrder()
  }

  /// Cuts a bottom that has grown large into a new deepest rung, which ends where the bottom's
  /// range did. If it cannot be cut (all its events at one time, or the ladder is full), the
  /// bottom stays a heap and is not looked at again until it doubles.
  @usableFromInline mutating func cutBottomIntoRung() {
    bottom.settle()
    var lowest = UInt64.max
    var highest = UInt64.min
    for entry in bottom.entries {
      lowest = min(lowest, Self.key(entry.time))
      highest = max(highest, Self.key(entry.time))
    }
    guard lowest != highest && rungs.count < Self.maximumRungs else {
      bottomCutLimit = 2 * bottom.entries.count
      return
    }
    if rungs.isEmpty && topCount == 0 {
      // The top is empty, so its range can shrink to start just after the bottom's last event.
      topStart = highest &+ 1
    }
    let end = rungs.last?.currentStart ?? topStart
    var head = Self.noLink
    for entry in bottom.entries { head = store(entry, linkingTo: head) }
    let count = bottom.entries.count
    bottom.removeAll()
    bottomCutLimit = 2 * Self.heapOnlyLimit
    makeRung(head, count: count, lowest: lowest, highest: highest, end: end)
    updateBottomEnd()
  }

  /// Drops every stale entry: the live ones go back to the top, to be laddered afresh.
  @usableFromInline mutating func compact() {
    bottom.settle()
    var live: [Entry] = []
    live.reserveCapacity(count)
    for entry in bottom.entries where !isStale(entry) { live.append(entry) }
    forEachLadderEntry { entry in if !isStale(entry) { live.append(entry) } }
    bottom.removeAll()
    nodes.removeAll(keepingCapacity: true)
    links.removeAll(keepingCapacity: true)
    freeNode = Self.noLink
    nodesInUse = 0
    buckets.removeAll(keepingCapacity: true)
    rungs.removeAll(keepingCapacity: true)
    clearTop()
    topStart = 0
    bottomEnd = 0
    staleCount = 0
    for entry in live { addToTop(entry) }
  }

  /// Calls `body` with every entry in the top and the rungs.
  func forEachLadderEntry(_ body: (Entry) -> Void) {
    var index = topHead
    while index != Self.noLink {
      body(nodes[Int(index)])
      index = links[Int(index)]
    }
    for bucket in buckets {
      var index = bucket.head
      while index != Self.noLink {
        body(nodes[Int(index)])
        index = links[Int(index)]
      }
    }
  }
}

extension EventQueue {
  /// Checks the ladder's ranges, counts and the heap order; for tests and debug builds.
  public func checkInvariants() -> Bool {
    var stale = 0
    var linked = 0
    guard bottom.isOrdered() else { return false }
    if bottomEnd != rungs.last?.currentStart ?? topStart { return false }
    for (position, entry) in bottom.entries.enumerated() where !(position == 0 && bottom.rootPopped) {
      if Self.key(entry.time) >= bottomEnd { return false }
      if isStale(entry) { stale += 1 }
    }
    var index = topHead
    var topSeen = 0
    while index != Self.noLink {
      let entry = nodes[Int(index)]
      if Self.key(entry.time) < topStart { return false }
      if isStale(entry) { stale += 1 }
      topSeen += 1
      index = links[Int(index)]
    }
    if topSeen != topCount { return false }
    linked += topSeen
    for (level, rung) in rungs.enumerated() {
      let above = level == 0 ? topStart : rungs[level - 1].currentStart
      if rung.end != above { return false }
      if rung.currentStart != rung.start &+ (UInt64(rung.current) << rung.shift) { return false }
      for offset in 0..<rung.bucketCount {
        let bucket = buckets[rung.base + offset]
        if offset < rung.current && bucket.count != 0 { return false }
        let low = rung.start &+ (UInt64(offset) << rung.shift)
        let high = low &+ (1 << rung.shift)
        var index = bucket.head
        var seen: UInt32 = 0
        while index != Self.noLink {
          let entry = nodes[Int(index)]
          let time = Self.key(entry.time)
          if time < low || time >= high { return false }
          if isStale(entry) { stale += 1 }
          seen += 1
          index = links[Int(index)]
        }
        if seen != bucket.count { return false }
        linked += Int(seen)
      }
    }
    return stale == staleCount && linked == nodesInUse
  }
}
