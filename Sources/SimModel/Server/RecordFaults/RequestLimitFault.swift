import SimKernel

/// The request is over the server's per-request limits (`cloud.serverMaxRecordsPerRequest`,
/// `serverMaxBytesPerRequest`): limitExceeded, and the client splits the batch. [A] CKError
/// limitExceeded
struct RequestLimitFault: RecordFault {
  var error: CloudError { .limitExceeded }

  func answer(
    _ request: ModifyRequest, server: CloudServer, random: inout RandomStream, failed: inout [RecordFailure]
  ) -> RecordOutcome? {
    if request.records > server.parameters.serverMaxRecordsPerRequest { return .tooLarge }
    var recordBytes: Int64 = 0
    var lastObject: ObjectID?
    for change in request.changes where change.object != lastObject {
      lastObject = change.object
      recordBytes += server.recordCost(zone: request.zone, object: change.object).record
    }
    return recordBytes > Int64(server.parameters.serverMaxBytesPerRequest) ? .tooLarge : nil
  }
}
