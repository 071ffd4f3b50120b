import SimKernel

/// What the server (or the network) answers a request that completes now.
enum RequestVerdict {
  case accepted
  /// Send the same request again at this time (network backoff or the container's retry-after).
  case retry(at: SimTime)
  /// The activity fails with this error.
  case failed(CloudError)
}

/// CloudKit requests: throttling, retry-after and network failures shared by export and import
/// (MODEL §6, TN3162, CKError docs).
extension World {
  /// Schedules `completion` for a request that takes `duration` once it may be sent: never before
  /// the container's or the device's retry-after has passed, nor before `notBefore` (a retry's).
  mutating func sendRequest(
    _ completion: ModelEvent, from device: DeviceID, taking duration: SimDuration, notBefore: SimTime = .zero,
    sim: inout Simulation<ModelEvent>
  ) {
    sim.schedule(completion, at: max(notBefore, earliestSend(device, at: sim.now)) + duration)
  }

  /// The earliest time the device may send: after the container's and its own retry-after.
  @inline(__always)
  func earliestSend(_ device: DeviceID, at now: SimTime) -> SimTime {
    max(now, containerBlockedUntil, deviceBlockedUntil.isEmpty ? .zero : deviceBlockedUntil[device.index])
  }

  /// The generic part of every request's answer: network, network failures, the throttle.
  mutating func generalVerdict(_ activity: ActivityID, at now: SimTime) -> RequestVerdict {
    let mirror = activities[activity.index].mirror
    let device = owner(of: mirror).index
    guard devices[device].online else {
      sink.observe(.cloudError(mirror: mirror, error: .networkUnavailable, retryAfter: nil, at: now))
      return .failed(.networkUnavailable)
    }
    let server = spec.server
    if server.networkFailureProbability > 0 && devices[device].streams.network.bernoulli(server.networkFailureProbability) {
      activities[activity.index].attempt += 1
      let attempt = activities[activity.index].attempt
      // Retry at once the first time, then back off exponentially up to the cap. [A] CKError.h
      let backoff = attempt <= 1 ? 0 : min(server.networkRetryBackoffSeconds * Double(1 << min(attempt - 2, 30)), server.networkRetryBackoffCapSeconds)
      sink.observe(.cloudError(mirror: mirror, error: .networkFailure, retryAfter: nil, at: now))
      return .retry(at: now + SimDuration(seconds: backoff))
    }
    if isThrottled(at: now) {
      let retryAfter = server.throttleRetryAfter.sampleDuration(using: &devices[device].streams.network)
      containerBlockedUntil = max(containerBlockedUntil, now + retryAfter)
      sink.observe(.cloudError(mirror: mirror, error: .serviceUnavailable, retryAfter: retryAfter, at: now))
      return .retry(at: containerBlockedUntil)
    }
    if isDeviceThrottled(device, at: now) {
      let retryAfter = server.throttleRetryAfter.sampleDuration(using: &devices[device].streams.network)
      deviceBlockedUntil[device] = max(deviceBlockedUntil[device], now + retryAfter)
      sink.observe(.cloudError(mirror: mirror, error: .requestRateLimited, retryAfter: retryAfter, at: now))
      return .retry(at: deviceBlockedUntil[device])
    }
    if server.zoneBusyProbability > 0 && devices[device].streams.network.bernoulli(server.zoneBusyProbability) {
      activities[activity.index].attempt += 1
      let attempt = activities[activity.index].attempt
      let delay = SimDuration(seconds: server.zoneBusyBackoffSeconds * Double(1 << min(attempt - 1, 30)))
      sink.observe(.cloudError(mirror: mirror, error: .zoneBusy, retryAfter: delay, at: now))
      return .retry(at: now + delay)
    }
    activities[activity.index].attempt = 0
    return .accepted
  }

  /// Counts the request against the device's per-minute rate; true when over it.
  mutating func isDeviceThrottled(_ device: Int, at now: SimTime) -> Bool {
    guard let limit = spec.server.deviceThrottleRequestsPerMinute else { return false }
    let windowStart = now.advanced(by: .seconds(-60))
    deviceRequestTimes[device].removeAll { $0 <= windowStart }
    if Double(deviceRequestTimes[device].count) >= limit { return true }
    deviceRequestTimes[device].append(now)
    return false
  }

  /// Counts the request against the container's per-second rate; true when over it (or forced).
  mutating func isThrottled(at now: SimTime) -> Bool {
    if throttleForced { return true }
    guard let rate = spec.server.throttleRequestsPerSecond else { return false }
    let windowStart = now.advanced(by: .seconds(-1))
    while throttleHead < throttleWindow.count && throttleWindow[throttleHead] <= windowStart { throttleHead += 1 }
    if throttleHead > 1024 && throttleHead * 2 > throttleWindow.count {
      throttleWindow.removeFirst(throttleHead)
      throttleHead = 0
    }
    let inWindow = throttleWindow.count - throttleHead
    if Double(inWindow) >= rate { return true }
    throttleWindow.append(now)
    return false
  }
}
