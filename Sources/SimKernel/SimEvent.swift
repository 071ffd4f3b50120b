/// What the kernel needs to know of a model's events: that they are flat values, and how each one
/// contributes to the trajectory fingerprint.
///
/// `BitwiseCopyable` keeps closures and class references out of the queue.
public protocol SimEvent: BitwiseCopyable {
  /// A small number naming the kind of event (stable across releases for fingerprints to compare).
  var traceKind: UInt32 { get }
  /// The entity the event concerns (a device, an activity, ...), as a number.
  var traceEntity: UInt32 { get }
}

/// Receives events from `Simulation.run` and may schedule or cancel others while handling them.
public protocol EventHandler<Event> {
  associatedtype Event: SimEvent
  /// Handles one event at `simulation.now`.
  mutating func handle(_ event: Event, in simulation: inout Simulation<Event>)
}
