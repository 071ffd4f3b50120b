import SimKernel

/// The zone is not on the server (`cloud.zoneNotFoundProbability`): the activity ends and the
/// store resets, as Core Data's mirroring delegate does for a deleted zone, fetching the whole
/// zone from an empty token and exporting its unsent changes after. [A] CKError.h zoneNotFound
/// (26); [RE] NSCloudKitMirroringDelegateResetSyncReasonKey 5, ZoneDeleted
struct ZoneNotFoundFault: RequestFault {
  let probability: Double

  init?(server: ServerParameters) {
    guard server.zoneNotFoundProbability > 0 else { return nil }
    probability = server.zoneNotFoundProbability
  }

  var error: CloudError { .zoneNotFound }
  /// Never waited for: a reset fetches again at once.
  var waitCause: WaitCause { .networkBackoff }

  func applies(to request: RequestContext, rates: inout ServerRates, random: inout RandomStream) -> Bool {
    random.bernoulli(probability)
  }

  func recovery(
    for request: RequestContext, rates: inout ServerRates, random: inout RandomStream
  ) -> (reaction: ClientReaction, retryAfter: SimDuration?) {
    (.reset(.zoneDeleted), nil)
  }
}
