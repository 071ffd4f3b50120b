import SimKernel

/// CloudKit requests shared by export and import: when they may be sent (the server's answer
/// is the client's to ask for: `Client/ClientHost+RequestAnswers`; the failure modes are in
/// `RequestFaults/`; spec §6, TN3162, CKError docs).
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
    server.rates.earliestSend(device.index, at: now)
  }
}
