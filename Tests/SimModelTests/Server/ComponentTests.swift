import SimKernel
import Testing

@testable import SimModel

/// The CloudKit server on its own: request faults in order, attempts counted by the faults that
/// back off, and a record fault's answer, without a world.
@Suite struct CloudServerTests {
  func request(_ activity: Int = 0, at seconds: Double, online: Bool = true, attempt: Int = 0) -> RequestContext {
    RequestContext(
      activity: ActivityID(activity), kind: .export, client: .coreData, device: 0,
      now: SimTime(SimDuration(seconds: seconds)), online: online,
      attempt: attempt)
  }

  @Test func theContainerThrottleAnswersTheThirdRequestOfASecondWithItsRetryAfter() {
    var parameters = ServerParameters()
    parameters.throttleRequestsPerSecond = 2
    parameters.throttleRetryAfter = .constant(5)
    var server = CloudServer(parameters: parameters, forcedThrottlePossible: false)
    server.addDevice()
    var random = RandomStream(seed: 1)
    #expect(server.answer(request(at: 0), random: &random) == nil)
    #expect(server.answer(request(at: 0.5), random: &random) == nil)
    let third = server.answer(request(at: 0.9), random: &random)
    #expect(third?.error == .serviceUnavailable)
    #expect(third?.waitCause == .serverThrottle)
    #expect(third?.retryAfter == .seconds(5))
    #expect(third?.reaction == .retry(at: SimTime(SimDuration(seconds: 5.9))))
    // The first request has left the one-second window: a fourth at 1.2 s is let through.
    #expect(server.answer(request(at: 1.2), random: &random) == nil)
  }

  @Test func anOfflineDeviceFailsAtOnceWithNoRetry() {
    var server = CloudServer(parameters: ServerParameters(), forcedThrottlePossible: false)
    server.addDevice()
    var random = RandomStream(seed: 1)
    let answer = server.answer(request(at: 0, online: false), random: &random)
    #expect(answer?.error == .networkUnavailable)
    #expect(answer?.reaction == .fail)
  }

  @Test func zoneBusyBacksOffDoublingWithEachCountedAttempt() {
    var parameters = ServerParameters()
    parameters.zoneBusyProbability = 1
    var server = CloudServer(parameters: parameters, forcedThrottlePossible: false)
    server.addDevice()
    var random = RandomStream(seed: 1)
    var attempt = 0
    var delays: [Double] = []
    for _ in 0..<4 {
      let answer = server.answer(request(at: 100, attempt: attempt), random: &random)
      attempt = answer?.attempt ?? 0
      guard case .retry(let at)? = answer?.reaction else { Issue.record("no retry"); return }
      delays.append(at.seconds - 100)
    }
    // 2 s, doubling with each attempt, never over `zoneBusyBackoffCap`.
    #expect(delays[0] == 2 && delays[1] == 4 && delays[2] == 8)
    #expect(delays[3] == min(16, parameters.zoneBusyBackoffCap.seconds))
    #expect(attempt == 4)
  }

  @Test func aBatchOverTheServersRecordLimitIsTooLarge() {
    var server = CloudServer(parameters: ServerParameters(), forcedThrottlePossible: false)
    server.addDevice()
    var random = RandomStream(seed: 1)
    var failed: [RecordFailure] = []
    let changes: [Change] = []
    let answer = changes.withUnsafeBufferPointer { buffer in
      server.answerModify(
        ModifyRequest(
          device: 0, zone: 0, store: StoreID(0), now: .zero, changes: buffer,
          records: server.parameters.serverMaxRecordsPerRequest + 1, merged: false, importedToken: 0),
        random: &random, failed: &failed)
    }
    #expect(answer?.error == .limitExceeded)
    #expect(answer?.outcome == .tooLarge)
  }
}

/// The system scheduler on its own: slots, the rate limiter's windows over recorded runs, and
/// retry waits, without a world.
@Suite struct SystemSchedulerTests {
  func context(at seconds: Double) -> PolicyContext {
    PolicyContext(
      now: SimTime(SimDuration(seconds: seconds)), kind: .export, requestedAt: SimTime(SimDuration(seconds: seconds)),
      launchedForPush: false,
      runningInGroup: 0, recentRuns: [], batteryPercent: 80, pluggedIn: false, lowPowerMode: false, online: true,
      devicesInAccount: 2, appInForeground: true)
  }

  @Test func theSixtyFirstRunInAMinuteWaitsUntilTheFirstLeavesTheWindow() {
    var scheduler = SystemScheduler(SchedulerParameters())
    scheduler.addDevice()
    var runs = DeviceRuns()
    for run in 0..<60 {
      #expect(scheduler.firstRefusal(context(at: Double(run) * 0.5), device: 0, runs: &runs) == nil)
      scheduler.recordRun(SimTime(SimDuration(seconds: Double(run) * 0.5)), device: 0, runs: &runs)
    }
    let refusal = scheduler.firstRefusal(context(at: 30), device: 0, runs: &runs)
    let rateLimit = Int32(scheduler.policies.order.firstIndex { if case .rateLimit = $0 { true } else { false } }!)
    #expect(refusal?.policy == rateLimit)
    #expect(refusal?.until == SimTime(SimDuration(seconds: 60)))
    #expect(scheduler.firstRefusal(context(at: 60), device: 0, runs: &runs) == nil)
  }

  @Test func slotsAreReusedAndLogIDsAreNot() {
    var scheduler = SystemScheduler(SchedulerParameters())
    let state = ActivityState(
      kind: .import, store: StoreID(0), trigger: .push, requestedAt: .zero, launchedForPush: false)
    let first = scheduler.admit(state)
    let second = scheduler.admit(state)
    scheduler.freeActivitySlots.append(first)
    let third = scheduler.admit(state)
    #expect(third == first && second != first)
    #expect(scheduler.activities[third.index].logID == 2)
  }

  @Test func aRetryWaitHoldsUntilItsTimeAndALongerOneWins() {
    var scheduler = SystemScheduler(SchedulerParameters())
    let activity = ActivityID(3)
    scheduler.setRetryWait(activity, notBefore: SimTime(SimDuration(seconds: 10)), cause: .zoneBusy)
    scheduler.setRetryWait(activity, notBefore: SimTime(SimDuration(seconds: 5)), cause: .serverThrottle)
    #expect(scheduler.retryWait(activity, at: SimTime(SimDuration(seconds: 1)))?.cause == .zoneBusy)
    #expect(scheduler.retryWait(activity, at: SimTime(SimDuration(seconds: 10))) == nil)
    scheduler.forgetRetryWait(activity)
    #expect(scheduler.retryWaitCount == 0)
  }
}

/// The push service on its own: the coalescing window, offline storage, and the device-wide
/// budget shared with other apps, without a world.
@Suite struct PushServiceTests {
  @Test func aPushWithinTheCoalescingWindowIsNotSent() {
    var parameters = PushParameters()
    parameters.coalescingWindow = .seconds(10)
    parameters.fanoutLatency = .constant(2)
    var service = PushService(parameters)
    var mailbox = PushMailbox()
    var random = RandomStream(seed: 1)
    #expect(
      service.send(&mailbox, now: SimTime(SimDuration(seconds: 0)), random: &random)
        == .arrives(after: .seconds(2) + parameters.deliveryLatency))
    #expect(service.send(&mailbox, now: SimTime(SimDuration(seconds: 5)), random: &random) == .coalesced)
    #expect(service.send(&mailbox, now: SimTime(SimDuration(seconds: 11)), random: &random) != .coalesced)
  }

  @Test func anOfflineDeviceKeepsTheNewestPushForThirtyDays() {
    let service = PushService(PushParameters())
    var mailbox = PushMailbox()
    #expect(!service.store(ZoneID(1), in: &mailbox, at: .zero))
    #expect(service.store(ZoneID(2), in: &mailbox, at: SimTime(SimDuration(seconds: 60))))
    let back = service.takeStored(from: &mailbox, at: SimTime(.days(10)))
    #expect(back?.zone == ZoneID(2) && back?.expired == false)
    #expect(service.takeStored(from: &mailbox, at: SimTime(.days(10))) == nil)
    _ = service.store(ZoneID(3), in: &mailbox, at: .zero)
    #expect(service.takeStored(from: &mailbox, at: SimTime(.days(31)))?.expired == true)
  }

  @Test func threeWakesAnHourAndOtherAppsTakeTheirShare() {
    var service = PushService(PushParameters())
    service.addDevice()
    service.addDevice()
    let alone = DeviceConditions()
    let minutes = { (value: Double) in SimTime(SimDuration(seconds: value * 60)) }
    for minute in [0.0, 10, 20] {
      #expect(service.withinBudget(0, conditions: alone, at: minutes(minute)) == true)
      service.recordWake(0, at: minutes(minute))
    }
    #expect(service.withinBudget(0, conditions: alone, at: minutes(30)) == false)
    #expect(service.withinBudget(0, conditions: alone, at: minutes(61)) == true)
    // Another app's two pushes an hour (at 30 and 60 min) take two of the three places: this
    // app's first push at 61 min fits, its second at 62 min does not.
    var shared = DeviceConditions()
    shared.otherAppsBackgroundPushesPerHour = 2
    #expect(service.withinBudget(1, conditions: shared, at: minutes(61)) == true)
    service.recordWake(1, at: minutes(61))
    #expect(service.withinBudget(1, conditions: shared, at: minutes(62)) == false)
    var debugging = shared
    debugging.debuggerAttached = true
    #expect(service.withinBudget(1, conditions: debugging, at: minutes(62)) == true)
  }
}

/// The invariants checked after every event in debug builds hold through a busy run and name the
/// pair that breaks when one is broken by hand.
@Suite struct InvariantTests {
  @Test func theBooksHoldAndABrokenPairIsNamed() {
    var spec = SchedulerTests.quietPair(hours: 2)
    for index in spec.devices.indices { spec.devices[index].workload = Workload(editsPerHour: 120) }
    spec.timeline = [
      TimelineAction(at: .minutes(20), devices: [1], action: .goOffline),
      TimelineAction(at: .minutes(50), devices: [1], action: .goOnline),
    ]
    var world = World(spec: spec, sink: ObservationLog())
    var sim = Simulation<ModelEvent>()
    world.start(&sim)
    _ = sim.run(&world, until: SimTime(.minutes(30)), maxEvents: 1_000_000)
    #expect(sim.processedEventCount > 100)
    #expect(world.invariantViolation() == nil)
    #expect(world.devices[1].waitingCount > 0)  // the offline device's activities wait on the network
    world.devices[1].waitingCount += 1
    #expect(world.invariantViolation()?.contains("device 1 counts") == true)
    world.devices[1].waitingCount -= 1
    world.scheduler.retryWaitCount += 1
    #expect(world.invariantViolation()?.contains("retry waits counted") == true)
    world.scheduler.retryWaitCount -= 1
    world.scheduler.storeActivities[0].runningInGroup += 1
    #expect(world.invariantViolation()?.contains("running in its group") == true)
  }
}
