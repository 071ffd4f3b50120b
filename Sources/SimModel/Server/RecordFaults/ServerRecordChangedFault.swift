import SimKernel

/// With `cloud.savePolicy` `ifServerRecordUnchanged`: a record another store changed after the
/// sender last imported it answers serverRecordChanged, and the client merges the server's fields
/// in and sends the batch again. [A] CKModifyRecordsOperation.RecordSavePolicy
struct ServerRecordChangedFault: RecordFault {
  var error: CloudError { .serverRecordChanged }

  func answer(
    _ request: ModifyRequest, server: CloudServer, random: inout RandomStream, failed: inout [RecordFailure]
  ) -> RecordOutcome? {
    guard server.parameters.savePolicy == .ifServerRecordUnchanged && !request.merged else { return nil }
    let conflict = request.changes.contains { change in
      server.zones[request.zone].objects[change.object.index].lastChange > request.importedToken
        && server.zones[request.zone].objects[change.object.index].lastStore != request.store
    }
    return conflict ? .changedOnServer : nil
  }
}
