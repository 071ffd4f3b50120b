import SimKernel

/// A list of request faults, each kept as its concrete type and asked in the list's order
/// (`RequestFaults.Standard`): `Then<Fault, Rest>` is a fault followed by the rest of the list,
/// `End` the end.
///
/// Asked on every request: through `any RequestFault` each call copied the fault out of its box
/// (retaining what it holds, such as a retry-after distribution), about 2 % of a fleet's
/// instructions. A list of types is specialized into direct calls, so the dispatch follows from
/// the list and costs what hand-written calls cost: a new fault is its file and its line there.
/// (A parameter pack, `RequestFaultSet<each Fault>`, said the same in fewer words but cost the
/// 2,000-device peer fleet 10 % more CPU: its loop was not unrolled.)
protocol RequestFaultSet {
  /// The faults of the list that `parameters` turn on.
  init(_ parameters: ServerParameters)
  /// The first fault, in order, that applies to `request`, with how the request recovers.
  func answer(_ request: RequestContext, rates: inout ServerRates, random: inout RandomStream) -> RequestFailure?
  /// Appends the faults that are on, in order.
  func appendActive(to list: inout [any RequestFault])
  /// Appends the list's types, on or off, in order.
  static func appendTypes(to list: inout [any RequestFault.Type])
}

extension RequestFaultSet {
  /// The faults that are on, in the order `answer` asks them (what a run's `errors.*` columns
  /// are read from).
  var active: [any RequestFault] {
    var list: [any RequestFault] = []
    appendActive(to: &list)
    return list
  }

  /// The list's types, on or off, in order.
  static var types: [any RequestFault.Type] {
    var list: [any RequestFault.Type] = []
    appendTypes(to: &list)
    return list
  }
}

enum RequestFaultList {
  /// `Fault`, then the faults of `Rest`.
  struct Then<Fault: RequestFault, Rest: RequestFaultSet>: RequestFaultSet {
    let fault: Fault?
    let rest: Rest

    init(_ parameters: ServerParameters) {
      fault = Fault(server: parameters)
      rest = Rest(parameters)
    }

    @inline(__always)
    func answer(_ request: RequestContext, rates: inout ServerRates, random: inout RandomStream) -> RequestFailure? {
      if let fault, let answer = RequestFaultList.ask(fault, request, &rates, &random) { return answer }
      return rest.answer(request, rates: &rates, random: &random)
    }

    func appendActive(to list: inout [any RequestFault]) {
      if let fault { list.append(fault) }
      rest.appendActive(to: &list)
    }

    static func appendTypes(to list: inout [any RequestFault.Type]) {
      list.append(Fault.self)
      Rest.appendTypes(to: &list)
    }
  }

  /// The end of a list.
  struct End: RequestFaultSet {
    init(_ parameters: ServerParameters) {}

    @inline(__always)
    func answer(_ request: RequestContext, rates: inout ServerRates, random: inout RandomStream) -> RequestFailure? {
      nil
    }

    func appendActive(to list: inout [any RequestFault]) {}
    static func appendTypes(to list: inout [any RequestFault.Type]) {}
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
      error: fault.error, waitCause: fault.waitCause, reaction: recovery.reaction, retryAfter: recovery.retryAfter,
      attempt: request.attempt)
  }
}
