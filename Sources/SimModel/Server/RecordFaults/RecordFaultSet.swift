import SimKernel

/// The record faults a server asks about a modify request: SyncSim's own, in this order,
/// each called as its concrete type, then any extra ones (a test's or a researcher's) through the
/// protocol.
///
/// Asked on every export request: through `any RecordFault` the four built-in checks cost a fleet
/// 3 % more instructions than the one loop they replaced; called directly they are inlined.
struct RecordFaultSet {
  let requestLimit = RequestLimitFault()
  let refusedRecord = RefusedRecordFault()
  let quota = QuotaFault()
  let serverRecordChanged = ServerRecordChangedFault()
  /// Faults beyond SyncSim's own, asked after them in order.
  let extra: [any RecordFault]

  init(extra: [any RecordFault] = []) {
    self.extra = extra
  }

  /// The first fault, in order, that answers `request`, with its error.
  @inline(__always)
  func answer(
    _ request: ModifyRequest, server: CloudServer, random: inout RandomStream, failed: inout [RecordFailure]
  ) -> (error: CloudError, outcome: RecordOutcome)? {
    if let outcome = requestLimit.answer(request, server: server, random: &random, failed: &failed) {
      return (requestLimit.error, outcome)
    }
    if let outcome = refusedRecord.answer(request, server: server, random: &random, failed: &failed) {
      return (refusedRecord.error, outcome)
    }
    if let outcome = quota.answer(request, server: server, random: &random, failed: &failed) {
      return (quota.error, outcome)
    }
    if let outcome = serverRecordChanged.answer(request, server: server, random: &random, failed: &failed) {
      return (serverRecordChanged.error, outcome)
    }
    for fault in extra {
      if let outcome = fault.answer(request, server: server, random: &random, failed: &failed) {
        return (fault.error, outcome)
      }
    }
    return nil
  }
}
