import SimKernel

/// What the start of an activity comes to: nothing (it was cancelled, or it waits for its app
/// to wake), its client's run, or a retry after the retry-after in force (it ended at once).
enum ActivityStart {
  case none
  case run
  case retry(notBefore: SimTime, cause: WaitCause)
}
