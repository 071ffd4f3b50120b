import SimKernel

/// What the CloudKit server remembers about request rates: the container's throttle and each
/// device's own (spec §6).
struct ServerRates {
  /// Per device: no request before this time, the retry-after the container's throttle stated in
  /// the device's last serviceUnavailable answer. A device learns it only from its own answer:
  /// the others send, and learn it when they are answered. [A] TN3162
  var containerBlockedUntil: [SimTime] = []
  /// With `ServerParameters.retryAfterHoldsContainer`: no request of any device before this time.
  var containerWideBlockedUntil = SimTime.zero
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
    max(
      now, containerBlockedUntil[device], containerWideBlockedUntil,
      deviceBlockedUntil.isEmpty ? .zero : deviceBlockedUntil[device])
  }
}
