import SimKernel

/// A device over its own request rate (`cloud.deviceThrottleRequestsPerMinute`): the server
/// answers requestRateLimited with a retry-after for that device. [A] CKError docs
struct DeviceThrottleFault: RequestFault {
  let requestsPerMinute: Double
  let retryAfter: Distribution
  let backoffCap: SimDuration?

  init?(server: ServerParameters) {
    guard let limit = server.deviceThrottleRequestsPerMinute else { return nil }
    requestsPerMinute = limit
    retryAfter = server.deviceThrottleRetryAfter
    backoffCap = server.throttleBackoffCap
  }

  var error: CloudError { .requestRateLimited }
  var waitCause: WaitCause { .deviceThrottle }
  var countsAttempts: Bool { backoffCap != nil }

  /// Counts the request against the device's per-minute rate; true when over it.
  func applies(to request: RequestContext, rates: inout ServerRates, random: inout RandomStream) -> Bool {
    let windowStart = request.now.advanced(by: .seconds(-60))
    rates.deviceRequestTimes[request.device].removeAll { $0 <= windowStart }
    if Double(rates.deviceRequestTimes[request.device].count) >= requestsPerMinute { return true }
    rates.deviceRequestTimes[request.device].append(request.now)
    return false
  }

  func recovery(
    for request: RequestContext, rates: inout ServerRates, random: inout RandomStream
  ) -> (reaction: ClientReaction, retryAfter: SimDuration?) {
    let wait = retryAfter.sampleDuration(using: &random)
    let until = max(rates.deviceBlockedUntil[request.device], request.now + wait)
    rates.deviceBlockedUntil[request.device] = until
    let own = Backoff.throttleRetryAt(after: wait, attempt: request.attempt, cap: backoffCap, now: request.now)
    return (.retry(at: max(until, own)), wait)
  }
}
