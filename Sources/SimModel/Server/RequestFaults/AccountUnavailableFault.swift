import SimKernel

/// The account is temporarily unavailable (`cloud.accountUnavailableProbability`): the activity
/// ends and the store stalls, asking for nothing, export or import, for
/// `cloud.accountUnavailableFor`. [A] CKError.h accountTemporarilyUnavailable (36): "Don't delete
/// any cached data and don't enqueue any additional CloudKit operations"
struct AccountUnavailableFault: RequestFault {
  static let probability = FaultKnob(
    "accountUnavailableProbability", .probability, source: "[A] CKError.h accountTemporarilyUnavailable; [assumed] 0",
    meaning: "probability that a request answers accountTemporarilyUnavailable: the activity ends and the store "
      + "asks for nothing, export or import, for cloud.accountUnavailableFor (wait cause accountUnavailable)",
    swarm: (0.2, 0.005, 0.05))
  static let duration = FaultKnob(
    "accountUnavailableFor", .distribution(default: .constant(600), text: #""10m""#),
    source: "[assumed] Apple states no duration",
    meaning: "how long a store stalls after accountTemporarilyUnavailable",
    needs: "accountUnavailableProbability")
  static var knobs: [FaultKnob] { [probability, duration] }

  let probability: Double
  let stall: Distribution

  init?(server: ServerParameters) {
    probability = server.faultKnobs.probability(Self.probability)
    guard probability > 0 else { return nil }
    stall = server.faultKnobs.distribution(Self.duration)
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
