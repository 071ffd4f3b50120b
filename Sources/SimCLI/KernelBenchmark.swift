import SimKernel

/// The classic hold model: keep N events pending; each processed event schedules one more at
/// now + Exp(mean), drawn from the project's own RNG (the draw is part of the measured cost).
struct HoldEvent: SimEvent {
  var id: UInt32
  var traceKind: UInt32 { 0 }
  var traceEntity: UInt32 { id }
}

struct HoldModel: EventHandler {
  var rng = RandomStream(seed: 1, name: "hold")
  let meanNanoseconds = 1_000_000_000.0

  mutating func handle(_ event: HoldEvent, in sim: inout Simulation<HoldEvent>) {
    let delay = SimDuration(nanoseconds: Int64(rng.exponential(mean: meanNanoseconds)))
    sim.schedule(event, after: delay)
  }
}

/// Runs the hold model and reports its speed.
enum KernelBenchmark {
  struct Result {
    var pending: Int
    var events: Int
    var seconds: Double
    var fingerprint: String
    var nanosecondsPerEvent: Double { seconds * 1e9 / Double(events) }
    var eventsPerSecond: Double { Double(events) / seconds }
  }

  /// Fills the queue with `pending` events, warms up, then times `events` holds.
  static func run(pending: Int, events: Int) -> Result {
    var sim = Simulation<HoldEvent>()
    var model = HoldModel()
    for id in 0..<pending {
      let delay = SimDuration(nanoseconds: Int64(model.rng.exponential(mean: model.meanNanoseconds)))
      sim.schedule(HoldEvent(id: UInt32(id)), after: delay)
    }
    sim.run(&model, maxEvents: min(events, pending))
    let clock = ContinuousClock()
    let start = clock.now
    sim.run(&model, maxEvents: events)
    let elapsed = start.duration(to: clock.now)
    let seconds = elapsed.secondsValue
    return Result(pending: pending, events: events, seconds: seconds, fingerprint: sim.fingerprint.hex)
  }
}
