import SimKernel

/// A transient network failure (`cloud.networkFailureProbability`): retried at once the first
/// time, then with exponential back-off up to a cap. [A] CKError.h
struct NetworkFailureFault: RequestFault {
  let probability: Double
  let backoffSeconds: Double
  let backoffCapSeconds: Double

  init?(server: ServerParameters) {
    guard server.networkFailureProbability > 0 else { return nil }
    probability = server.networkFailureProbability
    backoffSeconds = server.networkRetryBackoff.seconds
    backoffCapSeconds = server.networkRetryBackoffCap.seconds
  }

  var error: CloudError { .networkFailure }
  var waitCause: WaitCause { .networkBackoff }
  var countsAttempts: Bool { true }

  func applies(to request: RequestContext, rates: inout ServerRates, random: inout RandomStream) -> Bool {
    random.bernoulli(probability)
  }

  func recovery(
    for request: RequestContext, rates: inout ServerRates, random: inout RandomStream
  ) -> (reaction: ClientReaction, retryAfter: SimDuration?) {
    let attempt = request.attempt
    let backoff = attempt <= 1 ? 0 : Backoff.doubled(backoffSeconds, doublings: attempt - 2, cap: backoffCapSeconds)
    return (.retry(at: request.now + SimDuration(seconds: backoff)), nil)
  }
}
