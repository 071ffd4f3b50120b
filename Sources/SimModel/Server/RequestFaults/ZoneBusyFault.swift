import SimKernel

/// The zone is busy (`cloud.zoneBusyProbability`): retried after a back-off that doubles with
/// each attempt, up to `zoneBusyBackoffCap`. [A] CKError.zoneBusy
struct ZoneBusyFault: RequestFault {
  let probability: Double
  let backoffSeconds: Double
  let backoffCapSeconds: Double

  init?(server: ServerParameters) {
    guard server.zoneBusyProbability > 0 else { return nil }
    probability = server.zoneBusyProbability
    backoffSeconds = server.zoneBusyBackoff.seconds
    backoffCapSeconds = server.zoneBusyBackoffCap.seconds
  }

  var error: CloudError { .zoneBusy }
  var waitCause: WaitCause { .zoneBusy }
  var countsAttempts: Bool { true }

  func applies(to request: RequestContext, rates: inout ServerRates, random: inout RandomStream) -> Bool {
    random.bernoulli(probability)
  }

  func recovery(
    for request: RequestContext, rates: inout ServerRates, random: inout RandomStream
  ) -> (reaction: ClientReaction, retryAfter: SimDuration?) {
    let attempt = request.attempt
    let delay = SimDuration(seconds: Backoff.doubled(backoffSeconds, doublings: attempt - 1, cap: backoffCapSeconds))
    return (.retry(at: request.now + delay), delay)
  }
}
