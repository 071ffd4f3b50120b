import SimKernel

/// The CloudKit server: the zones' server side, the accounts' quotas, the request rates it
/// remembers and the failure modes it answers with (spec §6, §7).
///
/// The sync clients reach it through requests: `answer(_:random:)` for the failures every
/// request can meet, and `answerModify(_:records:random:)` for the per-record outcomes of a modify
/// request. Faults see the request, the server's own state and the request's random stream,
/// never the rest of the world.
struct CloudServer {
  /// The server's parameters.
  let parameters: ServerParameters
  /// Per zone: its records' server fields, change log and sharing (`ZoneState`).
  let zones = Column<ZoneState>()
  /// Every zone's stores with access, zone by zone (see `ZoneState.storeStart`).
  var zoneStores: [StoreID] = []
  /// Per account: its devices, and its bytes stored against its quota.
  var accounts: [AccountState] = []
  /// Server fields that received increments: (zone, field), in first-increment order.
  var counterFields: [(zone: Int32, field: Int32)] = []
  /// Queries per public-database poll: one per record type, plus one for CDMR join records.
  var publicQueriesPerPoll = 1
  /// Per entity: a record's bytes, its assets' bytes, and its fields (existence field included).
  var recordBytesByEntity: [Int64] = []
  var assetBytesByEntity: [Int64] = []
  var entityFieldCount: [Int] = []
  /// What the server remembers of request rates (throttles and retry-afters).
  var rates = ServerRates()
  /// The request faults the parameters turn on, in the order they are asked.
  let requestFaults: RequestFaults.Standard
  /// Request faults asked after the standard ones (`WorldSpec.extraRequestFaults`); usually none.
  let extraRequestFaults: [any RequestFault]
  /// The record faults, in the order they are asked, after the request faults.
  let recordFaults: RecordFaultSet
  /// Whether a throttle can answer with a retry-after (a rate, a device limit or a timeline action).
  let retryAftersPossible: Bool

  init(
    parameters: ServerParameters, forcedThrottlePossible: Bool, extraRecordFaults: [any RecordFault] = [],
    extraRequestFaults: [any RequestFault] = []
  ) {
    self.parameters = parameters
    requestFaults = RequestFaults.Standard(parameters)
    self.extraRequestFaults = extraRequestFaults
    recordFaults = RecordFaultSet(extra: extraRecordFaults)
    retryAftersPossible =
      parameters.throttleRequestsPerSecond != nil || parameters.deviceThrottleRequestsPerMinute != nil
      || forcedThrottlePossible
  }

  /// Adds the next device to the server's books: no retry-after yet, no recent requests.
  mutating func addDevice() {
    rates.containerBlockedUntil.append(.zero)
    if parameters.deviceThrottleRequestsPerMinute != nil {
      rates.deviceBlockedUntil.append(.zero)
      rates.deviceRequestTimes.append([])
    }
  }

  /// How the server answers a request that fails: the first request fault, in order, that
  /// applies, with how the request recovers; nil when every fault lets it through.
  mutating func answer(_ request: RequestContext, random: inout RandomStream) -> RequestFailure? {
    if let failure = requestFaults.answer(request, rates: &rates, random: &random) { return failure }
    for fault in extraRequestFaults {
      if let failure = RequestFaultList.ask(fault, request, &rates, &random) { return failure }
    }
    return nil
  }

  /// How the server answers a modify request that every request fault let through: the first
  /// record fault, in order, that answers, with its error; nil when every record is saved.
  /// `.recordsFailed` lists the failed records in `failed`.
  func answerModify(
    _ request: ModifyRequest, random: inout RandomStream, failed: inout [RecordFailure]
  ) -> (error: CloudError, outcome: RecordOutcome)? {
    recordFaults.answer(request, server: self, random: &random, failed: &failed)
  }

  /// A record's bytes and its assets' bytes (a CDMR join record has no assets).
  @inline(__always)
  func recordCost(zone: Int, object: ObjectID) -> (record: Int64, assets: Int64) {
    let entity = Int(zones[zone].objects[object.index].entity)
    return entity >= 0
      ? (recordBytesByEntity[entity], assetBytesByEntity[entity]) : (Int64(parameters.joinRecordBytes), 0)
  }

  /// The fields of `object`'s record, its existence field included.
  @inline(__always)
  func fieldCount(zone: Int, object: ObjectID) -> Int {
    let entity = Int(zones[zone].objects[object.index].entity)
    return entity >= 0 ? entityFieldCount[entity] : 1
  }
}

/// A request fault's answer: the error, what a retry or a stall waits for, and how the client
/// reacts, with the retry-after the server states.
struct RequestFailure {
  var error: CloudError
  var waitCause: WaitCause
  var reaction: ClientReaction
  var retryAfter: SimDuration?
  /// The request's failed attempts, this one counted if the fault counts attempts.
  var attempt: Int
}
