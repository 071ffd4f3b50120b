import SimKernel

/// The container's request rate (`cloud.throttle`) or a timeline `throttle`: the server answers
/// serviceUnavailable with a retry-after, and no request of the container goes out before it.
/// [A] TN3162
struct ContainerThrottleFault: RequestFault {
  let requestsPerSecond: Double?
  let retryAfter: Distribution
  let holdsContainer: Bool
  let backoffCap: SimDuration?

  init?(server: ServerParameters) {
    // Always asked: a timeline action may force the throttle on.
    requestsPerSecond = server.throttleRequestsPerSecond
    retryAfter = server.throttleRetryAfter
    holdsContainer = server.retryAfterHoldsContainer
    backoffCap = server.throttleBackoffCap
  }

  var error: CloudError { .serviceUnavailable }
  var waitCause: WaitCause { .serverThrottle }
  var countsAttempts: Bool { backoffCap != nil }

  /// Counts the request against the container's per-second rate; true when over it (or forced).
  func applies(to request: RequestContext, rates: inout ServerRates, random: inout RandomStream) -> Bool {
    if rates.throttleForced { return true }
    guard let rate = requestsPerSecond else { return false }
    let windowStart = request.now.advanced(by: .seconds(-1))
    while rates.throttleHead < rates.throttleWindow.count
      && rates.throttleWindow[rates.throttleHead] <= windowStart
    {
      rates.throttleHead += 1
    }
    let head = rates.throttleHead
    if head > 1024 && head * 2 > rates.throttleWindow.count {
      rates.throttleWindow.removeFirst(head)
      rates.throttleHead = 0
    }
    let inWindow = rates.throttleWindow.count - rates.throttleHead
    if Double(inWindow) >= rate { return true }
    rates.throttleWindow.append(request.now)
    return false
  }

  func recovery(
    for request: RequestContext, rates: inout ServerRates, random: inout RandomStream
  ) -> (reaction: ClientReaction, retryAfter: SimDuration?) {
    let wait = retryAfter.sampleDuration(using: &random)
    let until = max(rates.containerBlockedUntil[request.device], request.now + wait)
    rates.containerBlockedUntil[request.device] = until
    let own = Backoff.throttleRetryAt(after: wait, attempt: request.attempt, cap: backoffCap, now: request.now)
    if holdsContainer {
      rates.containerWideBlockedUntil = max(rates.containerWideBlockedUntil, until)
      return (.retry(at: max(rates.containerWideBlockedUntil, own)), wait)
    }
    return (.retry(at: max(until, own)), wait)
  }
}
