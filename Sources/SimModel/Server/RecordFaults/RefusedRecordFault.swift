import SimKernel

/// A record the server refuses whatever is retried (a poison record, `bulkInsert`'s
/// `poisonRecords`): partialFailure, and the export fails until the data changes.
/// [A] CKError partialFailure
struct RefusedRecordFault: RecordFault {
  var error: CloudError { .partialFailure }

  func answer(
    _ request: ModifyRequest, server: CloudServer, random: inout RandomStream, failed: inout [RecordFailure]
  ) -> RecordOutcome? {
    let poisoned = request.changes.contains { server.zones[request.zone].objects[$0.object.index].poison }
    return poisoned ? .refused(.partialFailure) : nil
  }
}
