import SimKernel
import SimMetrics
import Testing

@testable import SimModel

/// A request fault declares how the client reacts (`ClientReaction`), and the export and import
/// machines of both clients follow it: a reset (zoneNotFound) and a stall
/// (accountTemporarilyUnavailable) are written in no machine.
@Suite struct ClientReactionTests {
  /// A two-device world with `count` inserts a minute apart, on both devices in turn, for `hours`.
  static func editing(hours: Int64, count: Int, client: SyncClient = .coreData) -> WorldSpec {
    var spec = SchedulerTests.quietPair(hours: hours)
    for index in spec.devices.indices { spec.devices[index].client = client }
    spec.timeline = (0..<count).map { at(60 + Int64($0) * 60, [$0 % 2], .edit(.insert, entity: 0, key: nil)) }
    return spec
  }

  static func run(_ spec: WorldSpec) -> (ObservationLog, MetricsRecorder, RunOutcome) {
    let log = ObservationLog()
    let recorder = MetricsRecorder(
      policyNames: spec.scheduler.policies.map(\.name), reportedErrors: spec.reportedErrors,
      reportedCauses: spec.reportedCauses)
    let outcome = WorldRunner.run(spec, sink: Tee([log, recorder]))
    return (log, recorder, outcome)
  }

  @Test func aZoneNotFoundAnswerResetsTheCoreDataStoreAndLosesNothing() {
    var spec = Self.editing(hours: 3, count: 40, client: .coreData)
    spec.server.faultKnobs.set(ZoneNotFoundFault.probability, probability: 0.05)
    let (log, recorder, outcome) = Self.run(spec)
    var answers: [(StoreID, SimTime)] = []
    var resets: [(StoreID, SimTime)] = []
    for observation in log.observations {
      switch observation {
      case .cloudError(let store, .zoneNotFound, nil, let time): answers.append((store, time))
      case .reset(let store, .zoneDeleted, let time): resets.append((store, time))
      default: break
      }
    }
    // Every answer resets its store at once, from both machines' requests.
    #expect(answers.count >= 3)
    #expect(answers.map(\.0) == resets.map(\.0))
    #expect(answers.map(\.1) == resets.map(\.1))
    #expect(outcome.converged)
    #expect(recorder.latencyRows().count == 40)
    #expect(recorder.latencyRows().allSatisfy { $0.outcome == .visible })
    #expect(recorder.reportedErrors.contains(.zoneNotFound))
    #expect(recorder.counters.cloudErrors[CloudError.allCases.firstIndex(of: .zoneNotFound)!] == answers.count)
  }

  /// A CKSyncEngine app's send answered zoneNotFound saves the zone and sends again, as Apple's
  /// sample does; its fetch answered so resets (the sample wipes a zone the server deleted).
  @Test func aZoneNotFoundSendMakesTheSyncEngineSaveItsZoneAndSendAgain() {
    var spec = Self.editing(hours: 3, count: 40, client: .syncEngine)
    spec.server.faultKnobs.set(ZoneNotFoundFault.probability, probability: 0.05)
    let (log, recorder, outcome) = Self.run(spec)
    var resetAt: Set<String> = []
    for case .reset(let store, .zoneDeleted, let time) in log.observations { resetAt.insert("\(store.index)@\(time)") }
    // Per store: after a send's zoneNotFound (an answer with no reset), the next upload request
    // is the zone's save (no records), and every zone save follows such an answer.
    var awaitingSave: Set<Int> = []
    var sendAnswers = 0
    var fetchAnswers = 0
    var zoneSaves = 0
    var unexpected = 0
    for observation in log.observations {
      switch observation {
      case .cloudError(let store, .zoneNotFound, nil, let time):
        if resetAt.contains("\(store.index)@\(time)") {
          fetchAnswers += 1
        } else {
          sendAnswers += 1
          awaitingSave.insert(store.index)
        }
      case .request(let store, true, let records, _, _):
        if records == 0 {
          zoneSaves += 1
          if awaitingSave.remove(store.index) == nil { unexpected += 1 }
        } else if awaitingSave.contains(store.index) {
          unexpected += 1
        }
      default: break
      }
    }
    #expect(sendAnswers >= 3, "\(sendAnswers) sends answered zoneNotFound")
    #expect(fetchAnswers >= 1)
    #expect(resetAt.count == fetchAnswers)
    #expect(zoneSaves >= 3 && zoneSaves <= sendAnswers)
    #expect(unexpected == 0)
    #expect(awaitingSave.isEmpty)
    #expect(outcome.converged)
    #expect(recorder.latencyRows().count == 40)
    #expect(recorder.latencyRows().allSatisfy { $0.outcome == .visible })
    #expect(
      recorder.counters.cloudErrors[CloudError.allCases.firstIndex(of: .zoneNotFound)!] == sendAnswers + fetchAnswers)
  }

  @Test(arguments: [SyncClient.coreData, .syncEngine])
  func anAccountUnavailableAnswerStallsTheStoreForTheStatedTime(client: SyncClient) throws {
    var spec = Self.editing(hours: 6, count: 60, client: client)
    spec.server.faultKnobs.set(AccountUnavailableFault.probability, probability: 0.1)
    spec.server.faultKnobs.set(AccountUnavailableFault.duration, distribution: .constant(600))
    let (log, recorder, outcome) = Self.run(spec)
    var stalledUntil: [StoreID: SimTime] = [:]
    var stalls = 0
    var requestsDuringStalls = 0
    var repeats = 0
    for observation in log.observations {
      switch observation {
      case .cloudError(let store, .accountTemporarilyUnavailable, nil, let time):
        // A request on the wire meanwhile (the other activity's) gets the same answer, within
        // the same stall; nothing new is asked for until it ends.
        if let until = stalledUntil[store], time < until {
          repeats += 1
          continue
        }
        stalls += 1
        stalledUntil[store] = time + .seconds(600)
      case .request(let store, _, _, _, let time):
        if let until = stalledUntil[store], time < until { requestsDuringStalls += 1 }
      default: break
      }
    }
    #expect(stalls >= 3)
    #expect(requestsDuringStalls == 0)
    // In this world no other request was on the wire when a stall began, so none is answered
    // again: an import a push asks for meanwhile waits (without that hold, 6 of 6 stalls were
    // answered a second time).
    #expect(repeats == 0)
    #expect(outcome.converged)
    #expect(recorder.latencyRows().allSatisfy { $0.outcome == .visible })
    // The waits are booked to their own cause: a column only runs with the fault have.
    let cause = try #require(recorder.policyNames.firstIndex(of: "accountUnavailable"))
    #expect(recorder.counters.blockedCount[cause] >= stalls)
    #expect(recorder.counters.blockedTotal[cause] >= .seconds(600))
  }

  @Test func aCauseAddedLaterIsReportedOnlyWhenAFaultCanRaiseIt() {
    var spec = SchedulerTests.quietPair(hours: 1)
    #expect(spec.reportedCauses == WaitCause.alwaysReported)
    #expect(!spec.reportedErrors.contains(.accountTemporarilyUnavailable))
    spec.server.faultKnobs.set(AccountUnavailableFault.probability, probability: 0.01)
    #expect(spec.reportedCauses == WaitCause.allCases)
    #expect(spec.reportedErrors.contains(.accountTemporarilyUnavailable))
    // A fault whose cause is always reported adds none.
    spec.server.faultKnobs.set(AccountUnavailableFault.probability, probability: 0)
    spec.server.faultKnobs.set(ZoneNotFoundFault.probability, probability: 0.01)
    #expect(spec.reportedCauses == WaitCause.alwaysReported)
  }

  @Test func eachReactionTakesItsOwnTransitionInBothMachines() {
    #expect(ExportTransition(.retry(at: .zero)) == .waitForRetry)
    #expect(ExportTransition(.fail) == .offline)
    #expect(ExportTransition(.reset(.zoneDeleted)) == .resetDeclared)
    #expect(ExportTransition(.stall(until: .zero)) == .stallDeclared)
    #expect(ImportTransition(.retry(at: .zero)) == .waitForRetry)
    #expect(ImportTransition(.fail) == .offline)
    #expect(ImportTransition(.reset(.zoneDeleted)) == .resetDeclared)
    #expect(ImportTransition(.stall(until: .zero)) == .stallDeclared)
    #expect(ExportTransition(.recreateZone) == .recreateZoneDeclared)
    #expect(ImportTransition(.recreateZone) == .recreateZoneDeclared)
  }
}

/// A test's request fault: an import's request answers zoneNotFound with a zone recreation, a
/// reaction no registered fault declares for a fetch, so that both machines' rows for it are
/// taken (`ActivityPathTests`).
struct ImportZoneRecreationFault: RequestFault {
  let probability: Double
  init(probability: Double) { self.probability = probability }
  init?(server: ServerParameters) { nil }
  var error: CloudError { .zoneNotFound }
  var waitCause: WaitCause { .networkBackoff }
  func applies(to request: RequestContext, rates: inout ServerRates, random: inout RandomStream) -> Bool {
    request.kind == .import && random.bernoulli(probability)
  }
  func recovery(
    for request: RequestContext, rates: inout ServerRates, random: inout RandomStream
  ) -> (reaction: ClientReaction, retryAfter: SimDuration?) { (.recreateZone, nil) }
}
