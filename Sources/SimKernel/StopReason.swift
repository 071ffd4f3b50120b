/// Why `Simulation.run` returned.
public enum StopReason: Equatable, Sendable {
  /// No events were left in the queue.
  case drained
  /// The clock reached the requested end time; later events stay queued.
  case reachedTime(SimTime)
  /// The event-count ceiling was hit (a guard against zero-delay loops).
  case reachedEventLimit(Int)
  /// A handler asked the run to stop.
  case stopped
}
