import SimKernel

/// The zone is not on the server (`cloud.zoneNotFoundProbability`): the activity ends and the
/// store resets, as Core Data's mirroring delegate does for a deleted zone, fetching the whole
/// zone from an empty token and exporting its unsent changes after. [A] CKError.h zoneNotFound
/// (26); [RE] NSCloudKitMirroringDelegateResetSyncReasonKey 5, ZoneDeleted
///
/// A CKSyncEngine app's send that gets it saves the zone again and sends the records again
/// (`ClientReaction.recreateZone`), as Apple's sample does; its fetch resets, as the sample wipes
/// a zone the server deleted. [A] sample-cloudkit-sync-engine, SyncedDatabase.swift
struct ZoneNotFoundFault: RequestFault {
  static let probability = FaultKnob(
    "zoneNotFoundProbability", .probability,
    source: "[A] CKError.h zoneNotFound; [RE] reset reason ZoneDeleted; [assumed] 0",
    meaning: "probability that a request answers zoneNotFound: the activity ends and the store resets (it fetches "
      + "the whole zone from an empty token, and exports its unsent changes after); a CKSyncEngine send saves the "
      + "zone again and sends its changes again",
    swarm: (0.2, 0.002, 0.03))
  static var knobs: [FaultKnob] { [probability] }

  let probability: Double

  init?(server: ServerParameters) {
    probability = server.faultKnobs.probability(Self.probability)
    guard probability > 0 else { return nil }
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
    if request.client == .syncEngine && request.kind == .export { return (.recreateZone, nil) }
    return (.reset(.zoneDeleted), nil)
  }
}
