import SimKernel

/// `World` hosts its components' behaviour: the scheduler's decisions (`SchedulerHost`), the
/// push service's deliveries (`PushHost`) and the sync clients (`ClientHost`). A port that is not
/// already World's routing (`World+Requests`, `World+Background`) or another host's method is
/// here, each a call into the component that owns what it changes.
extension World: SchedulerHost {}

extension World {
  /// `DeviceReading.report`: the sink is a `let`, so it is lent, not copied.
  @inline(__always)
  func report(_ body: (borrowing any ObservationSink) -> Void) { body(sink) }
}

extension World: PushHost {
  func deviceConditions(_ device: DeviceID) -> DeviceConditions { spec.devices[device.index].conditions }
}

extension World: ClientHost {
  mutating func takeParked(_ device: DeviceID) -> [ParkedRequest] {
    let requests = parked[device.index]
    parked[device.index].removeAll(keepingCapacity: true)
    devices[device.index].parkedCount = 0
    return requests
  }

  mutating func nextPeriodicEdit(_ device: DeviceID) -> Int32 {
    agenda.periodicEdits[device.index] += 1
    return agenda.periodicEdits[device.index]
  }

  @inline(__always)
  mutating func setPending(_ kind: ActivityKind, of store: StoreID, to activity: ActivityID) {
    scheduler.storeActivities[store.index].setPending(kind, activity)
  }

  @inline(__always)
  mutating func setRunning(_ kind: ActivityKind, of store: StoreID, to activity: ActivityID) {
    scheduler.storeActivities[store.index].setRunning(kind, activity)
  }

  @inline(__always)
  mutating func setRetryWait(_ activity: ActivityID, notBefore: SimTime, cause: WaitCause) {
    scheduler.setRetryWait(activity, notBefore: notBefore, cause: cause)
  }

  mutating func newActivityLogID() -> ActivityID {
    let activity = ActivityID(Int(scheduler.nextActivityLogID))
    scheduler.nextActivityLogID += 1
    return activity
  }

  @inline(__always)
  mutating func answer(_ request: RequestContext, from device: DeviceID) -> RequestFailure? {
    server.answer(request, random: &devices[device.index].streams.network)
  }

  mutating func noteCounterField(zone: Int, field: Int32) {
    if !server.counterFields.contains(where: { $0.zone == Int32(zone) && $0.field == field }) {
      server.counterFields.append((Int32(zone), field))
    }
  }

  mutating func chargeUsage(zone: Int, bytes: Int64) {
    server.accounts[Int(server.zones[zone].ownerAccount)].usageBytes += bytes
  }

  @inline(__always)
  mutating func createObject(zone: Int, entity: Int, poison: Bool) -> ObjectID {
    server.createObject(zone: zone, entity: entity, poison: poison)
  }

  @inline(__always)
  mutating func describeObject(zone: Int, _ object: ObjectID, key: Int32, version: Int32, contribution: Bool) {
    server.describeObject(zone: zone, object, key: key, version: version, contribution: contribution)
  }

  @inline(__always)
  mutating func setParent(zone: Int, _ object: ObjectID, _ parent: Int32) {
    server.setParent(zone: zone, object, parent)
  }

  @inline(__always)
  mutating func recordChange(zone: Int, of object: ObjectID, by store: StoreID, at now: SimTime) -> Int32 {
    server.recordChange(zone: zone, of: object, by: store, at: now)
  }

  @inline(__always)
  mutating func setField(zone: Int, _ field: Int, write: WriteID, value: Int32) {
    server.setField(zone: zone, field, write: write, value: value)
  }

  @inline(__always)
  mutating func noteCommitted(zone: Int, _ object: ObjectID, publicDelete: Bool) {
    server.noteCommitted(zone: zone, object, publicDelete: publicDelete)
  }

  @inline(__always)
  mutating func compactChangeLogIfLong(zone: Int) { server.compactChangeLogIfLong(zone: zone) }

  @inline(__always)
  mutating func markSeen(zone: Int, _ object: ObjectID, pass: Int32) -> Bool {
    server.stamp(zone: zone, object, with: pass)
  }

  @inline(__always)
  mutating func answerModify(
    _ request: ModifyRequest, random: inout RandomStream, failed: inout [RecordFailure]
  ) -> (error: CloudError, outcome: RecordOutcome)? {
    server.answerModify(request, random: &random, failed: &failed)
  }

  @inline(__always)
  func recordCost(zone: Int, object: ObjectID) -> (record: Int64, assets: Int64) {
    server.recordCost(zone: zone, object: object)
  }

  @inline(__always)
  func fieldCount(zone: Int, object: ObjectID) -> Int { server.fieldCount(zone: zone, object: object) }
}
