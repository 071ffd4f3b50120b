import Foundation
import SimTestSupport
import Testing

/// CKSyncEngine beside Core Data (issue 35): the same world under each client, with the numbers
/// that tell them apart.
@Suite struct SyncEngineTests {
  /// Two devices in the foreground, the iPhone inserting at 60 s; pushes take a constant 2 s.
  func twoDevices(client: String, engine: String = "{}", timeline: String = "", push: String = "{}") -> String {
    #"""
    {"version": 1, "name": "pair", "duration": "1h",
     "push": \#(push == "{}" ? #"{"fanoutLatency": {"constant": "2s"}}"# : push),
     "devices": [{"name": "iphone", "client": "\#(client)"\#(client == "syncEngine" ? #", "syncEngine": \#(engine)"# : "")},
                 {"name": "ipad", "client": "\#(client)"\#(client == "syncEngine" ? #", "syncEngine": \#(engine)"# : "")}],
     "timeline": [{"at": "60s", "devices": "iphone", "action": {"edit": "insert"}}\#(timeline)],
     "outputs": ["summary", "latency", "activities"]}
    """#
  }

  @Test func inGoodConditionsAnEngineWriteIsVisibleInSecondsWithoutTheExportDelay() throws {
    try withTemporaryDirectory { directory in
      let engine = try WorldRun(twoDevices(client: "syncEngine"))
      let coreData = try WorldRun(twoDevices(client: "coreData"))
      #expect(engine.code == 0 && coreData.code == 0)
      let engineRow = try #require(try engine.table("latency.csv").rows.first)
      let coreDataRow = try #require(try coreData.table("latency.csv").rows.first)
      let engineLatency = try #require(engineRow.number("latency"))
      let coreDataLatency = try #require(coreDataRow.number("latency"))
      // Visible within a few seconds: dasd's decision (~0.3 s), its hop (0.095 s), the request,
      // the 2 s push and the fetch's hop.
      #expect(engineLatency < 4, "\(engineLatency) s")
      // The send starts without TN3163's 1 s export start delay: Core Data's export waits longer
      // by about that second.
      let engineSchedule = try #require(engineRow.number("exportSchedule"))
      let coreDataSchedule = try #require(coreDataRow.number("exportSchedule"))
      #expect(engineSchedule < 0.9, "\(engineSchedule) s")
      #expect(coreDataSchedule >= 1.0, "\(coreDataSchedule) s")
      #expect(engineLatency < coreDataLatency)
      // The engine's push fetch starts at once in the running app: no dasd decision.
      let pushFetch = try #require(
        try engine.table("activities.csv").rows.first { $0["device"] == "ipad" && $0["trigger"] == "push" })
      #expect(pushFetch.number("requestedAt") == pushFetch.number("startedAt"))
    }
  }

  @Test func aSaveJustBeforeBackgroundingWaitsForTheNextActivationUnlessTheAppSendsOnResign() throws {
    try withTemporaryDirectory { directory in
      let timeline =
        #", {"at": "179.8s", "devices": "iphone", "action": {"edit": "update"}}"#
        + #", {"at": "180s", "devices": "iphone", "action": "background"}"#
        + #", {"at": "900s", "devices": "iphone", "action": "activate"}"#
      let held = try WorldRun(twoDevices(client: "syncEngine", timeline: timeline))
      let sent = try WorldRun(
        twoDevices(client: "syncEngine", engine: #"{"sendOnResign": true}"#, timeline: timeline))
      #expect(held.code == 0 && sent.code == 0)
      let update = { (run: WorldRun) in
        try #require(try run.table("latency.csv").rows.first { $0["kind"] == "update" })
      }
      // Held: committed only after the activation at 900 s, the wait under the engine's hold.
      let heldRow = try update(held)
      #expect(try #require(heldRow.number("committedAt")) > 900)
      let hold = try #require(heldRow.number("exportBlocked.syncEngineBackground"))
      #expect(abs(hold - (900 - 180)) < 2, "\(hold) s")
      // Sent on resign: committed within seconds of the backgrounding, visible on the iPad.
      let sentRow = try update(sent)
      #expect(try #require(sentRow.number("committedAt")) < 182)
      #expect(try #require(sentRow.number("latency")) < 5)
      #expect(sentRow.number("exportBlocked.syncEngineBackground") == 0)
    }
  }

  @Test func anAppBatchOverTheServerLimitGetsLimitExceededAndStaysPending() throws {
    try withTemporaryDirectory { directory in
      let bulk = { (client: String, batch: Int?) in
        #"""
        {"version": 1, "name": "bulk", "duration": "30m",
         "devices": [{"name": "iphone", "client": "\#(client)"\#(batch.map { #", "syncEngine": {"batchRecords": \#($0)}"# } ?? "")},
                     {"name": "ipad", "client": "\#(client)"}],
         "timeline": [{"at": "60s", "devices": "iphone", "action": {"bulkInsert": {"count": 1360, "saves": "one"}}}]}
        """#
      }
      let appBatch = try WorldRun(bulk("syncEngine", 1360))
      let helper = try WorldRun(bulk("syncEngine", nil))
      let coreData = try WorldRun(bulk("coreData", nil))
      #expect(appBatch.code == 0 && helper.code == 0 && coreData.code == 0)
      // One request of 1,360 records: limitExceeded, the round ends, nothing commits, no retry.
      #expect(try appBatch.summary("errors.limitExceeded") == 1)
      #expect(try appBatch.summary("writesCommitted") == 0)
      #expect(try appBatch.summary("writesPending") == 1360)
      // The refused request saved nothing, but it was sent: it counts, with its bytes (issue 54);
      // one export failed.
      #expect(try appBatch.summary("requestsUp") == 1)
      #expect(try appBatch.summary("bytesUp") ?? 0 > 100_000)
      #expect(try appBatch.summary("exportsFailed") == 1)
      // The helper's 250-record batches: six requests, all committed.
      #expect(try helper.summary("errors.limitExceeded") == 0)
      #expect(try helper.summary("writesCommitted") == 1360)
      #expect(try helper.summary("requestsUp") == 6)
      // Core Data's exporter cuts at 400 records: four requests.
      #expect(try coreData.summary("writesCommitted") == 1360)
      #expect(try coreData.summary("requestsUp") == 4)
    }
  }

  @Test func aManualFetchChangesStartsAtOnce() throws {
    try withTemporaryDirectory { directory in
      // Every push is lost: the iPad learns of the insert only when the app fetches, at 300 s.
      let run = try WorldRun(
        twoDevices(
          client: "syncEngine", timeline: #", {"at": "300s", "devices": "ipad", "action": "fetchChanges"}"#,
          push: #"{"dropProbability": 1}"#))
      #expect(run.code == 0)
      let manual = try #require(try run.table("activities.csv").rows.first { $0["trigger"] == "manual" })
      #expect(manual.number("requestedAt") == 300)
      #expect(manual.number("startedAt") == 300)
      let row = try #require(try run.table("latency.csv").rows.first)
      let visible = try #require(row.number("visibleAt"))
      #expect(visible > 300 && visible < 302, "\(visible) s")
    }
  }

  @Test func aCrashInsideTheStateLagLosesThePendingChangesAndSendsNothing() throws {
    // Offline from 30 s, so the change stays pending; the app crashes 5 s (inside the 10 s lag)
    // or 20 s (outside) after the save, and is launched online at 120 s (`HeldCauseTests.crash`).
    let inside = try WorldRun(HeldCauseTests.crash(at: "65s"))
    let outside = try WorldRun(HeldCauseTests.crash(at: "80s"))
    #expect(inside.code == 0 && outside.code == 0)
    #expect(try inside.summary("writesLost") == 1)
    #expect(try inside.summary("writesCommitted") == 0)
    #expect(try inside.summary("recordsUp") == 0)
    let lost = try #require(try inside.table("latency.csv").rows.first)
    #expect(lost["outcome"] == "lost")
    #expect(lost["stuckCause"] == "stateNotPersisted")
    // Written before the crash: the launch sends it.
    #expect(try outside.summary("writesLost") == 0)
    #expect(try outside.summary("writesCommitted") == 1)
    #expect(try outside.summary("recordsUp") == 1)
  }

  @Test func aRecordSavedOutsideTheEngineIsNotFetchedUntilRelaunch() throws {
    try withTemporaryDirectory { directory in
      // The iPhone's app saves a record with its own CloudKit call at 5 min (as
      // UICloudSharingController saves a CKShare); the Mac edits at 10 min; the iPhone's app
      // calls fetchChanges at 15 min, and with `relaunch` is terminated at 40 min and launched at 45.
      let scenario = { (relaunch: Bool) in
        #"""
        {"version": 1, "name": "outside", "duration": "1h",
         "devices": [{"name": "iphone", "client": "syncEngine"},
                     {"name": "mac", "client": "syncEngine", "suspendsInBackground": false}],
         "timeline": [{"at": "60s", "devices": "iphone", "action": {"edit": "insert"}},
                      {"at": "5m", "devices": "iphone", "action": "saveOutsideEngine"},
                      {"at": "10m", "devices": "mac", "action": {"edit": "update"}},
                      {"at": "15m", "devices": "iphone", "action": "fetchChanges"}\#(relaunch
                        ? #", {"at": "40m", "devices": "iphone", "action": "terminate"}, {"at": "45m", "devices": "iphone", "action": "launch"}"#
                        : "")],
         "outputs": ["summary", "latency", "activities"]}
        """#
      }
      let stale = try WorldRun(scenario(false))
      let relaunched = try WorldRun(scenario(true))
      #expect(stale.code == 0 && relaunched.code == 0)
      // The Mac sees the save at once (committed at 5 min); the Mac's own edit reaches the iPhone.
      let rows = try stale.table("latency.csv").rows
      let outside = try #require(rows.first { $0["writer"] == "iphone" && $0["kind"] == "update" })
      #expect(outside.number("committedAt") == 300)
      #expect(outside["outcome"] == "visible")
      #expect(rows.allSatisfy { $0["outcome"] == "visible" })
      // The iPhone's store never holds it, fetchChanges or not: the run does not converge.
      #expect(try stale.summary("converged") == 0)
      // Launched again at 45 min, the engine fetches it: converged 35 min after the last write.
      #expect(try relaunched.summary("converged") == 1)
      #expect(try relaunched.summary("convergenceTime") == 35 * 60)
      let own = try relaunched.table("activities.csv").rows.filter {
        $0["trigger"] == "manual" && $0["device"] == "iphone"
      }
      #expect(own.map { $0["kind"] } == ["export", "import", "import"])
      // Core Data has no engine to go around.
      let coreData = try ScenarioRun(
        #"{"version": 1, "name": "cd", "devices": [{"name": "a"}], "timeline": [{"at": "1m", "devices": "a", "action": "saveOutsideEngine"}]}"#,
        named: "cd", in: directory)
      #expect(coreData.code == 65 && coreData.err.contains("bypasses its engine"), "\(coreData.err)")
    }
  }

  @Test func aPublicDatabaseStoreOnTheEngineIsRefused() throws {
    try withTemporaryDirectory { directory in
      let text = #"""
        {"version": 1, "name": "public", "duration": "1h",
         "devices": [{"name": "reader", "client": "syncEngine", "stores": ["public"]},
                     {"name": "author", "stores": ["public"]}],
         "timeline": [{"at": "1m", "devices": "author", "action": "sendChanges"}]}
        """#
      let run = try ScenarioRun(text, named: "public", in: directory)
      #expect(run.code != 0)
      #expect(run.err.contains("devices[0].stores[0]"), "\(run.err)")
      #expect(run.err.contains("CKSyncEngine does not sync a public database"))
      // Every problem at once: Core Data has no sendChanges.
      #expect(run.err.contains("Core Data has no sendChanges"), "\(run.err)")
      #expect(!FileManager.default.fileExists(atPath: run.folder))
    }
  }

  @Test func aMixedZoneWithManyToManyRelationshipsIsRefused() throws {
    try withTemporaryDirectory { directory in
      let text = #"""
        {"version": 1, "name": "mixed", "duration": "1h",
         "model": {"entities": [{"name": "Item", "manyToManyLinks": 1}]},
         "devices": [{"name": "iphone"}, {"name": "mac", "client": "syncEngine"}]}
        """#
      let run = try ScenarioRun(text, named: "mixed", in: directory)
      #expect(run.code != 0)
      #expect(run.err.contains("CDMR join records"), "\(run.err)")
      // Without them the two clients share the zone: the Mac on the engine sees the iPhone's write.
      let plain = try ScenarioRun(
        #"""
        {"version": 1, "name": "mixed", "duration": "1h",
         "devices": [{"name": "iphone"}, {"name": "mac", "client": "syncEngine", "suspendsInBackground": false}],
         "timeline": [{"at": "60s", "devices": "iphone", "action": {"edit": "insert"}}]}
        """#, named: "plain", in: directory)
      #expect(plain.code == 0, "\(plain.err)")
      #expect(try plain.summary("rowsVisible") == 1)
      #expect(try plain.summary("converged") == 1)
      let row = try #require(try plain.table("latency.csv").rows.first)
      #expect(row["writerClient"] == "coreData" && row["observerClient"] == "syncEngine")
      // The report draws each client's observers apart.
      #expect(syncsim("report", plain.folder).code == 0)
      let page = try String(contentsOfFile: plain.folder + "/report.html", encoding: .utf8)
      #expect(page.contains("mac (syncEngine)"))
    }
  }
}
