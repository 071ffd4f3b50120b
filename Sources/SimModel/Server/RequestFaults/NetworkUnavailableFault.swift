import SimKernel

/// The device is offline: the activity fails, and a new one waits on the Network policy. [A]
struct NetworkUnavailableFault: RequestFault {
  init?(server: ServerParameters) {}
  var error: CloudError { .networkUnavailable }
  /// Never a retry: the activity fails and a new one waits on the Network policy.
  var waitCause: WaitCause { .networkBackoff }

  func applies(to request: RequestContext, rates: inout ServerRates, random: inout RandomStream) -> Bool {
    !request.online
  }

  func recovery(
    for request: RequestContext, rates: inout ServerRates, random: inout RandomStream
  ) -> (reaction: ClientReaction, retryAfter: SimDuration?) {
    (.fail, nil)
  }
}
