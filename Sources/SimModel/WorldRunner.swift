import SimKernel

/// What a finished run reports beside its observations.
public struct RunOutcome: Sendable {
  public var stopReason: StopReason
  public var endTime: SimTime
  public var processedEvents: Int
  public var fingerprint: TrajectoryFingerprint
  public var converged: Bool
  public var memory: MemoryReport
}

extension RunOutcome {
  /// An outcome read back rather than run (`RunProgress`: parts another process finished), its
  /// trajectory's fingerprint `fingerprint` and its memory unmeasured.
  public init(
    stopReason: StopReason, endTime: SimTime, processedEvents: Int, converged: Bool, fingerprint: TrajectoryFingerprint
  ) {
    self.init(
      stopReason: stopReason, endTime: endTime, processedEvents: processedEvents, fingerprint: fingerprint,
      converged: converged, memory: MemoryReport())
  }
}

/// Runs a world from its spec to its duration: the one entry point of the model.
public enum WorldRunner {
  /// Simulates `spec`, sending every observation to `sink`.
  ///
  /// `progress`, when given, is called about a hundred times with the simulated time reached
  /// (running in slices changes nothing: no event is scheduled between slices).
  public static func run(
    _ spec: WorldSpec, sink: any ObservationSink, progress: ((SimTime, SimTime) -> Void)? = nil
  ) -> RunOutcome {
    var sim = Simulation<ModelEvent>()
    var world = World(spec: spec, sink: sink)
    world.start(&sim)
    let end = SimTime(spec.duration)
    var reason = StopReason.drained
    let slices: Int64 = progress == nil ? 1 : 100
    for slice in 1...slices {
      let sliceEnd = slice == slices ? end : SimTime(nanoseconds: end.nanoseconds / slices * slice)
      let budget = spec.maxEvents - sim.processedEventCount
      reason =
        budget > 0
        ? sim.run(&world, until: max(sliceEnd, sim.now), maxEvents: budget) : .reachedEventLimit(spec.maxEvents)
      progress?(sim.now, end)
      if case .reachedEventLimit = reason { break }
    }
    if reason == .drained { reason = .reachedTime(end) }
    let endTime = reason == .reachedTime(end) ? end : sim.now
    world.closeOpenBlockedIntervals(at: endTime)
    world.settleReplayedStores()
    let converged = world.isConverged()
    sink.observe(.finalState(world.finalState()))
    if spec.reportObjects { world.reportObjects() }
    sink.observe(.runEnded(at: endTime, converged: converged))
    return RunOutcome(
      stopReason: reason, endTime: endTime, processedEvents: sim.processedEventCount,
      fingerprint: sim.fingerprint, converged: converged, memory: world.memoryReport())
  }
}
