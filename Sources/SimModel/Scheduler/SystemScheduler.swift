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
  /// Each store's pending and running activities, by store.
  var storeActivities: [StoreActivities] = []
  /// Per activity slot that retries a request: not before this time, waiting for this cause.
  /// Apart from the activity table, which every decision reads: most worlds never retry.
  var retryWaits: [Int32: (notBefore: SimTime, cause: WaitCause)] = [:]  // lookup only
  /// `retryWaits.count`, kept inline: a decision checks it, and the table's header is cold.
  var retryWaitCount = 0
  /// The fixed delays on the clock, converted once rather than per activity.
  let exportStartDelay: SimDuration
  let importStartDelay: SimDuration
  let policyValidity: SimDuration
  /// From submission to decision, and from a signal to the decisions again (its parameters'; the
  /// scheduler is given only these, never the world's spec).
  let decisionLatency: Distribution
  let reevaluationLatency: SimDuration
  /// The policies, in order, each kept as its concrete type.
  let policies: PolicySet
  /// The activity group policy's position, if the set has it: what an activity the app starts
  /// itself waits under while another of its group runs.
  let groupPolicyPosition: Int32?

  init(_ parameters: SchedulerParameters) {
    policies = PolicySet(parameters.policies)
    groupPolicyPosition = parameters.policies.firstIndex { $0 is ActivityGroupPolicy }.map(Int32.init)
    runHistory = RunHistory(horizon: SimDuration(seconds: policies.runHorizonSeconds))
    exportStartDelay = parameters.exportStartDelay
    importStartDelay = parameters.importStartDelay
    policyValidity = parameters.policyValidity
    decisionLatency = parameters.decisionLatency
    reevaluationLatency = parameters.reevaluationLatency
  }

  /// Adds the next device: an empty run history and waiting list.
  mutating func addDevice() {
    runHistory.addDevice()
    waiting.append([])
  }

  /// Takes in a submitted activity: gives it the next log id and a free slot (or a new one).
  mutating func admit(_ state: ActivityState) -> ActivityID {
    var state = state
    state.logID = nextActivityLogID
    nextActivityLogID += 1
    if let slot = freeActivitySlots.popLast() {
      activities[slot.index] = state
      return slot
    }
    activities.append(state)
    return ActivityID(activities.count - 1)
  }

  /// The first policy, in order, that refuses the activity of `context` on `device`, with its
  /// "until" time; nil when every policy lets it proceed.
  ///
  /// While the run history shows that no rate-limit window can be full, the rate limiters would
  /// proceed whatever it holds, so they are not asked and it is not read; the verdicts are the
  /// same (a test checks them against asking every time). A researcher's policy that reads the
  /// run history gets a copy of it in the context.
  ///
  /// `mutating`, as `recordRun` and `retryWait` are, though it changes nothing here: so that a
  /// facet written against `SchedulerHost` calls it on the scheduler in place (through `modify`)
  /// rather than on a copy of the whole scheduler (through `get`), which cost the public-deletes
  /// world 3 % more instructions.
  @inline(__always)
  mutating func firstRefusal(
    _ context: PolicyContext, device: Int, runs: inout DeviceRuns
  ) -> (policy: Int32, until: SimTime?)? {
    let onlyLimitersRead = policies.onlyRateLimitsReadRuns
    if onlyLimitersRead && runHistory.windowsHaveRoom(device: device, &runs, at: context.now, policies: policies) {
      return policies.firstRefusal(context, runs: .none, rateLimitsCannotRefuse: true)
    }
    // A local copy: a closure that read `self.policies` would capture the scheduler.
    let policies = policies
    var context = context
    return runHistory.withRuns(device: device, &runs, copyForResearcher: !onlyLimitersRead) { view, copy in
      context.recentRuns = copy
      return policies.firstRefusal(context, runs: view)
    }
  }

  /// Remembers that an activity of `device` was approved now (the rate limiter counts it).
  @inline(__always)
  mutating func recordRun(_ now: SimTime, device: Int, runs: inout DeviceRuns) {
    runHistory.record(now, device: device, &runs)
  }

  /// The wait a retry of `activity` must still sit out, if any: not before `until`, for `cause`.
  @inline(__always)
  mutating func retryWait(_ activity: ActivityID, at now: SimTime) -> (cause: WaitCause, until: SimTime)? {
    guard retryWaitCount > 0, let wait = retryWaits[activity.raw], wait.notBefore > now else { return nil }
    return (wait.cause, wait.notBefore)
  }

  /// Makes `activity` wait for `cause` until `notBefore`, unless it already waits longer.
  mutating func setRetryWait(_ activity: ActivityID, notBefore: SimTime, cause: WaitCause) {
    guard notBefore > retryWaits[activity.raw]?.notBefore ?? .zero else { return }
    retryWaits[activity.raw] = (notBefore, cause)
    retryWaitCount = retryWaits.count
  }

  /// Drops the retry wait of an activity whose slot is freed.
  @inline(__always)
  mutating func forgetRetryWait(_ activity: ActivityID) {
    guard retryWaitCount > 0 else { return }
    retryWaits[activity.raw] = nil
    retryWaitCount = retryWaits.count
  }
}
