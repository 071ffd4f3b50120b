import Foundation
import SimTestSupport
import Testing
import SimScenario

/// Mass deletes (issue 56, item 7): `{"bulkDelete": {...}}` deletes in one save or one each;
/// the export carries deletes in the same modify requests as saves, saves plus deletes against
/// the 400-item limit, a deleted record costing only its ID ([RE] OpenCloudData's export context).
@Suite struct BulkDeleteTests {
  /// The library scenario, edited, run in-process; its last row is the item added after the clear.
  static func run(_ edits: [(String, String)]) throws -> WorldRun {
    try WorldRun(library: "bulk-delete-then-insert", edits: edits)
  }

  /// The library scenario, edited, through the command (for its messages).
  static func command(_ edits: [(String, String)], in folder: String, named name: String) throws -> ScenarioRun {
    try ScenarioRun(library: "bulk-delete-then-insert", edits: edits, named: name, in: folder)
  }

  static func lastInsertLatency(_ run: WorldRun) throws -> Double {
    let rows = try run.table("latency.csv").rows
    let last = try #require(rows.max { ($0.number("editedAt") ?? 0) < ($1.number("editedAt") ?? 0) })
    #expect(last["kind"] == "insert")
    return try #require(last.number("latency"))
  }

  @Test func anItemAddedAfterAClearWaitsBehindTheDeletes() throws {
    do {
      // The library's 20,000 items cut to 4,000 (a debug build's test time); `check` runs 20,000.
      let smaller = [(#"{"count": 20000}"#, #"{"count": 4000}"#)]
      let clear = try Self.run(
        smaller + [(#""rowsVisible", "equals": 40001"#, #""rowsVisible", "equals": 8001"#)])
      #expect(clear.code == 0)
      let noClear = try Self.run(
        smaller + [
          (#"{"at": "1h", "devices": "iphone", "action": {"bulkDelete": {"count": "all"}}},"#, ""),
          (#""rowsVisible", "equals": 40001"#, #""rowsVisible", "equals": 4001"#),
        ])
      #expect(noClear.code == 0)
      let withClear = try Self.lastInsertLatency(clear)
      let alone = try Self.lastInsertLatency(noClear)
      #expect(alone < 10, "\(alone)")
      #expect(withClear > 3 * alone, "\(withClear) against \(alone)")
      // 4,000 deletes: 10 more requests of 400, and 92 bytes (an ID) each, not the records' size.
      let requests = try #require(try clear.summary("requestsUp")) - (try #require(try noClear.summary("requestsUp")))
      let bytes = try #require(try clear.summary("bytesUp")) - (try #require(try noClear.summary("bytesUp")))
      #expect(requests == 10)
      #expect(bytes == 4_000 * 92)
      // Issue 72, item 6: and they come down as IDs too (CKFetchRecordZoneChangesOperation's
      // recordWithIDWasDeletedBlock gives a deleted record's ID and type, not its fields): the
      // iPad's download grows by 92 bytes a delete (it was 444, a whole record).
      let down = try #require(try clear.summary("bytesDown")) - (try #require(try noClear.summary("bytesDown")))
      // (pages apportion a download's bytes by their records in whole bytes: 4 bytes lost to rounding)
      #expect(abs(down - 4_000 * 92) <= 8, "\(down)")
    }
  }

  @Test func deletesSavedOneByOneSpreadOverTheirTime() throws {
    do {
      let each = try Self.run(
        [(#"{"count": 20000}"#, #"{"count": 2000}"#),
         (#"{"count": "all"}"#, #"{"count": 1000, "saves": "each", "over": "10m"}"#),
         (#""at": "1h0m1s""#, #""at": "1h10m1s""#),
         (#""rowsVisible", "equals": 40001"#, #""rowsVisible", "equals": 3001"#),
         (#""requestsUp", "max": 110"#, #""requestsUp", "max": 100000"#)])
      #expect(each.code == 0)
      let rows = try each.table("latency.csv").rows.filter { $0["kind"] == "delete" && $0["observer"] == "ipad" }
      #expect(rows.count == 1000)
      let edited = rows.compactMap { $0.number("editedAt") }
      // One delete every 600 s / 1,000 = 0.6 s, from 1 h; the first 1,000 of the 2,000 objects.
      #expect(abs((edited.min() ?? 0) - 3600) < 0.001)
      #expect(abs((edited.max() ?? 0) - (3600 + 999 * 0.6)) < 0.01)
      #expect(try #require(try each.summary("exports")) > 20)
    }
  }

  @Test func aBulkDeleteThatNamesTooFewObjectsDeletesWhatThereIs() throws {
    do {
      let run = try Self.run(
        [(#"{"count": 20000}"#, #"{"count": 2000}"#), (#"{"count": "all"}"#, #"{"count": 1000000}"#),
         (#""rowsVisible", "equals": 40001"#, #""rowsVisible", "equals": 4001"#)])
      #expect(run.code == 0)
      let deletes = try run.table("latency.csv").rows.filter { $0["kind"] == "delete" }
      #expect(deletes.count == 2_000)
    }
  }

  @Test func badBulkDeletesAreRefusedWithTheirPath() throws {
    try withTemporaryDirectory { folder in
      let run = try Self.command(
        [(#"{"count": "all"}"#, #"{"count": "some", "saves": "many"}"#)], in: folder, named: "bad")
      #expect(run.code == 65, "\(run.code)")
      #expect(run.err.contains("timeline[1].action.bulkDelete.count: unknown value \"some\""), "\(run.err)")
      #expect(run.err.contains("timeline[1].action.bulkDelete.saves: unknown value \"many\""), "\(run.err)")
      let zero = try Self.command([(#"{"count": "all"}"#, #"{"count": 0}"#)], in: folder, named: "zero")
      #expect(zero.code == 65 && zero.err.contains("bulkDelete.count"), "\(zero.err)")
      let beside = try Self.command(
        [(#"{"bulkDelete": {"count": "all"}}"#, #"{"bulkDelete": {"count": "all"}, "store": 0}"#)], in: folder,
        named: "beside")
      #expect(beside.code == 65, "\(beside.err)")
      #expect(beside.err.contains(#"write {"bulkDelete": {"count": 100, "store": 1}}"#), "\(beside.err)")
    }
  }
}

/// Saves in batches (issue 73, item 9): `"saves": 500` makes one save of 500 objects a batch,
/// spread over `over`, as an app imports 50,000 records; a bulk delete's batches need a count.
@Suite struct BulkBatchTests {
  @Test func aBatchSizeMakesOneSaveABatchSpreadOverTheTime() throws {
    let text = #"""
      {"version": 1, "name": "batches", "duration": "2h", "devices": [{"name": "iphone"}, {"name": "ipad"}],
       "timeline": [{"at": "1m", "devices": "iphone", "action": {"bulkInsert": {"count": 50000, "saves": 500, "over": "10m"}}},
                    {"at": "30m", "devices": "iphone", "action": {"bulkDelete": {"count": 1200, "saves": 500}}}]}
      """#
    let (scenario, problems) = try ScenarioDecoder.decode(Array(text.utf8), file: "b.json")
    #expect(problems.isEmpty)
    let inserts = scenario.spec.timeline.compactMap { entry -> (Double, Int)? in
      if case .bulkInsert(let count, _, true, _) = entry.action { return (entry.at.seconds, count) }
      return nil
    }
    #expect(inserts.count == 100)
    #expect(inserts.allSatisfy { $0.1 == 500 })
    #expect(inserts[0].0 == 60 && inserts[1].0 == 66 && inserts[99].0 == 60 + 99 * 6)
    let deletes = scenario.spec.timeline.compactMap { entry -> Int? in
      if case .bulkDelete(let count?, _, true, _) = entry.action { return count }
      return nil
    }
    #expect(deletes == [500, 500, 200])
    let run = try WorldRun(text)
    #expect(run.code == 0)
    #expect(try run.table("summary.csv").rows[0]["writes"] == "51200")
  }

  @Test func batchesOfAnUncountedDeleteAreAProblem() throws {
    let text = #"""
      {"version": 1, "name": "batches", "duration": "2h", "devices": [{"name": "iphone"}],
       "timeline": [{"at": "1m", "devices": "iphone", "action": {"bulkDelete": {"saves": 500}}}]}
      """#
    #expect(throws: ScenarioProblems.self) { try ScenarioDecoder.decode(Array(text.utf8), file: "b.json") }
  }
}
