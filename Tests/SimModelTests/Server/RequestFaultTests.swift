import SimKernel
import Testing

@testable import SimModel

/// Failure modes are registered in one list, and the parameters turn each on or off.
@Suite struct RequestFaultTests {
  @Test func theDefaultServerAsksOnlyTheAlwaysOnFaults() {
    let faults = RequestFaults.active(for: ServerParameters())
    #expect(faults.map(\.error) == [.networkUnavailable, .serviceUnavailable])
  }

  @Test func parametersTurnFaultsOnInTheirRegisteredOrder() {
    var server = ServerParameters()
    server.zoneBusyProbability = 0.1
    server.networkFailureProbability = 0.2
    server.deviceThrottleRequestsPerMinute = 40
    server.faultKnobs.set(ZoneNotFoundFault.probability, probability: 0.01)
    server.faultKnobs.set(AccountUnavailableFault.probability, probability: 0.01)
    let faults = RequestFaults.active(for: server)
    #expect(
      faults.map(\.error) == [
        .networkUnavailable, .networkFailure, .serviceUnavailable, .requestRateLimited, .zoneBusy, .zoneNotFound,
        .accountTemporarilyUnavailable,
      ])
    #expect(RequestFaults.all.count == 7)
    #expect(RequestFaults.all.map { String(describing: $0) }.first == "NetworkUnavailableFault")
    // The registry's order is the order `RequestFaultSet` asks them in.
    #expect(faults.map { String(describing: type(of: $0)) } == RequestFaults.all.map { String(describing: $0) })
  }

  /// The dispatch follows the list's order (`RequestFaultList`'s chain of types): of two faults
  /// that both hit an offline device's request, the one listed first answers, in either order;
  /// a fault its parameters turn off is not asked.
  @Test func theFirstListedFaultThatAppliesAnswers() throws {
    var server = ServerParameters()
    server.networkFailureProbability = 1
    let request = RequestContext(
      activity: ActivityID(0), kind: .export, client: .coreData, device: 0, now: .zero, online: false, attempt: 0)
    var rates = ServerRates()
    var random = RandomStream(seed: 1)
    let unavailableFirst = RequestFaultList.Then<
      NetworkUnavailableFault, RequestFaultList.Then<NetworkFailureFault, RequestFaultList.End>
    >(server)
    let failureFirst = RequestFaultList.Then<
      NetworkFailureFault, RequestFaultList.Then<NetworkUnavailableFault, RequestFaultList.End>
    >(server)
    #expect(unavailableFirst.answer(request, rates: &rates, random: &random)?.error == .networkUnavailable)
    #expect(failureFirst.answer(request, rates: &rates, random: &random)?.error == .networkFailure)
    // Online, only the network failure applies; turned off, nothing answers.
    var online = request
    online.online = true
    #expect(unavailableFirst.answer(online, rates: &rates, random: &random)?.error == .networkFailure)
    let off = RequestFaultList.Then<
      NetworkUnavailableFault, RequestFaultList.Then<NetworkFailureFault, RequestFaultList.End>
    >(ServerParameters())
    #expect(off.active.map(\.error) == [.networkUnavailable])
    #expect(off.answer(online, rates: &rates, random: &random) == nil)
  }
}
