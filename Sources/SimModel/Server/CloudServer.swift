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
  let requestFaults: [any RequestFault]
  /// The record faults, in the order they are asked, after the request faults.
  let recordFaults: [any RecordFault]
  /// Whether a throttle can answer with a retry-after (a rate, a device limit or a timeline action).
  let retryAftersPossible: Bool

  init(parameters: ServerParameters, forcedThrottlePossible: Bool, extraRecordFaults: [any RecordFault] = []) {
    self.parameters = parameters
    requestFaults = RequestFaults.active(for: parameters)
    recordFaults = RecordFaults.active(for: parameters) + extraRecordFaults
    retryAftersPossible =
      parameters.throttleRequestsPerSecond != nil || parameters.deviceThrottleRequestsPerMinute != nil
      || forcedThrottlePossible
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
