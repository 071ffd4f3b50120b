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
    run(spec, sink: sink, progress: progress, checkpoint: nil)!
  }

  /// A point where a caller may abandon a run: at `time`, `proceed` is asked whether to go on.
  /// The twin's fit looks at a world's first part and drops one that cannot come near the log.
  public struct Checkpoint {
    public var time: SimTime
    public var proceed: () -> Bool
    public init(time: SimTime, proceed: @escaping () -> Bool) {
      self.time = time
      self.proceed = proceed
    }
  }

  /// Simulates `spec` as `run(_:sink:progress:)` does, pausing at `checkpoint` (when inside
  /// the run) to ask whether to go on; nil when told not to, the sink then having seen the run
  /// only up to the checkpoint and no end.
  public static func run(
    _ spec: WorldSpec, sink: any ObservationSink, progress: ((SimTime, SimTime) -> Void)? = nil,
    checkpoint: Checkpoint?
  ) -> RunOutcome? {
    var sim = Simulation<ModelEvent>()
    var world = World(spec: spec, sink: sink)
    world.start(&sim)
    let end = SimTime(spec.duration)
    var reason = StopReason.drained
    let slices: Int64 = progress == nil ? 1 : 100
    var pending = checkpoint.flatMap { $0.time < end ? $0 : nil }
    for slice in 1...slices {
      let sliceEnd = slice == slices ? end : SimTime(nanoseconds: end.nanoseconds / slices * slice)
      // Running in pieces changes nothing: no event is scheduled between them.
      if let stop = pending, stop.time <= sliceEnd {
        pending = nil
        let budget = spec.maxEvents - sim.processedEventCount
        reason =
          budget > 0
          ? sim.run(&world, until: max(stop.time, sim.now), maxEvents: budget) : .reachedEventLimit(spec.maxEvents)
        if case .reachedEventLimit = reason { break }
        guard stop.proceed() else { return nil }
      }
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
