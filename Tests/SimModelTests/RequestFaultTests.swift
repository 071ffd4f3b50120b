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
    let faults = RequestFaults.active(for: server)
    #expect(
      faults.map(\.error) == [
        .networkUnavailable, .networkFailure, .serviceUnavailable, .requestRateLimited, .zoneBusy,
      ])
    #expect(RequestFaults.all.count == 5)
    // The registry's order is the order `RequestFaultSet` asks them in.
    #expect(faults.map { String(describing: type(of: $0)) } == RequestFaults.all.map { String(describing: $0) })
  }
}
