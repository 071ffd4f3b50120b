import Foundation
import SimTestSupport
import Testing

/// `syncsim sensitivity` on the command line: its files, their bytes whatever the thread count,
/// its words, and its refusals.
@Suite struct SensitivityCommandTests {
  static let quickstart = packageRoot + "/Scenarios/quickstart.json"

  @Test func writesTheSameBytesOnOneThreadAsOnTwo() throws {
    try withTemporaryDirectory { folder in
      var texts: [[String]] = []
      for jobs in ["1", "2"] {
        let out = folder + "/jobs-" + jobs
        let result = syncsim(
          "sensitivity", Self.quickstart, "--trajectories", "3", "--seeds", "1", "--jobs", jobs, "--out", out)
        #expect(result.code == 0, "\(result.err)")
        texts.append(
          try ["sensitivity.csv", "sensitivity-points.csv", "sensitivity.html"].map {
            try String(contentsOfFile: out + "/" + $0, encoding: .utf8)
          })
        // 14 assumed keys the quickstart leaves at their default and that do something in it (its
        // polling keys do not: it has no public store), activityGroup's limit among them:
        // 1 + 2 × 14 + 3 × 15 points, one seed.
        #expect(result.out.contains("Morris, 3 trajectories of 14 parameters and each alone at its ends, × 1 seed: 74 worlds"))
        #expect(result.out.contains("latency.p95 "))
        #expect(result.out.contains("most of that is push."))
        #expect(result.out.contains("left as the scenario has them: cloud.networkRetryBackoff (does nothing without cloud.networkFailureProbability)"))
        #expect(result.out.contains("polling.fetchOn (ignored: no device has a public-database store"))
      }
      #expect(texts[0] == texts[1])
      let csv = texts[0][0].split(separator: "\n")
      #expect(csv.count == 1 + 2 * 14)
      #expect(texts[0][0].contains(",scheduler.policies.activityGroup.limit,[assumed] 1,1 .. 3,1,3,"))
      #expect(csv[0] == "metric,unit,rank,parameter,source,range,rangeLow,rangeHigh,reason,muStar,mu,sigma,effects,atLow,atHigh,base")
      #expect(texts[0][1].split(separator: "\n").count == 1 + 74)
      #expect(texts[0][2].contains("<svg id=\"tornado-0\""))
    }
  }

  @Test func namedKeysAreVariedEvenWhenTheScenarioSetsThem() throws {
    try withTemporaryDirectory { folder in
      let result = syncsim(
        "sensitivity", Self.quickstart, "--method", "oat", "--only", "push.fanoutLatency", "--only",
        "devices[].uiMergeDelay", "--metric", "latency.mean", "--out", folder)
      #expect(result.code == 0, "\(result.err)")
      #expect(result.out.contains("one at a time, 2 parameters each alone at its ends, × 1 seed: 5 worlds"))
      let csv = try String(contentsOfFile: folder + "/sensitivity.csv", encoding: .utf8)
      #expect(csv.contains("latency.mean,s,1,push.fanoutLatency,"))
      #expect(csv.contains("latency.mean,s,2,devices[].uiMergeDelay,"))
    }
  }

  @Test func refusesWhatItCannotScreen() {
    let unknown = syncsim("sensitivity", Self.quickstart, "--only", "push.fanoutLatencee")
    #expect(unknown.code == 64)
    #expect(unknown.err.contains("push.fanoutLatencee: no scenario key of that name"))
    let sourced = syncsim("sensitivity", Self.quickstart, "--only", "cloud.recordsPerOperation")
    #expect(sourced.code == 64)
    #expect(sourced.err.contains("cloud.recordsPerOperation: no plausible range"))
    let ignored = syncsim("sensitivity", Self.quickstart, "--only", "polling.fetchOn")
    #expect(ignored.code == 64)
    #expect(ignored.err.contains("polling.fetchOn: changes nothing in this scenario"))
    let method = syncsim("sensitivity", Self.quickstart, "--method", "sobol")
    #expect(method.code == 64 && method.err.contains("--method takes morris or oat"))
    let metric = syncsim("sensitivity", Self.quickstart, "--metric", "latency.p96")
    #expect(metric.code == 64 && metric.err.contains("no metric named latency.p96"))
  }

  /// `run --assumptions` prints each headline metric's span over the one-at-a-time ends, the same
  /// worlds `sensitivity --method oat` runs, and leaves the run's own files as they are.
  @Test func runPrintsTheSpanOverTheAssumptions() throws {
    try withTemporaryDirectory { folder in
      let plain = syncsim("run", Self.quickstart, "--out", folder + "/plain")
      let banded = syncsim("run", Self.quickstart, "--assumptions", "--out", folder + "/banded")
      #expect(plain.code == 0 && banded.code == 0, "\(banded.err)")
      let summary = { (name: String) in try String(contentsOfFile: folder + "/\(name)/summary.csv", encoding: .utf8) }
      #expect(try summary("plain") == summary("banded"))
      #expect(!plain.out.contains("assumptions"))
      #expect(banded.out.contains("assumptions  one at a time: 14 [assumed] parameters"))
      let oat = syncsim(
        "sensitivity", Self.quickstart, "--method", "oat", "--metric", "latency.p50", "--out", folder + "/oat")
      #expect(oat.code == 0)
      let rows = try String(contentsOfFile: folder + "/oat/sensitivity.csv", encoding: .utf8).split(separator: "\n")
      let fanout = try #require(rows.first { $0.contains(",push.fanoutLatency,") }).split(
        separator: ",", omittingEmptySubsequences: false)
      let (low, high) = (try #require(Double(fanout[13])), try #require(Double(fanout[14])))
      let line = try #require(banded.out.split(separator: "\n").first { $0.hasPrefix("  latency.p50") })
      #expect(line.contains("from " + String(format: "%.3f", low) + " s (push.fanoutLatency=×0.333)"), "\(line)")
      #expect(line.contains("to " + String(format: "%.3f", high) + " s (push.fanoutLatency=×3)"), "\(line)")
    }
  }

  /// A twin with its `fit.csv` beside it is screened over the fit's 90 % intervals: the
  /// identified parameters (set in the twin, so left out otherwise) come back as factors, a
  /// distribution's interval as a scale around its estimate, and a sum that no key holds is named
  /// as not screened.
  @Test func aTwinIsScreenedOverItsFittedIntervals() throws {
    try withTemporaryDirectory { folder in
      let twin = #"""
        {"version": 1, "name": "twin", "duration": "2h", "devices": [{"name": "iphone"}, {"name": "ipad"}],
         "cloud": {"requestLatency": {"lognormal": {"median": "0.2s", "p99": "2s"}}},
         "push": {"dropProbability": 0.05},
         "workloads": [{"devices": "all", "editsPerHour": 20}]}
        """#
      try twin.write(toFile: folder + "/twin.json", atomically: true, encoding: .utf8)
      let fit = """
        parameter,kind,unit,priorLow,priorHigh,estimate,low,high,identified,note
        cloud.requestLatency,fitted,s,0.01,5,0.2,0.1,0.4,1,
        push.dropProbability,fitted,ratio,0,0.5,0.05,0.01,0.1,1,
        push.fanoutLatency + push.deliveryLatency,fitted,s,0.1,60,2.1,1,4,1,
        scheduler.importStartDelay,fitted,s,0.005,10,,,,0,
        """
      try fit.write(toFile: folder + "/fit.csv", atomically: true, encoding: .utf8)
      let result = syncsim(
        "sensitivity", folder + "/twin.json", "--method", "oat", "--metric", "latency.p50", "--out", folder + "/out")
      #expect(result.code == 0, "\(result.err)")
      #expect(result.out.contains("identified 3; screened over their 90 % intervals: cloud.requestLatency, push.dropProbability; not screened (a sum, or no key): push.fanoutLatency + push.deliveryLatency"))
      #expect(result.out.contains("of its 5 most influential, the log identified "))
      let csv = try String(contentsOfFile: folder + "/out/sensitivity.csv", encoding: .utf8)
      let latency = try #require(csv.split(separator: "\n").first { $0.contains(",cloud.requestLatency,") })
      #expect(latency.contains(",×0.5 .. ×2,0.5,2,the fit's 90 % interval,"), "\(latency)")
      #expect(latency.contains(",[fit] [assumed],"))
      let drop = try #require(csv.split(separator: "\n").first { $0.contains(",push.dropProbability,") })
      #expect(drop.contains(",0.01 .. 0.1,0.01,0.1,the fit's 90 % interval,"), "\(drop)")
    }
  }

  /// Three shards merged write the unsharded screening's bytes; a missing shard, a shard of other
  /// options and an edited runs file are refused, with nothing written.
  @Test func shardsMergeToTheUnshardedBytes() throws {
    try withTemporaryDirectory { folder in
      let common = [Self.quickstart, "--trajectories", "2", "--seeds", "1,2", "--metric", "latency.p95"]
      let whole = syncsim(["sensitivity"] + common + ["--out", folder + "/whole"])
      #expect(whole.code == 0, "\(whole.err)")
      for index in 1...3 {
        let shard = syncsim(["sensitivity"] + common + ["--shard", "\(index)/3", "--out", folder + "/s\(index)"])
        #expect(shard.code == 0, "\(shard.err)")
        #expect(shard.out.contains("shard \(index)/3, "))
      }
      let shards = (1...3).flatMap { ["--merge", folder + "/s\($0)"] }
      let merged = syncsim(["sensitivity"] + common + shards + ["--out", folder + "/merged"])
      #expect(merged.code == 0, "\(merged.err)")
      for name in ["sensitivity.csv", "sensitivity-points.csv", "sensitivity.html"] {
        let a = try String(contentsOfFile: folder + "/whole/" + name, encoding: .utf8)
        let b = try String(contentsOfFile: folder + "/merged/" + name, encoding: .utf8)
        #expect(a == b, "\(name)")
      }
      let missing = syncsim(["sensitivity"] + common + Array(shards.prefix(4)) + ["--out", folder + "/gap"])
      #expect(missing.code == 65 && missing.err.contains("shard 3 of 3 missing"), "\(missing.err)")
      #expect(!FileManager.default.fileExists(atPath: folder + "/gap"))
      let other = syncsim(
        ["sensitivity", Self.quickstart, "--trajectories", "3", "--seeds", "1,2", "--metric", "latency.p95"] + shards
          + ["--out", folder + "/other"])
      #expect(other.code == 65 && other.err.contains("a shard of another screening"), "\(other.err)")
      let runs = folder + "/s2/sensitivity-runs.csv"
      let text = try String(contentsOfFile: runs, encoding: .utf8)
      try text.replacingOccurrences(of: ",", with: ",1").write(toFile: runs, atomically: true, encoding: .utf8)
      let edited = syncsim(["sensitivity"] + common + shards + ["--out", folder + "/edited"])
      #expect(edited.code == 65 && edited.err.contains("s2/sensitivity-runs.csv: missing, edited or cut short"), "\(edited.err)")
    }
  }

  /// `--versus`: a B whose exports start 19 s later keeps its median 17.6–19.1 s above A's at every
  /// point; its p95 does not keep its sign (a dropped push can make B's tail shorter than A's).
  @Test(.enabled(if: longTestsEnabled, "a long test: SYNCSIM_LONG_TESTS=1 swift test runs it, as CI does")) func aDifferenceSurvivesTheAssumptionsOrNot() throws {
    try withTemporaryDirectory { folder in
      let base = try String(contentsOfFile: Self.quickstart, encoding: .utf8)
      let slower = base.replacingOccurrences(of: #""name": "quickstart""#, with: #""name": "slower", "scheduler": {"exportStartDelay": "20s"}"#)
      #expect(slower != base)
      try slower.write(toFile: folder + "/slower.json", atomically: true, encoding: .utf8)
      let result = syncsim("sensitivity", Self.quickstart, "--versus", folder + "/slower.json", "--out", folder + "/vs")
      #expect(result.code == 0, "\(result.err)")
      #expect(result.out.contains("latency.p50 difference: B − A is 18.874 s as written and above 0 at every one of 179 points: the difference survives the assumptions"), "\(result.out)")
      #expect(result.out.contains("latency.p95 difference: B − A is 18.151 s as written, but not above 0 at 17 of 179 points"), "\(result.out)")
      let csv = try String(contentsOfFile: folder + "/vs/sensitivity.csv", encoding: .utf8)
      #expect(csv.contains("\nlatency.p50 difference,s,1,"))
      let refused = syncsim("sensitivity", Self.quickstart, "--versus", folder + "/slower.json", "--shard", "1/2")
      #expect(refused.code == 64)
    }
  }

  /// `fit --assumptions` says, for the twin, which of each latency's most influential parameters
  /// the log identified and which it left assumed; without it the fit prints neither.
  @Test(.enabled(if: longTestsEnabled, "a long test: SYNCSIM_LONG_TESTS=1 swift test runs it, as CI does")) func aFitNamesTheAssumptionsItLeftOpen() throws {
    try withTemporaryDirectory { folder in
      let run = syncsim("run", Self.quickstart, "--duration", "12h", "--event-log", "--out", folder + "/app")
      #expect(run.code == 0, "\(run.err)")
      let fit = syncsim(
        "fit", folder + "/app/event-log.ndjson", "--scenario", Self.quickstart, "--out", folder + "/fit",
        "--particles", "20", "--max-worlds", "100", "--assumptions")
      #expect(fit.code == 0, "\(fit.err)")
      #expect(fit.out.contains("assumptions  the twin's 14 parameters one at a time (29 worlds;"), "\(fit.out)")
      let line = try #require(fit.out.split(separator: "\n").first { $0.hasPrefix("  latency.p95: of its 5 most influential") })
      let page = try String(contentsOfFile: folder + "/fit/report.html", encoding: .utf8)
      #expect(page.contains("<h2>The twin's assumptions: identified by the log, or left assumed</h2>"))
      #expect(page.contains("<li>latency.p95: of its 5 most influential"))
      #expect(line.contains("left at their assumed value: ") && line.contains("push.fanoutLatency"), "\(line)")
      let identified = try String(contentsOfFile: folder + "/fit/fit.csv", encoding: .utf8).split(separator: "\n")
        .filter { $0.hasSuffix(",1,") || $0.contains(",1,\"") }.compactMap { $0.split(separator: ",").first }
      // Every parameter the line calls identified is one fit.csv marks identified.
      let named = line.split(separator: ";")[0].split(separator: "identified ").last.map(String.init) ?? ""
      for name in named.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where name != "none" {
        #expect(identified.contains(Substring(name)), "\(name) not identified in fit.csv")
      }
    }
  }

  /// A screening whose files could not be written keeps its finished runs beside DIR, and the
  /// next attempt runs none of them again and writes what a fresh screening writes.
  @Test func aScreeningResumesFromItsFinishedRuns() throws {
    try withTemporaryDirectory { folder in
      let out = folder + "/screen"
      try "in the way".write(toFile: out, atomically: true, encoding: .utf8)
      let arguments = ["sensitivity", Self.quickstart, "--trajectories", "2", "--metric", "latency.p95"]
      let blocked = syncsim(arguments + ["--out", out])
      #expect(blocked.code == 73)
      let kept = try FileManager.default.contentsOfDirectory(atPath: out + ".resume").filter { $0.hasPrefix("run-") }
      #expect(kept.count == 59)
      try FileManager.default.removeItem(atPath: out)
      let resumed = syncsim(arguments + ["--out", out])
      #expect(resumed.code == 0, "\(resumed.err)")
      #expect(resumed.err.contains("resuming from \(out).resume: 59 finished runs kept"), "\(resumed.err)")
      #expect(!FileManager.default.fileExists(atPath: out + ".resume"))
      let fresh = syncsim(arguments + ["--out", folder + "/fresh"])
      #expect(fresh.code == 0)
      for name in ["sensitivity.csv", "sensitivity-points.csv"] {
        #expect(
          try String(contentsOfFile: out + "/" + name, encoding: .utf8)
            == String(contentsOfFile: folder + "/fresh/" + name, encoding: .utf8), "\(name)")
      }
    }
  }

  /// The estimate covers a screening: printed before it runs, and one over the memory limit is
  /// refused with nothing run or written (15,015 points × 5 seeds).
  @Test func anOversizedScreeningIsRefusedByItsEstimate() {
    withTemporaryDirectory { folder in
      let result = syncsim(
        "sensitivity", Self.quickstart, "--trajectories", "1000", "--seeds", "1..5", "--out", folder + "/big")
      #expect(result.code == 65)
      #expect(result.err.contains("the screening would need about"), "\(result.err)")
      #expect(result.err.contains("(~75.1 k worlds, "), "\(result.err)")
      #expect(!FileManager.default.fileExists(atPath: folder + "/big"))
    }
  }
}
