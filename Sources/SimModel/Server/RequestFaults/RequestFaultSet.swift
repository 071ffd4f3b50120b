import SimKernel

/// The request faults a server's parameters turn on, each kept as its concrete type and asked in
/// the order of the list they are declared in (`RequestFaults.Standard`).
///
/// Asked on every request: through `any RequestFault` each call copied the fault out of its box
/// (retaining what it holds, such as a retry-after distribution), about 2 % of a fleet's
/// instructions. Here the faults are a parameter pack, stored and asked as their own types, so
/// the dispatch follows from the list: a new fault is its file and its line there.
struct RequestFaultSet<each Fault: RequestFault> {
  let faults: (repeat (each Fault)?)

  init(_ parameters: ServerParameters) {
    faults = (repeat (each Fault)(server: parameters))
  }

  /// The faults that are on, in the order `answer` asks them (what a run's `errors.*` columns
  /// are read from).
  var active: [any RequestFault] {
    var active: [any RequestFault] = []
    for fault in repeat each faults {
      if let fault { active.append(fault) }
    }
    return active
  }

  /// The types of the list, on or off, in order.
  static var types: [any RequestFault.Type] {
    var types: [any RequestFault.Type] = []
    for type in repeat (each Fault).self { types.append(type) }
    return types
  }

  /// The first fault, in order, that applies to `request`, with how the request recovers.
  @inline(__always)
  func answer(_ request: RequestContext, rates: inout ServerRates, random: inout RandomStream) -> RequestFailure? {
    for fault in repeat each faults {
      if let fault, let answer = Self.ask(fault, request, &rates, &random) { return answer }
    }
    return nil
  }

  /// One fault's answer to `request`, or nil when it does not apply.
  @inline(__always)
  static func ask<One: RequestFault>(
    _ fault: One, _ request: RequestContext, _ rates: inout ServerRates, _ random: inout RandomStream
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
