import SimKernel

/// `World` hosts its components' behaviour: the scheduler's decisions (`SchedulerHost`), the
/// push service's deliveries (`PushHost`) and the sync clients (`ClientHost`). A port that is not
/// already World's routing (`World+Requests`, `World+Background`) or another host's method is
/// here, each a call into the component that owns what it changes.
extension World: SchedulerHost, PushHost {}

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
    if kind == .export {
      scheduler.storeActivities[store.index].pendingExport = activity
    } else {
      scheduler.storeActivities[store.index].pendingImport = activity
    }
  }

  @inline(__always)
  mutating func setRunning(_ kind: ActivityKind, of store: StoreID, to activity: ActivityID) {
    if kind == .export {
      scheduler.storeActivities[store.index].runningExport = activity
    } else {
      scheduler.storeActivities[store.index].runningImport = activity
    }
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
}
