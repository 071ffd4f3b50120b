import SimKernel

extension World {
  /// Reports the intervals of activities still blocked when the run ends, ending them there.
  mutating func closeOpenBlockedIntervals(at end: SimTime) {
    for index in activities.indices where activities[index].phase == .blocked {
      closeBlockedInterval(ActivityID(index), at: end)
    }
  }

  /// Whether every store equals the server for everything it can access, with nothing pending
  /// (MODEL §10 convergence).
  func isConverged() -> Bool {
    for (index, mirror) in mirrors.enumerated() where mirror.zone >= 0 {
      if !history[index].isEmpty { return false }
      if mirror.pendingExport.raw >= 0 || mirror.runningExport.raw >= 0 || mirror.disabled { return false }
      let zone = Int(mirror.zone)
      let stored = local[index].count
      for field in 0..<Int(zones[zone].fieldCount) where zones[zone].server[field].write != .none || field < stored {
        let write = field < stored ? local[index][field].write : .none
        if write != zones[zone].server[field].write { return false }
      }
    }
    return true
  }
}

/// What a finished run reports beside its observations.
public struct RunOutcome: Sendable {
  public var stopReason: StopReason
  public var endTime: SimTime
  public var processedEvents: Int
  public var fingerprint: TrajectoryFingerprint
  public var converged: Bool
  public var memory: MemoryReport
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
      reason = budget > 0 ? sim.run(&world, until: max(sliceEnd, sim.now), maxEvents: budget) : .reachedEventLimit(spec.maxEvents)
      progress?(sim.now, end)
      if case .reachedEventLimit = reason { break }
    }
    if reason == .drained { reason = .reachedTime(end) }
    let endTime = reason == .reachedTime(end) ? end : sim.now
    world.closeOpenBlockedIntervals(at: endTime)
    let converged = world.isConverged()
    sink.observe(.finalState(world.finalState()))
    sink.observe(.runEnded(at: endTime, converged: converged))
    return RunOutcome(
      stopReason: reason, endTime: endTime, processedEvents: sim.processedEventCount,
      fingerprint: sim.fingerprint, converged: converged, memory: world.memoryReport())
  }
}
