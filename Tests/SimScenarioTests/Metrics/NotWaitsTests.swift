import Foundation
import SimKernel
import SimTestSupport
import Testing

@testable import SimMetrics

/// Issue 54, items 3 and 4 (in part): a ghost row (a public delete a reader never fetches) has
/// its own notify cause, `notify.ghost`, so the stage's identity holds on it; ghost and hidden
/// time (a record type an old model never reads) is not a wait any sync shortens: it leaves the
/// `waits` line, whose first cause was "notify" (54 %) in public-production and "download"
/// (100 %) in mixed-model-versions, and is told on a line of its own.
@Suite struct NotWaitsTests {
  @Test func ghostRowsSplitTheirNotifyAsTheirOwnCause() throws {
    let recorder = try WorldRun.recorder(library: "public-production")
    var ghosts = 0
    recorder.forEachLatencyRow { row in
      guard row.stuckCause == MetricsRecorder.RowSource.ghost else { return }
      ghosts += 1
      let causes = recorder.notifyCauses(row)
      #expect(causes?.reduce(.zero, +) == row.stages.notify)
      #expect(causes?[LatencyRow.notifyCauseNames.firstIndex(of: "ghost")!] == row.stages.notify)
    }
    #expect(ghosts >= 5, "\(ghosts) ghosts")
    #expect(recorder.auditRows().failures.isEmpty)
  }

  @Test func ghostAndHiddenTimeLeaveTheWaits() throws {
    try withTemporaryDirectory { directory in
      let public_ = syncsim(["run", packageRoot + "/Scenarios/public-production.json", "--out", directory + "/p"])
      let waits = try #require(public_.out.split(separator: "\n").first { $0.hasPrefix("waits") }, "\(public_.out)")
      #expect(waits.hasPrefix("waits        notify.pollWait "), "\(waits)")
      #expect(!waits.contains("ghost") && !waits.contains("notify "), "\(waits)")
      #expect(public_.out.contains("not waits    ghost rows "), "\(public_.out)")

      let mixed = syncsim(["run", packageRoot + "/Scenarios/mixed-model-versions.json", "--out", directory + "/m"])
      let mixedWaits = try #require(mixed.out.split(separator: "\n").first { $0.hasPrefix("waits") }, "\(mixed.out)")
      #expect(!mixedWaits.contains("download 100 %") && mixedWaits.hasPrefix("waits        notify.fanout"), "\(mixedWaits)")
      #expect(mixed.out.contains("not waits    hidden rows 17.2d"), "\(mixed.out)")

      // latency.csv carries the column, and a ghost's notify is in it.
      let text = try String(contentsOfFile: directory + "/p/latency.csv", encoding: .utf8)
      let table = try #require(CSVTable.parse(text))
      let ghost = try #require(table.columns.firstIndex(of: "notify.ghost"))
      let cause = try #require(table.columns.firstIndex(of: "stuckCause"))
      let notify = try #require(table.columns.firstIndex(of: "notify"))
      let ghostRows = table.rows.filter { $0[cause] == "ghost" }
      #expect(!ghostRows.isEmpty && ghostRows.allSatisfy { $0[ghost] == $0[notify] })
    }
  }
}
