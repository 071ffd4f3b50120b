/// A single-threaded discrete-event simulation: a virtual clock and a queue of flat events.
///
/// The kernel knows nothing about the domain. A model supplies an event type (a small enum) and a
/// handler; the handler may schedule and cancel events while it runs:
///
/// ```swift
/// enum Tick: SimEvent { case tick
///   var traceKind: UInt32 { 0 }; var traceEntity: UInt32 { 0 } }
/// struct Counter: EventHandler {
///   var count = 0
///   mutating func handle(_ e: Tick, in sim: inout Simulation<Tick>) {
///     count += 1
///     sim.schedule(.tick, after: .seconds(1))
///   }
/// }
/// var sim = Simulation<Tick>()
/// sim.schedule(.tick, at: .zero)
/// var counter = Counter()
/// sim.run(&counter, until: SimTime(.seconds(10)))   // count == 11
/// ```
///
/// Events at the same time and priority run in the order they were scheduled. Not thread-safe:
/// one simulation belongs to one thread; parallel sweeps run separate simulations.
public struct Simulation<Event: SimEvent> {
  /// The current virtual time; never goes backwards.
  public var now: SimTime { clock }
  /// How many events have been processed.
  public var processedEventCount: Int { processed }
  /// The hash over every processed event so far.
  public var fingerprint: TrajectoryFingerprint { trajectory }
  @usableFromInline var clock: SimTime = .zero
  @usableFromInline var processed = 0
  @usableFromInline var trajectory = TrajectoryFingerprint()
  @usableFromInline var queue = EventQueue<Event>()
  @usableFromInline var stopRequested = false

  /// The default priority; lower numbers run first among events at the same time.
  @inlinable public static var normalPriority: UInt8 { 128 }

  /// Creates an empty simulation at time zero.
  public init() {}

  /// The number of pending (not cancelled) events.
  public var pendingEventCount: Int { queue.count }

  /// Schedules `event` at the absolute time `time`.
  ///
  /// - Precondition: `time` is not before `now`.
  @inlinable
  public mutating func schedule(
    _ event: Event, at time: SimTime, priority: UInt8 = Simulation.normalPriority
  ) {
    precondition(
      time >= clock, "cannot schedule an event at \(time), before the current time \(now)")
    queue.push(event, time: time.nanoseconds, priority: priority)
  }

  /// Schedules `event` after `delay` from now.
  ///
  /// - Precondition: `delay` is not negative.
  @inlinable
  public mutating func schedule(
    _ event: Event, after delay: SimDuration, priority: UInt8 = Simulation.normalPriority
  ) {
    precondition(delay.nanoseconds >= 0, "cannot schedule an event after a negative delay \(delay) at \(now)")
    queue.push(event, time: clock.advanced(by: delay).nanoseconds, priority: priority)
  }

  /// Schedules `event` at `time` and returns a handle that can cancel it.
  ///
  /// Only cancellable events pay for the bookkeeping that cancellation needs.
  /// - Precondition: `time` is not before `now`.
  @inlinable
  public mutating func scheduleCancellable(
    _ event: Event, at time: SimTime, priority: UInt8 = Simulation.normalPriority
  ) -> EventHandle {
    precondition(
      time >= clock, "cannot schedule an event at \(time), before the current time \(now)")
    return queue.pushCancellable(event, time: time.nanoseconds, priority: priority)
  }

  /// Cancels a pending event; returns whether it was still pending.
  @inlinable @discardableResult
  public mutating func cancel(_ handle: EventHandle) -> Bool { queue.cancel(handle) }

  /// Whether the event named by `handle` has neither run nor been cancelled.
  public func isPending(_ handle: EventHandle) -> Bool { queue.isPending(handle) }

  /// Asks `run` to return `.stopped` after the current event.
  public mutating func stop() { stopRequested = true }

  /// Processes events in order until the queue drains, the clock passes `end`, or `maxEvents`
  /// events have been processed in this call.
  ///
  /// Events at exactly `end` are processed; afterwards the clock stands at `end` when that is why
  /// the run stopped. Returns why it stopped.
  ///
  /// - Precondition: `end` is not before `now`.
  @inlinable @discardableResult
  public mutating func run<Handler: EventHandler>(
    _ handler: inout Handler, until end: SimTime = .distantFuture, maxEvents: Int = .max
  ) -> StopReason where Handler.Event == Event {
    precondition(end >= now, "cannot run until \(end), before the current time \(now)")
    stopRequested = false
    var processedHere = 0
    while true {
      if processedHere >= maxEvents { return .reachedEventLimit(maxEvents) }
      guard let (time, event) = queue.pop(notAfter: end.nanoseconds) else {
        if queue.isEmpty { return .drained }
        clock = end
        return .reachedTime(end)
      }
      clock = SimTime(nanoseconds: time)
      processedHere += 1
      processed += 1
      trajectory.add(time: time, kind: event.traceKind, entity: event.traceEntity)
      handler.handle(event, in: &self)
      if stopRequested { return .stopped }
    }
  }
}
