import SimKernel

/// The device is offline: the activity fails, and a new one waits on the Network policy. [A]
struct NetworkUnavailableFault: RequestFault {
  init?(server: ServerParameters) {}
  var error: CloudError { .networkUnavailable }
  /// Never a retry: the activity fails and a new one waits on the Network policy.
  var waitCause: WaitCause { .networkBackoff }

  func applies(to request: RequestContext, in world: inout World) -> Bool {
    !world.devices[request.device].online
  }

  func recovery(for request: RequestContext, in world: inout World) -> (retryAt: SimTime?, retryAfter: SimDuration?) {
    (nil, nil)
  }
}
