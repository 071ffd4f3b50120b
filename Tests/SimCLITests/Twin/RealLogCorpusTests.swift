import Foundation
import SimTestSupport
import Testing

@testable import SimTwin

/// Logs real developers and Apple printed (issue 77, item 3): excerpts from public issues,
/// forums, pastes, notes and Apple's technotes, in the forms they were pasted, identifiers
/// anonymized (`Fixtures/real-logs/README.md` links each). Each test states what a person reads
/// in the excerpt and checks that `trace` reads the same: its events, their times, its failures.
@Suite struct RealLogCorpusTests {
  static let folder = packageRoot + "/Tests/SimCLITests/Fixtures/real-logs/"

  static func read(_ name: String, _ options: SyncLogReader.Options = SyncLogReader.Options()) throws -> SyncLog {
    try SyncLogReader.read([folder + name], options: options)
  }

  static func seconds(_ a: Int64, _ b: Int64) -> Double { Double(b - a) / 1e6 }

  /// Xcode's console as copied (iOS 18 simulator): the setup runs, the account is "No account",
  /// the setup fails with 134400, recovery fails, the request ends with success 0. Xcode prints
  /// each error twice; a person counts one failure.
  @Test func anXcodePasteOfAFailedSetupIsOneFindingNamed134400() throws {
    let log = try Self.read("xcode-setup-no-account.log")
    #expect(log.problems.isEmpty)
    #expect(!log.isTimed)
    #expect(log.findings.count == 1)
    let finding = try #require(log.findings.first)
    #expect(finding.work == "setup")
    #expect(finding.domain == "NSCocoaErrorDomain" && finding.code == 134400)
    #expect(finding.name == "no iCloud account")
    #expect(finding.time == nil)
    // The failure, its recovery attempt, the failed recovery and the request's end: four messages.
    #expect(finding.repeats == 4)
    #expect(finding.source.hasPrefix("TN3164"))
    // The three errors printed twice (the setup and the failed recovery over two lines): read once.
    #expect(log.duplicateLines == 5)
    let trace = SyncTrace(log)
    #expect(trace.activities.count == 1)
    #expect(trace.activities[0].work == .setup && trace.activities[0].finishedAt != nil && !trace.activities[0].succeeded)
    #expect(trace.activities[0].error == "NSCocoaErrorDomain 134400")
  }

  /// A GitHub issue's paste: export's partial failure, one record refused with 12/2006 because a
  /// field is not in the production schema.
  @Test func aPartialFailurePasteNamesTheFieldMissingFromTheProductionSchema() throws {
    let log = try Self.read("xcode-partial-failure-schema.log")
    let finding = try #require(log.findings.first)
    #expect(log.findings.count == 1)
    #expect(finding.code == 12 && finding.internalCode == 2006)
    #expect(finding.name == "field not in the production schema")
    #expect(finding.detail.contains("CD_encryptedJSON") && finding.detail.contains("production schema"))
    #expect(finding.action.contains("deploy the schema"))
  }

  @Test func aTeardownSaysSyncStoppedAndWhy() throws {
    let log = try Self.read("xcode-teardown-store-removed.log")
    let finding = try #require(log.findings.first)
    #expect(finding.work == "sync stopped" && finding.detail == "Store Removed")
    #expect(finding.meaning.contains("store was removed"))
  }

  /// TN3163's export, as the technote prints it (wrapped, the date elided): begun at
  /// 14:14:16.621530, 0 objects, finished with success at 16.656785.
  @Test func theTechnotesWrappedExportIsOneExportOf35Milliseconds() throws {
    let log = try Self.read("tn3163-export-printed.log")
    #expect(log.problems.isEmpty)
    let trace = SyncTrace(log)
    #expect(trace.activities.count == 1)
    let export = trace.activities[0]
    #expect(export.work == .export && export.succeeded && export.records == 0)
    #expect(abs(Self.seconds(export.startedAt, export.finishedAt!) - 0.035255) < 1e-6)
    // No date printed: read on 2000-01-01 unless --date says, and said so.
    #expect(log.assumedDateFiles.count == 1)
    var options = SyncLogReader.Options()
    options.date = LogClock.days(year: 2023, month: 12, day: 7)
    options.utcOffsetSeconds = 3600
    let dated = SyncTrace(try Self.read("tn3163-export-printed.log", options))
    #expect(LogClock.text(dated.activities[0].startedAt) == "2023-12-07T13:14:16.621530Z")
  }

  @Test func theTechnotesCancelledExportIs134417() throws {
    let log = try Self.read("tn3163-export-cancelled.log")
    #expect(log.findings.count == 1)
    #expect(log.findings[0].work == "export" && log.findings[0].code == 134417)
    #expect(log.findings[0].action.contains("ignore"))
    #expect(log.events.contains { $0.kind == .finished(.export, succeeded: false, records: nil, error: "NSCocoaErrorDomain 134417") })
  }

  /// dasd's decisions over several lines: Can Proceed, then the activity group, then the rate limit.
  @Test func dasdsWrappedDecisionsAreReadWithTheirPolicies() throws {
    let log = try Self.read("tn3163-dasd-printed.log")
    #expect(log.problems.isEmpty)
    let decisions = log.events.compactMap { event -> (Bool, [String])? in
      if case .decision(.export, let proceeds, let policies) = event.kind { return (proceeds, policies) }
      return nil
    }
    #expect(decisions.count == 3)
    #expect(decisions.map(\.0) == [true, false, false])
    #expect(decisions.map(\.1) == [[], ["activityGroup"], ["rateLimit"]])
  }

  @Test func theTechnotesScheduledImportsNameTheirTriggers() throws {
    let log = try Self.read("tn3163-import-scheduled.log")
    let triggers = log.events.compactMap { event -> String? in
      if case .importRequested(let trigger) = event.kind { return trigger }
      return nil
    }
    #expect(triggers.count == 3)
    #expect(triggers[0] == "poll" && triggers[2] == "push")
    #expect(triggers[1].hasPrefix("Zone-LastFetchDate-com.apple.coredata.cloudkit.zone"))
  }

  @Test func theTechnotesImportTakes695Milliseconds() throws {
    let trace = SyncTrace(try Self.read("tn3163-import-printed.log"))
    #expect(trace.activities.count == 1)
    let imported = trace.activities[0]
    #expect(imported.work == .import && imported.succeeded)
    #expect(abs(Self.seconds(imported.startedAt, imported.finishedAt!) - 0.695138) < 1e-6)
  }

  /// apsd's receipt, CloudKit's handler with its payload over lines, Core Data's handler: one push.
  @Test func theTechnotesPushIsOnePushHandledAfter101Milliseconds() throws {
    let trace = SyncTrace(try Self.read("tn3163-push-printed.log"))
    #expect(trace.pushes.count == 1)
    let push = trace.pushes[0]
    #expect(abs(Self.seconds(push.receivedAt!, push.handledAt!) - 0.101280) < 1e-6)
  }

  /// CKSyncEngine's own logging, compact with the date cut off: a send failed with a partial
  /// failure (the per-record errors private), and the sync that carried it failed.
  @Test func aSyncEnginesFailedSendIsOneFindingAtItsTime() throws {
    var options = SyncLogReader.Options()
    options.date = LogClock.days(year: 2026, month: 8, day: 1)
    let log = try Self.read("compact-cksyncengine-send-failed.log", options)
    #expect(log.findings.count == 1)
    let finding = log.findings[0]
    #expect(finding.work == "send" && finding.code == 2 && finding.repeats == 2)
    #expect(finding.meaning.contains("<private>"))
    #expect(LogClock.text(finding.time!) == "2026-08-01T20:48:27.339000Z")
  }

  /// A 2026 trace of Apple's own CloudKit client: apsd's newer `receivedPushWithTopic`, the
  /// CloudKit listener's handler 13 ms later, dasd's lifecycle for an activity that is not
  /// Core Data's (skipped).
  @Test func theNewerApsdFormIsAPushHandled13MillisecondsLater() throws {
    let log = try Self.read("dated-push-dasd-lifecycle.log")
    #expect(log.problems.isEmpty)
    let trace = SyncTrace(log)
    #expect(trace.pushes.count == 1)
    #expect(abs(Self.seconds(trace.pushes[0].receivedAt!, trace.pushes[0].handledAt!) - 0.013) < 1e-6)
    #expect(log.linesSkipped == 3)
  }

  @Test func aForumsPrivateExportFailureIsAPartialFailure() throws {
    let log = try Self.read("forum-export-failed-private.log")
    #expect(log.findings.count == 1)
    #expect(log.findings[0].work == "export" && log.findings[0].code == 2 && log.findings[0].internalCode == 1011)
  }

  @Test func anAppsPrintedCKErrorsCarryTheirRetryAfter() throws {
    let unavailable = try Self.read("app-ckerror-service-unavailable.log")
    #expect(unavailable.findings.count == 1)
    #expect(unavailable.findings[0].code == 6 && unavailable.findings[0].retryAfterSeconds == 30)
    let limited = try Self.read("app-ckerror-rate-limited.log")
    #expect(limited.findings.map(\.code) == [7, 25])
    #expect(limited.findings[0].retryAfterSeconds == 12)
    #expect(limited.findings[1].name == "quota exceeded")
  }

  @Test func anXcodeConsoleWithDatesGivesTheFailuresTime() throws {
    let log = try Self.read("xcode-metadata-invalid-arguments.log")
    #expect(log.findings.count == 1)
    #expect(log.findings[0].code == 12 && log.findings[0].detail.hasPrefix("You can't save the same record twice"))
    #expect(LogClock.text(log.findings[0].time!) == "2017-08-13T18:52:18.102971Z")
    #expect(log.linesSkipped == 3)
  }

  /// iOS 26's background-task scheduler reports Core Data's activities with an error that is
  /// noise (its own expiry), not a sync failure.
  @Test func theBackgroundTaskSchedulersCode3IsNoise() throws {
    try withTemporaryDirectory { folder in
      let path = folder + "/phone.log"
      try [
        "2026-10-04 03:44:02.522 Df dasd[97:1f] [com.apple.BackgroundSystemTasks:scheduling] com.apple.coredata.cloudkit.activity.export.A73C42D5-ADEE-4758-B2A1-F75DEBF93702: Error Domain=BGSystemTaskSchedulerErrorDomain Code=3",
        "2026-10-04 03:44:03.000 Df App[12:1f] [com.apple.coredata:CloudKit] CoreData+CloudKit: Observed context save: -",
      ].joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
      let log = try SyncLogReader.read([path])
      #expect(log.findings.isEmpty)
      #expect(log.problems.isEmpty)
      #expect(log.events.count == 1)
    }
  }

  @Test func developersNotesOfFailedSetupsAreFindings() throws {
    let account = try Self.read("notes-setup-no-account.log")
    #expect(account.findings.count == 1 && account.findings[0].code == 134400)
    let zone = try Self.read("notes-zone-rejected.log")
    #expect(zone.findings.count == 1)
    #expect(zone.findings[0].work == "setup" && zone.findings[0].code == 2)
    #expect(zone.findings[0].records == ["15/2000 Server Rejected Request"])
    #expect(zone.findings[0].name == "partial failure: server rejected request")
  }

  /// The whole corpus through `syncsim trace`: every excerpt gets an answer (exit 0), and a log
  /// whose sync lines are all failures writes its findings.
  @Test func everyExcerptGetsAnAnswer() throws {
    let names = try FileManager.default.contentsOfDirectory(atPath: Self.folder).filter { $0.hasSuffix(".log") }.sorted()
    #expect(names.count >= 15)
    try withTemporaryDirectory { out in
      for name in names {
        let result = syncsim("trace", Self.folder + name, "--out", out + "/" + name)
        #expect(result.code == 0, "\(name): \(result.err)")
      }
      let findings = try ResultTable(path: out + "/xcode-setup-no-account.log/findings.csv").rows
      #expect(findings.count == 1)
      #expect(findings[0]["code"] == "134400" && findings[0]["work"] == "setup" && findings[0]["time"] == "")
      // The report of a log that is all failure: what the log cannot see, and what failed.
      #expect(syncsim("report", out + "/xcode-setup-no-account.log").code == 0)
      let page = try String(contentsOfFile: out + "/xcode-setup-no-account.log/report.html", encoding: .utf8)
      #expect(page.contains("What failed") && page.contains("134400") && page.contains("no iCloud account"))
      #expect(page.contains("The log has no times") && page.contains("no scheduler (dasd) lines"))
      // No empty field in the header: a trace has no seed, hash or fingerprint.
      #expect(!page.contains("<code></code>") && !page.contains("seed  ·"))
      // What the log cannot see is said as such, never as "nothing waited".
      #expect(!page.contains("No activity waited") && page.contains("the policies that held exports and imports are unknown, so nothing is drawn"))
      #expect(!page.contains(">none<"))
      let printed = syncsim("trace", Self.folder + "app-ckerror-rate-limited.log", "--out", out + "/printed")
      #expect(printed.out.contains("finding      app-ckerror-rate-limited message 1"))
      #expect(printed.out.contains("retry after 12 s"))
    }
  }
}
