import SimKernel

/// What the CloudKit server remembers about request rates: the container's throttle and each
/// device's own (MODEL §6).
struct ServerState {
  /// No request of the container's apps before this time (the container's retry-after).
  var containerBlockedUntil = SimTime.zero
  /// The container's recent request times, after `throttleHead` forgotten ones.
  var throttleWindow: [SimTime] = []
  var throttleHead = 0
  /// A timeline `throttle` action is in force: every request is throttled.
  var throttleForced = false
  /// Per device (only with a device throttle): its own retry-after and recent request times.
  var deviceBlockedUntil: [SimTime] = []
  var deviceRequestTimes: [[SimTime]] = []

  /// The earliest time `device` may send: after the container's and its own retry-after.
  @inline(__always)
  func earliestSend(_ device: Int, at now: SimTime) -> SimTime {
    max(now, containerBlockedUntil, deviceBlockedUntil.isEmpty ? .zero : deviceBlockedUntil[device])
  }
}
