import SimKernel

/// The client's side of a request the server answers: the request as the server sees it (its
/// activity's attempts so far), the server's answer through its port (`CloudServer.answer`),
/// and the attempts carried on or reset.
extension ClientHost {
  /// The answer to a request that completes now: the server's (`CloudServer.answer`), reported
  /// with its error, or accepted.
  mutating func generalVerdict(_ activity: ActivityID, at now: SimTime) -> RequestVerdict {
    let store = scheduler.activities[activity.index].store
    let device = owner(of: store).index
    let request = RequestContext(
      activity: activity, kind: scheduler.activities[activity.index].kind, client: clients.stores[store.index].client,
      device: device, now: now, online: devices[device].online,
      attempt: clients.runs[activity.index].attempt)
    // A stalled store's request still on the wire (another activity's) gets the stall's answer:
    // the account is unavailable until the stated time, for every request.
    var stalled = stallOf(store, at: now)?.failure
    stalled?.attempt = request.attempt
    if let answer = stalled ?? answer(request, from: DeviceID(device)) {
      clients.runs[activity.index].attempt = answer.attempt
      report { $0.observe(.cloudError(store: store, error: answer.error, retryAfter: answer.retryAfter, at: now)) }
      return .faulted(answer)
    }
    clients.runs[activity.index].attempt = 0
    return .accepted
  }
}
