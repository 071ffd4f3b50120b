import Testing

@testable import SimKernel

/// The ladder queue against a sorted-array reference, under the event patterns that stress it.
struct EventQueueTests {
  /// How a test draws the delay of each new event.
  enum DelayPattern: CaseIterable, CustomTestStringConvertible {
    /// Uniform 0..<1000 ns from 300 events: the queue starts as a plain heap, and bulk pushes grow
    /// its bottom until it is cut into a rung.
    case smallUniform
    /// Exp(1 s), the hold model's increments.
    case exponential
    /// A quarter up to 2^40 ns, the rest 0–2 ns: wide rungs, deep cuts and many equal times.
    case tiesAndHugeSpans
    /// One in fifty at the end of time (Int64.max), the rest within 10 ns.
    case endOfTime
    /// Half at the current time, half Exp(1000 s): bursts that grow the bottom.
    case bursts

    var testDescription: String { "\(self)" }
    var prefill: Int { self == .smallUniform ? 300 : 20_000 }

    func delay(now: Int64, _ rng: inout RandomStream) -> Int64 {
      let delay: Int64
      switch self {
      case .smallUniform: delay = Int64(rng.nextInt(below: 1000))
      case .exponential: delay = Int64(rng.exponential(mean: 1e9))
      case .tiesAndHugeSpans:
        delay = rng.nextInt(below: 4) == 0 ? Int64(rng.nextInt(below: 1 << 40)) : Int64(rng.nextInt(below: 3))
      case .endOfTime: delay = rng.nextInt(below: 50) == 0 ? .max : Int64(rng.nextInt(below: 10))
      case .bursts: delay = rng.nextInt(below: 2) == 0 ? 0 : Int64(rng.exponential(mean: 1e12))
      }
      return delay > .max - now ? .max - now : delay
    }
  }

  /// The reference: pending events sorted latest first, so the earliest is `last`.
  struct Reference {
    struct Event { var time: Int64; var priority: UInt8; var sequence: Int; var id: UInt32 }
    var events: [Event] = []

    static func precedes(_ a: Event, _ b: Event) -> Bool {
      (a.time, a.priority, a.sequence) < (b.time, b.priority, b.sequence)
    }

    /// Where `event` sits (or would sit) in the latest-first order.
    func index(of event: Event) -> Int {
      var low = 0
      var high = events.count
      while low < high {
        let middle = (low + high) / 2
        if Self.precedes(event, events[middle]) { low = middle + 1 } else { high = middle }
      }
      return low
    }

    mutating func insert(_ event: Event) { events.insert(event, at: index(of: event)) }
    mutating func remove(_ event: Event) { events.remove(at: index(of: event)) }
  }

  @Test(arguments: DelayPattern.allCases)
  func popsInTheReferenceOrder(_ pattern: DelayPattern) {
    var queue = EventQueue<UInt32>()
    var reference = Reference()
    var cancellable: [(event: Reference.Event, handle: EventHandle)] = []
    var rng = RandomStream(seed: 7, name: "queue", index: UInt64(pattern.prefill))
    var now: Int64 = 0
    var sequence = 0
    var deepestLadder = 0
    var popped = 0
    // Disagreements, checked once at the end: an #expect per step and per drained event was
    // most of the test's 54 s in a debug build.
    var disagreements: [String] = []
    func agree(_ condition: Bool, _ what: @autoclosure () -> String) {
      if !condition && disagreements.count < 10 { disagreements.append(what()) }
    }

    func push(delay: Int64, priority: UInt8) {
      let event = Reference.Event(
        time: now + delay, priority: priority, sequence: sequence, id: UInt32(truncatingIfNeeded: sequence))
      sequence += 1
      reference.insert(event)
      if rng.nextInt(below: 2) == 0 {
        cancellable.append((event, queue.pushCancellable(event.id, time: event.time, priority: priority)))
      } else {
        queue.push(event.id, time: event.time, priority: priority)
      }
    }

    for _ in 0..<pattern.prefill { push(delay: pattern.delay(now: now, &rng), priority: UInt8(rng.nextInt(below: 3))) }
    for step in 0..<8_000 {
      let choice = rng.nextInt(below: 10)
      if choice < 4 {
        let delay = pattern.delay(now: now, &rng)
        push(delay: delay, priority: UInt8(rng.nextInt(below: 3)))
        if choice == 0 && delay < .max - now - 7 {
          for offset in 0..<Int64(rng.nextInt(below: 200)) { push(delay: delay + offset % 7, priority: 1) }
        }
      } else if choice < 6 {
        guard !cancellable.isEmpty else { continue }
        let pick = Int(rng.nextInt(below: UInt64(cancellable.count)))
        cancellable.swapAt(pick, cancellable.count - 1)
        let (event, handle) = cancellable.removeLast()
        let wasPending = queue.isPending(handle)
        let cancelled = queue.cancel(handle)
        agree(cancelled == wasPending, "step \(step): cancel returned \(cancelled), pending \(wasPending)")
        if cancelled { reference.remove(event) }
      } else {
        let limit = rng.nextInt(below: 5) == 0 && now < .max - 100 ? now + Int64(rng.nextInt(below: 100)) : .max
        let expected = reference.events.last.flatMap { $0.time <= limit ? $0 : nil }
        let got = queue.pop(notAfter: limit)
        agree(
          got?.payload == expected?.id && got?.time == expected?.time,
          "step \(step): popped \(String(describing: got)), expected \(String(describing: expected))")
        if let expected, got?.payload == expected.id {
          reference.events.removeLast()
          now = expected.time
          popped += 1
        }
      }
      agree(queue.count == reference.events.count, "step \(step): \(queue.count) pending, expected \(reference.events.count)")
      deepestLadder = max(deepestLadder, queue.rungs.count)
      if step % 500 == 0 { #expect(queue.checkInvariants(), "step \(step)") }
    }
    while let got = queue.pop() {
      agree(got.payload == reference.events.last?.id, "drain: popped \(got.payload), expected \(String(describing: reference.events.last))")
      reference.events.removeLast()
    }
    #expect(disagreements.isEmpty, "\(disagreements)")
    #expect(reference.events.isEmpty)
    #expect(queue.checkInvariants())
    #expect(popped > 2_000)
    // Every pattern must exercise the ladder, and the one with wide spans its deeper rungs.
    #expect(deepestLadder >= 1)
    if pattern == .tiesAndHugeSpans { #expect(deepestLadder >= 2) }
  }

  @Test func cancellingMostOfALargeQueueShrinksItAndKeepsTheRest() {
    var queue = EventQueue<UInt32>()
    var handles: [EventHandle] = []
    var rng = RandomStream(seed: 3)
    var times: [Int64] = []
    for id in 0..<20_000 {
      let time = Int64(rng.nextInt(below: 1 << 30))
      times.append(time)
      handles.append(queue.pushCancellable(UInt32(id), time: time, priority: 0))
    }
    let earliest = queue.peekTime()
    #expect(earliest == times.min())
    #expect(queue.rungs.count == 1)
    for (id, handle) in handles.enumerated() where id % 100 != 0 { queue.cancel(handle) }
    #expect(queue.count == 200)
    // Compaction runs once stale entries outnumber live ones.
    #expect(queue.storedEntryCount < 2 * 200 + 64)
    #expect(queue.checkInvariants())
    var survivors: [UInt32] = []
    while let popped = queue.pop() { survivors.append(popped.payload) }
    let kept: [Int] = (0..<20_000).filter { $0 % 100 == 0 }
    let expected: [UInt32] = kept.sorted { (times[$0], $0) < (times[$1], $1) }.map { UInt32($0) }
    #expect(survivors == expected)
  }

  @Test func aHoldModelKeepsItsRungsBoundedAndItsStorageReused() {
    var queue = EventQueue<UInt32>()
    var rng = RandomStream(seed: 5)
    for id in 0..<50_000 { queue.push(UInt32(id), time: Int64(rng.exponential(mean: 1e9)), priority: 0) }
    var last: Int64 = 0
    var deepest = 0
    for _ in 0..<200_000 {
      guard let (time, id) = queue.pop() else { break }
      #expect(time >= last)
      last = time
      queue.push(id, time: time + Int64(rng.exponential(mean: 1e9)), priority: 0)
      deepest = max(deepest, queue.rungs.count)
    }
    #expect(queue.count == 50_000)
    #expect(deepest >= 1 && deepest <= 3)
    // Nodes are recycled: storage never holds more than the pending events plus one batch.
    #expect(queue.nodes.count <= 50_000)
    #expect(queue.checkInvariants())
  }

  /// A new root replacing a popped one is sifted top-down: it must stop as high as it belongs
  /// (a model's near-term follow-up) and go as deep as it belongs (an event far ahead).
  @Test(arguments: [0, 1, 2])
  func aNewRootSinksExactlyAsFarAsItBelongs(nearShareIndex: Int) {
    let nearShare = [0.0, 0.5, 1.0][nearShareIndex]
    var heap = EventHeap<UInt32>()
    var rng = RandomStream(seed: 23)
    var pending: [Int64] = []
    for id in 0..<1_000 {
      let time = Int64(rng.nextInt(below: 1_000_000))
      heap.insert(EventEntry(time: time, order: UInt64(id), slot: EventEntry<UInt32>.noSlot, payload: UInt32(id)))
      pending.append(time)
    }
    var popped: [Int64] = []
    for step in 0..<5_000 {
      let root = heap.entries[0]
      heap.popFirstLazily()
      if root.time != pending.min() { popped.append(-1) }  // a pop that missed the least time
      popped.append(root.time)
      pending.remove(at: pending.firstIndex(of: root.time)!)
      // Near: just after the popped time, ahead of nearly everything; far: past everything.
      let near = rng.nextUnit() < nearShare
      let time =
        near ? root.time + Int64(rng.nextInt(below: 3)) : root.time + 1_000_000 + Int64(rng.nextInt(below: 1_000_000))
      heap.insert(EventEntry(time: time, order: UInt64(1_000 + step), slot: EventEntry<UInt32>.noSlot, payload: 0))
      pending.append(time)
      if step % 250 == 0 { #expect(heap.isOrdered()) }
    }
    #expect(heap.isOrdered())
    #expect(heap.count == 1_000)
    // Every pop took the least pending time (a miss would have left a −1 behind).
    #expect(!popped.contains(-1))
    #expect(popped.count == 5_000)
    var rest: [Int64] = []
    while heap.count > 0 {
      rest.append(heap.entries[0].time)
      heap.popFirstLazily()
      heap.settle()
    }
    #expect(rest == pending.sorted())
  }
}
