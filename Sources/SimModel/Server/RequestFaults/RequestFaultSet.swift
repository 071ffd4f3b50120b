import SimKernel

/// The request faults a server's parameters turn on, each kept as its concrete type and asked in
/// `RequestFaults.all`'s order.
///
/// Asked on every request: through `any RequestFault` each call copied the fault out of its box
/// (retaining what it holds, such as a retry-after distribution), about 2 % of a fleet's
/// instructions; here each is called directly. A new fault is a line in `RequestFaults.all` and
/// a stored property and a line in `answer` here.
struct RequestFaultSet {
  let networkUnavailable: NetworkUnavailableFault?
  let networkFailure: NetworkFailureFault?
  let containerThrottle: ContainerThrottleFault?
  let deviceThrottle: DeviceThrottleFault?
  let zoneBusy: ZoneBusyFault?

  init(_ parameters: ServerParameters) {
    networkUnavailable = NetworkUnavailableFault(server: parameters)
    networkFailure = NetworkFailureFault(server: parameters)
    containerThrottle = ContainerThrottleFault(server: parameters)
    deviceThrottle = DeviceThrottleFault(server: parameters)
    zoneBusy = ZoneBusyFault(server: parameters)
  }

  /// The faults that are on, in the order `answer` asks them (what a run's `errors.*` columns
  /// are read from).
  var active: [any RequestFault] {
    let faults: [(any RequestFault)?] = [
      networkUnavailable, networkFailure, containerThrottle, deviceThrottle, zoneBusy,
    ]
    return faults.compactMap { $0 }
  }

  /// The first fault, in order, that applies to `request`, with how the request recovers.
  @inline(__always)
  func answer(_ request: RequestContext, rates: inout ServerRates, random: inout RandomStream) -> RequestFailure? {
    if let fault = networkUnavailable, let answer = Self.ask(fault, request, &rates, &random) { return answer }
    if let fault = networkFailure, let answer = Self.ask(fault, request, &rates, &random) { return answer }
    if let fault = containerThrottle, let answer = Self.ask(fault, request, &rates, &random) { return answer }
    if let fault = deviceThrottle, let answer = Self.ask(fault, request, &rates, &random) { return answer }
    if let fault = zoneBusy, let answer = Self.ask(fault, request, &rates, &random) { return answer }
    return nil
  }

  /// One fault's answer to `request`, or nil when it does not apply.
  @inline(__always)
  static func ask<Fault: RequestFault>(
    _ fault: Fault, _ request: RequestContext, _ rates: inout ServerRates, _ random: inout RandomStream
  ) -> RequestFailure? {
    guard fault.applies(to: request, rates: &rates, random: &random) else { return nil }
    var request = request
    if fault.countsAttempts { request.attempt += 1 }
    let recovery = fault.recovery(for: request, rates: &rates, random: &random)
    return RequestFailure(
      error: fault.error, waitCause: fault.waitCause, retryAt: recovery.retryAt, retryAfter: recovery.retryAfter,
      attempt: request.attempt)
  }
}
