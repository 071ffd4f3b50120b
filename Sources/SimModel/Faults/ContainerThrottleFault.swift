import SimKernel

/// The container's request rate (`cloud.throttle`) or a timeline `throttle`: the server answers
/// serviceUnavailable with a retry-after, and no request of the container goes out before it.
/// [A] TN3162
struct ContainerThrottleFault: RequestFault {
  let requestsPerSecond: Double?
  let retryAfter: Distribution
  let holdsContainer: Bool

  init?(server: ServerParameters) {
    // Always asked: a timeline action may force the throttle on.
    requestsPerSecond = server.throttleRequestsPerSecond
    retryAfter = server.throttleRetryAfter
    holdsContainer = server.retryAfterHoldsContainer
  }

  var error: CloudError { .serviceUnavailable }
  var waitCause: WaitCause { .serverThrottle }

  /// Counts the request against the container's per-second rate; true when over it (or forced).
  func applies(to request: RequestContext, in world: inout World) -> Bool {
    if world.serverState.throttleForced { return true }
    guard let rate = requestsPerSecond else { return false }
    let windowStart = request.now.advanced(by: .seconds(-1))
    while world.serverState.throttleHead < world.serverState.throttleWindow.count
      && world.serverState.throttleWindow[world.serverState.throttleHead] <= windowStart
    {
      world.serverState.throttleHead += 1
    }
    let head = world.serverState.throttleHead
    if head > 1024 && head * 2 > world.serverState.throttleWindow.count {
      world.serverState.throttleWindow.removeFirst(head)
      world.serverState.throttleHead = 0
    }
    let inWindow = world.serverState.throttleWindow.count - world.serverState.throttleHead
    if Double(inWindow) >= rate { return true }
    world.serverState.throttleWindow.append(request.now)
    return false
  }

  func recovery(for request: RequestContext, in world: inout World) -> (retryAt: SimTime?, retryAfter: SimDuration?) {
    let wait = retryAfter.sampleDuration(using: &world.devices[request.device].streams.network)
    let until = max(world.serverState.containerBlockedUntil[request.device], request.now + wait)
    world.serverState.containerBlockedUntil[request.device] = until
    if holdsContainer {
      world.serverState.containerWideBlockedUntil = max(world.serverState.containerWideBlockedUntil, until)
      return (world.serverState.containerWideBlockedUntil, wait)
    }
    return (until, wait)
  }
}
