import SimKernel
import SimMetrics
import Testing

@testable import SimModel

/// A timeline action declared as a type, from outside SyncSim's own actions: its traits reach the
/// run's reported causes and the partitioning rule, its behaviour runs on the world, and two
/// entries compare by their values.
struct TestHoldAction: DeclaredTimelineAction, Equatable {
  let duration: SimDuration
  var holdsWholeContainer = false

  var name: String { "testHold" }
  var waitCause: WaitCause? { .accountUnavailable }
  var holdsContainer: Bool { holdsWholeContainer }

  func perform(on device: DeviceID, storeIndex: Int?, world: inout World, sim: inout Simulation<ModelEvent>) {
    for store in world.storeIDs(of: device) where world.isSyncing(store) {
      world.hold(store, until: sim.now + duration, cause: .accountUnavailable)
    }
  }
}

@Suite struct DeclaredTimelineActionTests {
  /// Device 0 edits every minute for an hour; at 10 min it holds its stores for 20 min.
  static func heldWorld() -> WorldSpec {
    var spec = ClientReactionTests.editing(hours: 2, count: 60)
    spec.timeline = (0..<60).map {
      TimelineAction(at: .seconds(60 + Int64($0) * 60), devices: [0], action: .edit(.insert, entity: 0, key: nil))
    }
    spec.timeline.append(
      TimelineAction(
        at: .minutes(10), devices: [0], action: .declared(DeclaredAction(TestHoldAction(duration: .minutes(20))))))
    spec.timeline.sort { $0.at < $1.at }
    return spec
  }

  @Test func itsBehaviourHoldsTheStoresAndItsCauseIsReported() throws {
    let spec = Self.heldWorld()
    #expect(spec.reportedCauses.contains(.accountUnavailable))
    let (log, recorder, outcome) = ClientReactionTests.run(spec)
    let holdStart = SimTime(.minutes(10))
    let holdEnd = SimTime(.minutes(30))
    // Device 0's store sends nothing while held, and catches up after.
    var requestsDuringHold = 0
    var requestsAfter = 0
    for case .request(let store, _, _, _, let time) in log.observations where store == StoreID(0) {
      if time > holdStart && time < holdEnd { requestsDuringHold += 1 }
      if time >= holdEnd { requestsAfter += 1 }
    }
    #expect(requestsDuringHold == 0)
    #expect(requestsAfter > 0)
    let cause = try #require(recorder.policyNames.firstIndex(of: "accountUnavailable"))
    #expect(recorder.counters.blockedCount[cause] >= 1)
    #expect(recorder.counters.blockedTotal[cause] >= .minutes(15))
    #expect(outcome.converged)
    #expect(recorder.latencyRows().allSatisfy { $0.outcome == .visible })
  }

  @Test func itsTraitsAreAskedAndItsValuesCompared() {
    let short = TimelineAction.Action.declared(DeclaredAction(TestHoldAction(duration: .minutes(5))))
    #expect(short == .declared(DeclaredAction(TestHoldAction(duration: .minutes(5)))))
    #expect(short != .declared(DeclaredAction(TestHoldAction(duration: .minutes(6)))))
    #expect(short.name == "testHold" && short.waitCause == .accountUnavailable && !short.writesToStore)
    // One that holds the whole container keeps the world in one part, and says which action.
    var spec = ClientReactionTests.editing(hours: 1, count: 2)
    spec.timeline.append(
      TimelineAction(
        at: .minutes(1), devices: [0],
        action: .declared(DeclaredAction(TestHoldAction(duration: .minutes(5), holdsWholeContainer: true)))))
    #expect(
      WorldPartitioning.coupling(of: spec, devices: spec.devices)
        == "a timeline testHold action holds the whole container")
  }
}
