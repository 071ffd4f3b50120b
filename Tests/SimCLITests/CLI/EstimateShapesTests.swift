import Foundation
import SimTestSupport
import Testing

@testable import SimCLI
@testable import SimScenario

/// Shapes the estimate missed (issue 71, items 7, 9 and 10): a CKSyncEngine account's pushed
/// rows, a public zone whose reader replays a bulk writer's pages, timeline entries, and the
/// kernel's time for the memory a run touches.
@Suite struct EstimateShapesTests {
  func decode(_ text: String) throws -> Scenario {
    try ScenarioDecoder.decode(Array(text.utf8), file: "s.json", acceptLarge: true).0
  }

  /// A CKSyncEngine device takes each pushed row with a fetch of its own: about 4.9 events a
  /// row, where a Core Data device's is 0.35. 100 devices of one account for an hour, counted
  /// against the run (the estimate was 10x low for 1,000 such devices).
  @Test func aSyncEngineAccountsEventsAreEstimatedFromItsPushedRows() throws {
    for (client, low, high) in [("syncEngine", 0.9, 1.6)] {
      let scenario = try decode(
        """
        {"version": 1, "name": "engine", "seed": 1, "duration": "1h", "outputs": ["summary"],
         "devices": [{"name": "d", "count": 100, "client": "\(client)"}],
         "workloads": [{"devices": "all", "editsPerHour": 6}]}
        """)
      let estimate = RunEstimate(scenario)
      let events = Double(ScenarioRunner.run(scenario, jobs: 2, summaryOnly: true).outcome.processedEvents)
      #expect(estimate.events / events > low && estimate.events / events < high, "\(client): \(estimate.events) for \(events)")
    }
  }

  /// A bulk writer's objects paged into a public zone that a reader replays: 175 B and 0.45 µs
  /// each more than with no reader, and each byte of memory 2.5 ns of the kernel's time.
  @Test func aReplayedReaderOfABulkWritersZoneAddsItsPageLog() throws {
    func world(reader: Bool) throws -> RunEstimate {
      let devices = #"{"name": "author", "stores": ["public"]}"# + (reader ? #", {"name": "reader", "stores": ["public"]}"# : "")
      return RunEstimate(
        try decode(
          """
          {"version": 1, "name": "bulk", "seed": 1, "duration": "1d", "outputs": ["summary"], "devices": [\(devices)],
           "timeline": [{"at": "1m", "devices": "author", "action": {"bulkInsert": {"count": 100000}}}]}
          """))
    }
    let (alone, read) = (try world(reader: false), try world(reader: true))
    #expect(read.memoryBytes - alone.memoryBytes >= 175 * 100_000, "\(alone.memoryBytes) \(read.memoryBytes)")
    let seconds = read.seconds - alone.seconds - RunEstimate.Cost.secondsPerEvent * (read.events - alone.events)
    let memory = RunEstimate.Cost.secondsPerMemoryByte * (read.memoryBytes - alone.memoryBytes)
    #expect(abs(seconds - memory - 0.45e-6 * 100_000) < 1e-3, "\(seconds) \(memory)")
    #expect(alone.seconds > RunEstimate.Cost.secondsPerMemoryByte * alone.memoryBytes)
  }

  /// Each timeline entry costs its decoding and its line in the resolved scenario: 15 µs.
  @Test func timelineEntriesAddTheirDecoding() throws {
    func world(entries: Int) throws -> RunEstimate {
      let timeline = (0..<entries).map { #"{"at": "\#(60 + $0)s", "devices": "ipad", "action": "activate"}"# }
      return RunEstimate(
        try decode(
          """
          {"version": 1, "name": "t", "seed": 1, "duration": "1d", "outputs": ["summary"],
           "devices": [{"name": "iphone"}, {"name": "ipad"}], "timeline": [\(timeline.joined(separator: ","))]}
          """))
    }
    let (none, many) = (try world(entries: 0), try world(entries: 2_000))
    let seconds =
      many.seconds - none.seconds - RunEstimate.Cost.secondsPerEvent * (many.events - none.events)
      - RunEstimate.Cost.secondsPerMemoryByte * (many.memoryBytes - none.memoryBytes)
    #expect(abs(seconds - 2_000 * 15e-6) < 1e-6, "\(seconds)")
  }
}
