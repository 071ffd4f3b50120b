import SimKernel

/// What the server (or the network) answers a request that completes now.
enum RequestVerdict {
  case accepted
  /// Send the request again at this time, in the same activity (a split batch, a merged record).
  case resend(at: SimTime)
  /// A request fault answered: the activity ends, and the client reacts as the fault declares
  /// (`ClientReaction`: a retry, a failure, a reset, a stall), any wait booked to its cause.
  case faulted(RequestFailure)
  /// A record fault refused the batch: the activity fails with this error.
  case failed(CloudError)
  /// Some of a modify request's records were saved and the rest failed (listed in
  /// `PlanningScratch.failedRecords`): the failed ones are sent again at this time.
  case partlySaved(retryAt: SimTime)
}
