import SimKernel

/// The account's iCloud storage is full (`quota` of an account): quotaExceeded when the batch's
/// new records would take it over, and the store stalls until space is freed. [A] CKError
/// quotaExceeded
struct QuotaFault: RecordFault {
  var error: CloudError { .quotaExceeded }

  func answer(
    _ request: ModifyRequest, server: CloudServer, random: inout RandomStream, failed: inout [RecordFailure]
  ) -> RecordOutcome? {
    let account = Int(server.zones[request.zone].ownerAccount)
    guard let quota = server.accounts[account].quotaBytes else { return nil }
    var newBytes: Int64 = 0
    for change in request.changes where change.field < 0 {
      let base = Int(server.zones[request.zone].objects[change.object.index].fieldBase)
      guard server.zones[request.zone].server[base].write == .none else { continue }
      let cost = server.recordCost(zone: request.zone, object: change.object)
      newBytes += cost.record + cost.assets
    }
    return server.accounts[account].usageBytes + newBytes > quota ? .refused(.quotaExceeded) : nil
  }
}
