import SimKernel

/// What the server (or the network) answers a request that completes now.
enum RequestVerdict {
  case accepted
  /// Send the request again at this time: in place when `cause` is nil (a split batch, a merged
  /// record), else as a new activity that waits for `cause` until then (a retry-after, a back-off).
  case retry(at: SimTime, cause: WaitCause?)
  /// The activity fails with this error.
  case failed(CloudError)
}

/// CloudKit requests shared by export and import: when they may be sent, and how the server
/// answers them (the failure modes are in `Faults/`; spec §6, TN3162, CKError docs).
extension World {
  /// Schedules `completion` for a request of `activity` that takes `duration` once it may be
  /// sent: never before the container's or the device's retry-after has passed, nor before
  /// `notBefore` (a retry's); while the app is suspended, not before it wakes.
  mutating func sendRequest(
    _ completion: ModelEvent, for activity: ActivityID, from device: DeviceID, taking duration: SimDuration,
    notBefore: SimTime = .zero, sim: inout Simulation<ModelEvent>
  ) {
    guard processRuns(device) else {
      park(
        ParkedRequest(
          completion: completion, activity: activity, duration: duration, notBefore: notBefore, since: sim.now,
          isStart: false),
        device: device)
      return
    }
    sim.schedule(completion, at: max(notBefore, earliestSend(device, at: sim.now)) + duration)
  }

  /// The earliest time the device may send: after the container's and its own retry-after.
  @inline(__always)
  func earliestSend(_ device: DeviceID, at now: SimTime) -> SimTime {
    serverState.earliestSend(device.index, at: now)
  }

  /// The answer to a request that completes now: the first registered fault that applies
  /// (`RequestFaults`), reported with its error, or accepted.
  mutating func generalVerdict(_ activity: ActivityID, at now: SimTime) -> RequestVerdict {
    let store = activities[activity.index].store
    let request = RequestContext(activity: activity, device: owner(of: store).index, now: now)
    for fault in faults where fault.applies(to: request, in: &self) {
      let recovery = fault.recovery(for: request, in: &self)
      sink.observe(.cloudError(store: store, error: fault.error, retryAfter: recovery.retryAfter, at: now))
      return recovery.retryAt.map { .retry(at: $0, cause: fault.waitCause) } ?? .failed(fault.error)
    }
    activities[activity.index].attempt = 0
    return .accepted
  }

  /// Counts one more failed attempt of the activity's current request; returns the count (the
  /// faults' back-offs grow with it, and an accepted request resets it).
  mutating func countAttempt(_ activity: ActivityID) -> Int {
    activities[activity.index].attempt += 1
    return activities[activity.index].attempt
  }
}
