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
    // A deleted record weighs its ID (in `recordIDsToDelete`), as the client costs it: weighed
    // as a whole record, 10 deletes of 300 kB records were refused as over 2 MB (issue 71).
    var recordBytes: Int64 = 0
    var index = request.changes.startIndex
    while index < request.changes.endIndex {
      let object = request.changes[index].object
      var deletes = false
      while index < request.changes.endIndex && request.changes[index].object == object {
        deletes = deletes || request.changes[index].field == 0
        index += 1
      }
      recordBytes +=
        deletes
        ? Int64(ServerParameters.deletedRecordIDBytes) : server.recordCost(zone: request.zone, object: object).record
    }
    return recordBytes > Int64(server.parameters.serverMaxBytesPerRequest) ? .tooLarge : nil
  }
}
