import SimKernel

/// The system scheduler (dasd): the activities it holds, the ones waiting on a policy, the
/// retries waiting out a wait, the policies and the rate limiter's memory of runs (spec §5).
///
/// A sync client submits activities; the world asks `firstRefusal` when one is decided and
/// starts it after the start delay of its kind. Each list kept beside another is checked against
/// it by `checkInvariants` after every event in debug builds.
struct SystemScheduler {
  /// Per activity slot: its state (slots are reused when an activity ends).
  let activities = Column<ActivityState>()
  var freeActivitySlots: [ActivityID] = []
  var nextActivityLogID: Int32 = 0
  /// Per device: the start times of rate-limited runs.
  var runHistory: RunHistory
  /// Per device: activities waiting on a policy (its length is `DeviceState.waitingCount`).
  var waiting: [[ActivityID]] = []
  /// Per activity slot that retries a request: not before this time, waiting for this cause.
  /// Apart from the activity table, which every decision reads: most worlds never retry.
  var retryWaits: [Int32: (notBefore: SimTime, cause: WaitCause)] = [:]  // lookup only
  /// `retryWaits.count`, kept inline: a decision checks it, and the table's header is cold.
  var retryWaitCount = 0
  /// The fixed delays on the clock, converted once rather than per activity.
  let exportStartDelay: SimDuration
  let importStartDelay: SimDuration
  let policyValidity: SimDuration
  /// The policies, in order, each kept as its concrete type.
  let policies: PolicySet

  init(_ parameters: SchedulerParameters) {
    policies = PolicySet(parameters.policies)
    runHistory = RunHistory(horizon: SimDuration(seconds: policies.runHorizonSeconds))
    exportStartDelay = parameters.exportStartDelay
    importStartDelay = parameters.importStartDelay
    policyValidity = parameters.policyValidity
  }
}
