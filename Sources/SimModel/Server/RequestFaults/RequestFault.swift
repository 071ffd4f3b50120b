import SimKernel

/// One way a CloudKit request can fail (spec §6, TN3162, CKError docs): when it applies, what
/// it answers, and how the request recovers.
///
/// Faults are asked in `RequestFaults.all`'s order when a request completes; the first that
/// applies answers it. A new failure mode is one file and one line in that list. A fault sees the
/// request, the server's memory of request rates and the request's random stream (the device's
/// network stream), never the world.
protocol RequestFault: Sendable {
  /// The fault for `server`'s parameters, or nil when they turn it off (it is then never asked).
  init?(server: ServerParameters)
  /// The error it reports.
  var error: CloudError { get }
  /// What a retry's wait is attributed to.
  var waitCause: WaitCause { get }
  /// The settings it declares for itself (`FaultKnob`: keys under `cloud`), read from
  /// `ServerParameters.faultKnobs`; none by default (older faults' settings are fields of
  /// `ServerParameters` with rows in `ParameterTable`).
  static var knobs: [FaultKnob] { get }
  /// Whether a hit counts one more failed attempt of the request (`RequestContext.attempt`),
  /// for a back-off that grows with attempts. False by default.
  var countsAttempts: Bool { get }
  /// Whether it hits `request` now. May draw from `random` or count the request against a rate
  /// in `rates`, as the server would.
  func applies(to request: RequestContext, rates: inout ServerRates, random: inout RandomStream) -> Bool
  /// How the client reacts (a retry at a time, a failure, a reset, a stall: `ClientReaction`,
  /// which every activity machine handles the same way), and the retry-after the server states,
  /// if any (reported with the error).
  func recovery(
    for request: RequestContext, rates: inout ServerRates, random: inout RandomStream
  ) -> (reaction: ClientReaction, retryAfter: SimDuration?)
}

extension RequestFault {
  var countsAttempts: Bool { false }
  static var knobs: [FaultKnob] { [] }
}

/// The request being answered.
struct RequestContext {
  var activity: ActivityID
  /// What the request carries: an export's batch (or its zone save) or an import's page.
  var kind: ActivityKind
  /// The sync client that sent it: a fault may declare another reaction for each.
  var client: SyncClient
  var device: Int
  var now: SimTime
  /// Whether the device is online.
  var online: Bool
  /// The request's failed attempts so far, this one included once a fault that counts attempts
  /// has hit it (an accepted request starts again from 0).
  var attempt: Int
}

/// The registered failure modes, in the order the server and network apply them.
public enum RequestFaults {
  /// The list: a new failure mode is one line here (and its file). The server asks them as this
  /// type (`RequestFaultSet`), each directly. Kept one fault a line (swift-format leaves it).
  // swift-format-ignore
  typealias Standard =
    RequestFaultList.Then<NetworkUnavailableFault,
    RequestFaultList.Then<NetworkFailureFault,
    RequestFaultList.Then<ContainerThrottleFault,
    RequestFaultList.Then<DeviceThrottleFault,
    RequestFaultList.Then<ZoneBusyFault,
    RequestFaultList.Then<ZoneNotFoundFault,
    RequestFaultList.Then<AccountUnavailableFault,
    RequestFaultList.End>>>>>>>

  /// Every registered fault's type, in order.
  static var all: [any RequestFault.Type] { Standard.types }

  /// The settings the faults declare for themselves, in the list's order.
  public static let knobs: [FaultKnob] = all.flatMap { $0.knobs }

  /// The errors a run with `server`'s parameters reports: those always reported, and those of
  /// the faults it turns on, in `CloudError`'s order.
  static func reportedErrors(for server: ServerParameters) -> [CloudError] {
    let raised = active(for: server).map(\.error)
    return CloudError.allCases.filter { CloudError.alwaysReported.contains($0) || raised.contains($0) }
  }

  /// The faults `server`'s parameters turn on, in order: the ones `RequestFaultSet` asks.
  static func active(for server: ServerParameters) -> [any RequestFault] {
    Standard(server).active
  }
}
