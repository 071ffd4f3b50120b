import SimKernel

/// The account is temporarily unavailable (`cloud.accountUnavailableProbability`): the activity
/// ends and the store stalls, asking for nothing, export or import, for
/// `cloud.accountUnavailableFor`. [A] CKError.h accountTemporarilyUnavailable (36): "Don't delete
/// any cached data and don't enqueue any additional CloudKit operations"
struct AccountUnavailableFault: RequestFault {
  let probability: Double
  let stall: Distribution

  init?(server: ServerParameters) {
    guard server.accountUnavailableProbability > 0 else { return nil }
    probability = server.accountUnavailableProbability
    stall = server.accountUnavailableFor
  }

  var error: CloudError { .accountTemporarilyUnavailable }
  var waitCause: WaitCause { .accountUnavailable }

  func applies(to request: RequestContext, rates: inout ServerRates, random: inout RandomStream) -> Bool {
    random.bernoulli(probability)
  }

  func recovery(
    for request: RequestContext, rates: inout ServerRates, random: inout RandomStream
  ) -> (reaction: ClientReaction, retryAfter: SimDuration?) {
    (.stall(until: request.now + stall.sampleDuration(using: &random)), nil)
  }
}
