import Testing

@testable import SimModel

/// A workload or usage given to many devices at once is stored once, and changing one device's
/// leaves the others' as they were.
@Suite struct SharedScheduleTests {
  func world(_ count: Int) -> WorldSpec {
    var spec = WorldSpec()
    spec.devices = (0..<count).map { DeviceSpec(name: "d\($0)") }
    return spec
  }

  @Test func devicesGivenOneWorkloadShareItsStorage() {
    var spec = world(5)
    spec.setWorkload(Workload(editsPerHour: 3), of: [0, 1, 2, 3])
    spec.setUsage(UsageModel(sessionsPerDay: 4), of: [1, 2, 3, 4])
    #expect(spec.devices.map { $0.workload?.editsPerHour } == [3, 3, 3, 3, nil])
    #expect(spec.devices.map { $0.usage?.sessionsPerDay } == [nil, 4, 4, 4, 4])
    #expect(spec.devices[3].sharesSchedules(with: spec.devices[0]) == (true, false))
    #expect(spec.devices[4].sharesSchedules(with: spec.devices[1]) == (false, true))
  }

  @Test func aLaterEntryOrAChangeTakesOnlyItsDevicesAway() {
    var spec = world(4)
    spec.setWorkload(Workload(editsPerHour: 3), of: [0, 1, 2, 3])
    spec.setWorkload(Workload(editsPerHour: 7), of: [2, 3])
    spec.devices[1].workload?.insertShare = 0.9
    #expect(spec.devices.map { $0.workload?.editsPerHour } == [3, 3, 7, 7])
    #expect(spec.devices.map { $0.workload?.insertShare } == [0.3, 0.9, 0.3, 0.3])
    #expect(spec.devices[3].sharesSchedules(with: spec.devices[2]).workload)
    #expect(!spec.devices[1].sharesSchedules(with: spec.devices[0]).workload)
  }
}
