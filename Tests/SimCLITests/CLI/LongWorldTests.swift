import Foundation
import SimTestSupport
import Testing

import SimKernel
@testable import SimScenario

/// Issue 53, item 5: valid worlds at long-duration corners run to their end and print their
/// summary. Each trapped (SIGILL) when the summary added the rows' waits in 64-bit nanoseconds:
/// stuck rows' time to the end of a long run passes 2^63 ns (292 years) summed over rows.
@Suite struct LongWorldTests {
  func run(_ document: [String: Any]) throws -> (code: Int32, out: String, err: String) {
    try withTemporaryDirectory { directory in
      let file = directory + "/w.json"
      try JSONSerialization.data(withJSONObject: document, options: [.sortedKeys])
        .write(to: URL(fileURLWithPath: file))
      return syncsim(["run", file, "--out", directory + "/out"])
    }
  }

  func world(days: Int, _ extra: [String: Any]) -> [String: Any] {
    var document: [String: Any] = [
      "version": 1, "name": "long", "seed": 1, "duration": "\(days)d",
      "devices": [["name": "iphone"], ["name": "ipad"]],
    ]
    for (key, value) in extra { document[key] = value }
    return document
  }

  @Test func aDeviceOfflineForMoreThanAYearPrintsItsWaits() throws {
    // The campaign's world was ten years at an edit an hour; 400 days pass 64 bits the same way
    // in a tenth of the events (a debug build runs this test).
    let offline = world(
      days: 400,
      [
        "workloads": [["devices": "ipad", "editsPerHour": 1]],
        "timeline": [["at": 0, "devices": "ipad", "action": "goOffline"]],
      ])
    let stuck = try run(offline)
    #expect(stuck.code == 0, "\(stuck.err)")
    // About 9,600 rows stuck for 200 days on average: some 1.9e6 row-days, where 64 bits of
    // nanoseconds hold 106,751 days.
    let waits = stuck.out.split(separator: "\n").first { $0.hasPrefix("waits") } ?? ""
    #expect(waits.contains("exportBlocked.network 100 %"), "\(stuck.out)")
    let days = waits.split(separator: "(").dropFirst().first.flatMap { Double($0.prefix { $0 != "d" }) } ?? 0
    #expect(days > 106_751, "\(stuck.out)")
    var online = offline
    online["timeline"] = [
      ["at": 0, "devices": "ipad", "action": "goOffline"], ["at": "399d", "devices": "ipad", "action": "goOnline"],
    ]
    let visible = try run(online)
    #expect(visible.code == 0, "\(visible.err)")
    #expect(visible.out.contains("convergence  converged"), "\(visible.out)")
  }

  @Test func aReceiverForceQuitForTenYearsPrintsItsWaits() throws {
    // The campaign's world was 60 days at 20 edits an hour; ten years at one edit in four days
    // passes 64 bits the same way (876 rows stuck for five years on average), in far fewer events.
    let result = try run(
      world(
        days: 3650,
        [
          "workloads": [["devices": "iphone", "editsPerHour": 0.01, "foregroundOnly": true]],
          "timeline": [["at": 0, "devices": "ipad", "action": "forceQuit"]],
        ]))
    #expect(result.code == 0, "\(result.err)")
    #expect(result.out.contains("notify.notRunning"), "\(result.out)")
  }

  @Test func byHourWeightsAreBounded() throws {
    var document = world(days: 1, ["start": "07:00"])
    document["usage"] = [["devices": "all", "sessionsPerDay": 8, "byHour": [1e308] + Array(repeating: 1, count: 23)]]
    let refused = try run(document)
    #expect(refused.code == 65)
    #expect(refused.err.contains("usage[0].byHour[0]"), "\(refused.err)")
    document["usage"] = [["devices": "all", "sessionsPerDay": 8, "byHour": [1e6] + Array(repeating: 1, count: 23)]]
    #expect(try run(document).code == 0)
  }

  @Test func aSumPastWhatASimDurationHoldsIsShownInDays() {
    #expect(DurationText.display(seconds: 1.5e16) == "173611111111.1d")
    #expect(DurationText.display(seconds: 90) == DurationText.display(SimDuration(seconds: 90)))
  }
}
