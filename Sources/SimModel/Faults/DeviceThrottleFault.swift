import SimKernel

/// A device over its own request rate (`cloud.deviceThrottleRequestsPerMinute`): the server
/// answers requestRateLimited with a retry-after for that device. [A] CKError docs
struct DeviceThrottleFault: RequestFault {
  let requestsPerMinute: Double
  let retryAfter: Distribution

  init?(server: ServerParameters) {
    guard let limit = server.deviceThrottleRequestsPerMinute else { return nil }
    requestsPerMinute = limit
    retryAfter = server.deviceThrottleRetryAfter
  }

  var error: CloudError { .requestRateLimited }
  var waitCause: WaitCause { .deviceThrottle }

  /// Counts the request against the device's per-minute rate; true when over it.
  func applies(to request: RequestContext, in world: inout World) -> Bool {
    let windowStart = request.now.advanced(by: .seconds(-60))
    world.serverState.deviceRequestTimes[request.device].removeAll { $0 <= windowStart }
    if Double(world.serverState.deviceRequestTimes[request.device].count) >= requestsPerMinute { return true }
    world.serverState.deviceRequestTimes[request.device].append(request.now)
    return false
  }

  func recovery(for request: RequestContext, in world: inout World) -> (retryAt: SimTime?, retryAfter: SimDuration?) {
    let wait = retryAfter.sampleDuration(using: &world.devices[request.device].streams.network)
    let until = max(world.serverState.deviceBlockedUntil[request.device], request.now + wait)
    world.serverState.deviceBlockedUntil[request.device] = until
    return (until, wait)
  }
}
