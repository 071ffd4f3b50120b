import Foundation
import SimTestSupport
import Testing

@testable import SimCLI
@testable import SimTwin

/// The round trip of issue 57: a scenario with known parameters, the logs its run leaves, and
/// back: the trace gives the run's rows, and the fit's intervals hold the known values.
@Suite(.serialized) struct TwinFitTests {
  /// Quickstart for `hours`: two devices, ten saves an hour each. (Small: the tests run in a
  /// debug build; `syncsim bench fit` fits a week's log, and `bench sbc` calibrates.)
  static func base(_ folder: String, hours: Int = 24, extra: String = "") throws -> String {
    let text = try String(contentsOfFile: packageRoot + "/Scenarios/quickstart.json", encoding: .utf8)
      .replacingOccurrences(of: "\"6h\"", with: "\"\(hours)h\"")
      .replacingOccurrences(of: "\"seed\": 1,", with: "\"seed\": 1,\(extra)")
    let path = folder + "/base.json"
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    return path
  }

  @Test func theTraceOfARunsEventLogGivesTheRunsRows() throws {
    try withTemporaryDirectory { folder in
      let scenario = try Self.base(folder, hours: 6)
      let run = syncsim("run", scenario, "--out", folder + "/run", "--event-log")
      #expect(run.code == 0)
      // SyncSim's event log, `log show`'s default form and the Xcode console's (issue 77, item 4:
      // messages over several lines, errors printed twice, no dasd or apsd in Xcode's).
      for logs in [["event-log.ndjson"], ["unified-iphone.log", "unified-ipad.log"], ["xcode-iphone.log", "xcode-ipad.log"]] {
        let traced = syncsim(["trace"] + logs.map { folder + "/run/" + $0 } + ["--out", folder + "/trace"])
        #expect(traced.code == 0, "\(traced.err)")
        // The quantiles run prints, in its layout (issue 73): the two lines compare.
        #expect(traced.out.contains("latency      p50 ") && traced.out.contains("   p95 ") && run.out.contains("   p95 "))
        let ran = try ResultTable(path: folder + "/run/latency.csv")
        let traceRows = try ResultTable(path: folder + "/trace/latency.csv")
        #expect(traceRows.rows.count == ran.rows.count)
        // The same rows, each seen 0.05 s earlier: the run's `ui` stage, which no log shows.
        let ranLatencies = ran.rows.compactMap { $0.number("latency") }.sorted()
        let tracedLatencies = traceRows.rows.compactMap { $0.number("latency") }.sorted()
        #expect(ranLatencies.count == tracedLatencies.count)
        for (a, b) in zip(ranLatencies, tracedLatencies) { #expect(abs(a - b - 0.05) < 2e-6) }
        // Every visible row's stages add up to its latency, `unknown` included.
        for row in traceRows.rows where row["outcome"] == "visible" {
          let stages = ["save", "exportSchedule", "upload", "notify", "importSchedule", "download", "unknown"]
            .compactMap { row.number($0) }.reduce(0, +)
          #expect(abs(stages - row.number("latency")!) < 1e-5)
        }
        let report = syncsim("report", folder + "/trace")
        #expect(report.code == 0)
      }
    }
  }

  /// The fit reads the Xcode console as it reads the event log (issue 77, item 4).
  @Test func theFitReadsTheXcodeConsolesForm() throws {
    try withTemporaryDirectory { folder in
      let scenario = try Self.base(folder, hours: 6)
      #expect(syncsim("run", scenario, "--out", folder + "/run", "--event-log").code == 0)
      let fit = syncsim(
        "fit", folder + "/run/xcode-iphone.log", folder + "/run/xcode-ipad.log", "--scenario", scenario, "--out",
        folder + "/fit", "--particles", "20", "--max-worlds", "100", "--generations", "1", "--jobs", "2")
      #expect(fit.code == 0, "\(fit.err)")
      #expect(fit.out.contains("log          "))
      let table = try ResultTable(path: folder + "/fit/fit.csv")
      #expect(table.rows.contains { $0["parameter"] == "push.fanoutLatency" })
      // Xcode shows the app's messages only: no apsd, so the delivery is not identified.
      let delivery = try #require(table.rows.first { $0["parameter"] == "push.deliveryLatency" })
      #expect(delivery["identified"] == "0")
    }
  }

  @Test(.enabled(if: longTestsEnabled, "a long test: SYNCSIM_LONG_TESTS=1 swift test runs it, as CI does")) func theFitsIntervalsHoldTheKnownValuesAndSayWhatTheLogCannotTell() throws {
    try withTemporaryDirectory { folder in
      let scenario = try Self.base(folder, hours: 6)
      #expect(syncsim("run", scenario, "--out", folder + "/run", "--event-log").code == 0)
      let fit = syncsim(
        "fit", folder + "/run/event-log.ndjson", "--scenario", scenario, "--out", folder + "/fit", "--particles", "40",
        "--max-worlds", "400", "--jobs", "2")
      #expect(fit.code == 0, "\(fit.err)")
      let table = try ResultTable(path: folder + "/fit/fit.csv")
      func row(_ name: String) throws -> ResultTable.Row { try #require(table.rows.first { $0["parameter"] == name }) }
      // Known: requestLatency's median 0.15 s, fanout's 2 s, no push dropped. An identified
      // parameter's interval holds its truth; one not identified has no estimate (issue 78).
      for (name, truth) in [("cloud.requestLatency", 0.15), ("push.dropProbability", 0.0)] {
        let parameter = try row(name)
        if parameter["identified"] == "1" {
          #expect(parameter.number("low")! <= max(truth, 0.01) && truth <= parameter.number("high")!, "\(name)")
        } else {
          #expect(parameter["estimate"] == "" && parameter["low"] == "", "\(name)")
        }
      }
      // The event log has no dasd lines: save → export start is seen, the decision's latency
      // and the start's delay only as their sum (true sum 1.3 s).
      let sum = try row("scheduler.decisionLatency + scheduler.exportStartDelay")
      #expect(sum["kind"] == "sum")
      #expect(try row("scheduler.decisionLatency")["note"]!.hasPrefix("only the sum"))
      if sum["identified"] == "1" { #expect(sum.number("low")! <= 1.3 && 1.3 <= sum.number("high")!) }
      // No apsd lines either: commit → the app's push handler is the fan-out plus the delivery
      // (true sum 2.1 s). Six hours and 400 worlds narrow it (a week's log and 5,000 worlds
      // narrow the rest: `syncsim bench fit`).
      let pushSum = try row("push.fanoutLatency + push.deliveryLatency")
      #expect(pushSum["identified"] == "1", "\(pushSum)")
      #expect(pushSum.number("low")! <= 2.1 && 2.1 <= pushSum.number("high")!, "\(pushSum)")
      for name in ["push.fanoutLatency", "push.deliveryLatency"] {
        #expect(try row(name)["identified"] == "0")
        #expect(try row(name)["note"]!.hasPrefix("only the sum push.fanoutLatency + push.deliveryLatency"))
      }
      // No failed export and no import of 10 records: what rests on them is not identified,
      // and says why.
      #expect(try row("cloud.applyTimePerRecord")["identified"] == "0")
      #expect(try row("cloud.applyTimePerRecord")["note"]!.hasPrefix("the log has none of"))
      let twin = try String(contentsOfFile: folder + "/fit/twin.json", encoding: .utf8)
      #expect(twin.contains("push.deliveryLatency not identified"))
      #expect(syncsim("validate", folder + "/fit/twin.json").code == 0)
      let summaries = try ResultTable(path: folder + "/fit/summaries.csv")
      let held = summaries.rows.filter { $0["part"] == "holdout" && $0["covered"] != "" }
      #expect(held.count >= 8)
      #expect(held.filter { $0["covered"] == "1" }.count * 10 >= held.count * 7)
      #expect(fit.out.contains("held back"))
    }
  }

  @Test func theFitIsTheSameForAnyNumberOfThreads() throws {
    try withTemporaryDirectory { folder in
      let scenario = try Self.base(folder, hours: 2)
      #expect(syncsim("run", scenario, "--out", folder + "/run", "--event-log").code == 0)
      var texts: [String] = []
      for jobs in ["1", "2"] {
        let fit = syncsim(
          "fit", folder + "/run/event-log.ndjson", "--scenario", scenario, "--out", folder + "/fit" + jobs,
          "--particles", "20", "--max-worlds", "100", "--jobs", jobs)
        #expect(fit.code == 0)
        texts.append(
          try ["fit.csv", "summaries.csv", "posterior.csv", "twin.json", "report.html"].map {
            try String(contentsOfFile: folder + "/fit" + jobs + "/" + $0, encoding: .utf8)
          }.joined())
      }
      #expect(texts[0] == texts[1])
      // What if the app moved to CKSyncEngine? The twin, each device on it, against the twin:
      // the same replayed saves start their exports without dasd's decision and start delay.
      let twin = try String(contentsOfFile: folder + "/fit1/twin.json", encoding: .utf8)
      #expect(twin.contains("\"name\": \"quickstart-twin\""))
      let engine = twin.replacingOccurrences(of: "\"name\": \"iphone\"", with: "\"name\": \"iphone\", \"client\": \"syncEngine\"")
        .replacingOccurrences(of: "\"name\": \"ipad\"", with: "\"name\": \"ipad\", \"client\": \"syncEngine\"")
      try engine.write(toFile: folder + "/engine.json", atomically: true, encoding: .utf8)
      #expect(syncsim("run", folder + "/fit1/twin.json", "--out", folder + "/a").code == 0)
      #expect(syncsim("run", folder + "/engine.json", "--out", folder + "/b").code == 0)
      let a = try ResultTable(path: folder + "/a/summary.csv").rows[0]
      let b = try ResultTable(path: folder + "/b/summary.csv").rows[0]
      #expect(a.number("writes") == b.number("writes"))
      #expect(b.number("stage.exportSchedule.mean")! < a.number("stage.exportSchedule.mean")! / 1.5)
    }
  }

  @Test func aLogThatIdentifiesNothingExits65AndNamesWhy() throws {
    try withTemporaryDirectory { folder in
      let scenario = try Self.base(folder, hours: 1)
      let log = folder + "/few.ndjson"
      try [
        #"{"time":"2026-01-01T00:00:00Z","device":"iphone","source":"app","event":"save"}"#,
        #"{"time":"2026-01-01T00:10:00Z","device":"iphone","source":"app","event":"appState","state":"background"}"#,
      ].joined(separator: "\n").write(toFile: log, atomically: true, encoding: .utf8)
      let fit = syncsim("fit", log, "--scenario", scenario, "--out", folder + "/fit")
      #expect(fit.code == 65)
      #expect(fit.err.contains("the log identifies nothing"))
      #expect(!FileManager.default.fileExists(atPath: folder + "/fit"))
      // A device the base does not name: listed, exit 65.
      try #"{"time":"2026-01-01T00:00:00Z","device":"watch","source":"app","event":"save"}"#
        .write(toFile: log, atomically: true, encoding: .utf8)
      let unknown = syncsim("fit", log, "--scenario", scenario, "--out", folder + "/fit")
      #expect(unknown.code == 65)
      #expect(unknown.err.contains("\"watch\""))
      // A file that is not there is named.
      let missing = syncsim("trace", folder + "/nowhere.log", "--out", folder + "/t")
      #expect(missing.code == 65 && missing.err.contains("nowhere.log: no such file"))
      // No sync event at all.
      try "hello\n".write(toFile: log, atomically: true, encoding: .utf8)
      #expect(syncsim("trace", log, "--out", folder + "/t").code == 65)
    }
  }

  @Test func aHostileLogWritesNoMarkupFormulaOrEscape() throws {
    try withTemporaryDirectory { folder in
      let log = folder + "/hostile.ndjson"
      let names = ["<img src=x onerror=alert(1)>", "=HYPERLINK(\\\"http://x\\\")", "\\u001b]0;pwned\\u0007"]
      var lines: [String] = []
      for (index, name) in names.enumerated() {
        for minute in 0..<3 {
          lines.append(
            "{\"time\":\"2026-01-01T00:0\(minute):0\(index)Z\",\"device\":\"\(name)\",\"source\":\"app\",\"event\":\"save\"}")
          lines.append(
            "{\"time\":\"2026-01-01T00:0\(minute):1\(index)Z\",\"device\":\"\(name)\",\"source\":\"coreData\",\"event\":\"import\",\"id\":\"\(index)-\(minute)\",\"start\":\"2026-01-01T00:0\(minute):1\(index)Z\",\"end\":\"2026-01-01T00:0\(minute):2\(index)Z\"}")
        }
      }
      try lines.joined(separator: "\n").write(toFile: log, atomically: true, encoding: .utf8)
      let traced = syncsim("trace", log, "--out", folder + "/trace")
      #expect(traced.code == 0, "\(traced.err)")
      #expect(!traced.out.contains("\u{1B}"))
      let latency = try String(contentsOfFile: folder + "/trace/latency.csv", encoding: .utf8)
      #expect(!latency.contains(",=HYPERLINK"))
      #expect(latency.contains("'=HYPERLINK"))
      #expect(syncsim("report", folder + "/trace").code == 0)
      let page = try String(contentsOfFile: folder + "/trace/report.html", encoding: .utf8)
      #expect(!page.contains("<img"))
      #expect(!page.contains("\u{1B}"))
    }
  }
}
