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
          "sensitivity", Self.quickstart, "--trajectories", "3", "--seeds", "1,2", "--jobs", jobs, "--out", out)
        #expect(result.code == 0, "\(result.err)")
        texts.append(
          try ["sensitivity.csv", "sensitivity-points.csv", "sensitivity.html"].map {
            try String(contentsOfFile: out + "/" + $0, encoding: .utf8)
          })
        // 13 assumed keys the quickstart leaves at their default and that do something in it (its
        // polling keys do not: it has no public store): 1 + 2 × 13 + 3 × 14 points, 2 seeds.
        #expect(result.out.contains("Morris, 3 trajectories of 13 parameters and each alone at its ends, × 2 seeds: 138 worlds"))
        #expect(result.out.contains("latency.p95 "))
        #expect(result.out.contains("most of that is push."))
        #expect(result.out.contains("left as the scenario has them: cloud.networkRetryBackoff (does nothing without cloud.networkFailureProbability)"))
        #expect(result.out.contains("polling.fetchOn (ignored: no device has a public-database store"))
      }
      #expect(texts[0] == texts[1])
      let csv = texts[0][0].split(separator: "\n")
      #expect(csv.count == 1 + 2 * 13)
      #expect(csv[0] == "metric,unit,rank,parameter,source,range,rangeLow,rangeHigh,reason,muStar,mu,sigma,effects,atLow,atHigh,base")
      #expect(texts[0][1].split(separator: "\n").count == 1 + 69)
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
}
