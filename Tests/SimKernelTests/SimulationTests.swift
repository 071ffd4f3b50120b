import Testing

@testable import SimKernel

/// A test event: an id that the handler records in order.
struct Mark: SimEvent {
  var id: UInt32
  var traceKind: UInt32 { 1 }
  var traceEntity: UInt32 { id }
}

struct Recorder: EventHandler {
  var seen: [(SimTime, UInt32)] = []
  var onEvent: ((inout Simulation<Mark>, Mark) -> Void)? = nil
  mutating func handle(_ event: Mark, in sim: inout Simulation<Mark>) {
    seen.append((sim.now, event.id))
    onEvent?(&sim, event)
  }
}

@Suite struct SimulationTests {
  @Test func eventsAtSameTimeAndPriorityRunInSchedulingOrder() {
    var sim = Simulation<Mark>()
    for id in 0..<1000 { sim.schedule(Mark(id: UInt32(id)), at: SimTime(.seconds(5))) }
    var recorder = Recorder()
    let result1 = sim.run(&recorder)
    #expect(result1 == .drained)
    #expect(recorder.seen.map(\.1) == Array(0..<1000))
  }

  @Test func lowerPriorityNumberRunsFirstAtTheSameTime() {
    var sim = Simulation<Mark>()
    sim.schedule(Mark(id: 1), at: SimTime(.seconds(1)), priority: 200)
    sim.schedule(Mark(id: 2), at: SimTime(.seconds(1)), priority: 10)
    sim.schedule(Mark(id: 3), at: SimTime(.milliseconds(999)), priority: 255)
    var recorder = Recorder()
    sim.run(&recorder)
    #expect(recorder.seen.map(\.1) == [3, 2, 1])
  }

  @Test func timeOrderHoldsForRandomTimes() {
    var sim = Simulation<Mark>()
    var rng = RandomStream(seed: 7)
    for id in 0..<5000 {
      sim.schedule(Mark(id: UInt32(id)), at: SimTime(nanoseconds: Int64(rng.nextInt(below: 1_000))))
    }
    var recorder = Recorder()
    sim.run(&recorder)
    let times = recorder.seen.map(\.0)
    #expect(times == times.sorted())
    // Ties keep FIFO order: within one time, ids increase.
    for index in 1..<recorder.seen.count where recorder.seen[index].0 == recorder.seen[index - 1].0 {
      #expect(recorder.seen[index].1 > recorder.seen[index - 1].1)
    }
  }

  @Test func cancelledEventsNeverRunAndHandlesAreSafeToReuse() {
    var sim = Simulation<Mark>()
    let a = sim.scheduleCancellable(Mark(id: 1), at: SimTime(.seconds(1)))
    sim.schedule(Mark(id: 2), at: SimTime(.seconds(2)))
    let result2 = sim.cancel(a)
    #expect(result2)
    let result3 = sim.cancel(a)
    #expect(!result3)
    #expect(sim.pendingEventCount == 1)
    // The freed slot is reused; the old handle must not cancel the new event.
    sim.schedule(Mark(id: 3), at: SimTime(.seconds(3)))
    let result4 = sim.cancel(a)
    #expect(!result4)
    var recorder = Recorder()
    sim.run(&recorder)
    #expect(recorder.seen.map(\.1) == [2, 3])
    let result5 = sim.cancel(.none)
    #expect(!result5)
  }

  @Test func cancellationDoesNotGrowTheQueueWithoutBound() {
    var queue = EventQueue<UInt32>()
    var handles: [EventHandle] = []
    for round in 0..<100 {
      for i in 0..<1000 { handles.append(queue.pushCancellable(UInt32(i), time: Int64(round * 1000 + i), priority: 0)) }
      for handle in handles { queue.cancel(handle) }
      handles.removeAll()
      #expect(queue.storedEntryCount <= 1000)
    }
    #expect(queue.isEmpty)
    #expect(queue.checkInvariants())
    let result6 = queue.pop()
    #expect(result6 == nil)
  }

  @Test func heapInvariantHoldsUnderMixedOperations() {
    var queue = EventQueue<UInt32>()
    var rng = RandomStream(seed: 11)
    var live: [EventHandle] = []
    var lastPopped: Int64 = -1
    for step in 0..<20_000 {
      let choice = rng.nextInt(below: 3)
      if choice == 0, !live.isEmpty {
        let index = Int(rng.nextInt(below: UInt64(live.count)))
        live.swapAt(index, live.count - 1)
        queue.cancel(live.removeLast())
      } else if choice == 1, let popped = queue.pop() {
        #expect(popped.time >= lastPopped)
        lastPopped = popped.time
      } else {
        live.append(
          queue.pushCancellable(UInt32(step), time: lastPopped + 1 + Int64(rng.nextInt(below: 500)), priority: 0))
      }
    }
    #expect(queue.checkInvariants())
  }

  @Test func runUntilProcessesEventsAtTheEndAndLeavesLaterOnesQueued() {
    var sim = Simulation<Mark>()
    sim.schedule(Mark(id: 1), at: SimTime(.seconds(10)))
    sim.schedule(Mark(id: 2), at: SimTime(.seconds(20)))
    sim.schedule(Mark(id: 3), at: SimTime(.seconds(21)))
    var recorder = Recorder()
    #expect(sim.run(&recorder, until: SimTime(.seconds(20))) == .reachedTime(SimTime(.seconds(20))))
    #expect(recorder.seen.map(\.1) == [1, 2])
    #expect(sim.now == SimTime(.seconds(20)))
    #expect(sim.pendingEventCount == 1)
    #expect(sim.run(&recorder, until: SimTime(.seconds(30))) == .drained)
    #expect(sim.now == SimTime(.seconds(21)))
  }

  @Test func eventLimitStopsAZeroDelayLoop() {
    var sim = Simulation<Mark>()
    sim.schedule(Mark(id: 0), at: .zero)
    var recorder = Recorder()
    recorder.onEvent = { sim, _ in sim.schedule(Mark(id: 0), after: .zero) }
    let result7 = sim.run(&recorder, maxEvents: 500)
    #expect(result7 == .reachedEventLimit(500))
    #expect(sim.processedEventCount == 500)
    #expect(sim.now == .zero)
  }

  @Test func handlerCanStopTheRun() {
    var sim = Simulation<Mark>()
    for id in 0..<10 { sim.schedule(Mark(id: UInt32(id)), at: SimTime(.seconds(Int64(id)))) }
    var recorder = Recorder()
    recorder.onEvent = { sim, event in if event.id == 3 { sim.stop() } }
    let result8 = sim.run(&recorder)
    #expect(result8 == .stopped)
    #expect(recorder.seen.count == 4)
  }

  @Test func fingerprintIsEqualForEqualRunsAndDiffersForDifferentSeeds() {
    func run(seed: UInt64) -> UInt64 {
      var sim = Simulation<Mark>()
      var rng = RandomStream(seed: seed)
      for id in 0..<100 {
        sim.schedule(Mark(id: UInt32(id)), at: SimTime(SimDuration(seconds: rng.exponential(mean: 5))))
      }
      var recorder = Recorder()
      sim.run(&recorder)
      return sim.fingerprint.value
    }
    #expect(run(seed: 1) == run(seed: 1))
    #expect(run(seed: 1) != run(seed: 2))
    #expect(TrajectoryFingerprint().hex.count == 16)
  }

  @Test func durationsCoverNanosecondsToYears() {
    #expect(SimDuration.nanoseconds(1).nanoseconds == 1)
    #expect(SimDuration.days(365 * 200).nanoseconds == 200 * 365 * 86_400 * 1_000_000_000)
    #expect(SimDuration(seconds: 1.5) == .milliseconds(1500))
    #expect(SimTime(.seconds(3)) - SimTime(.seconds(1)) == .seconds(2))
    #expect(SimTime.distantFuture.advanced(by: .seconds(1)) == .distantFuture)
    #expect(SimDuration.milliseconds(1500).description == "1.500000000s")
    #expect(formatFixed(-1_500_000, decimals: 3) == "-0.002")
    #expect(formatFixed(2_000_499_999, decimals: 3) == "2.000")
  }
}
