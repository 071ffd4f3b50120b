import SimExperiments
import SimKernel
import SimMetrics
import SimModel
import SimScenario
import Testing

@Suite struct ScenarioDecodingTests {
  func decode(_ text: String) throws(ScenarioProblems) -> Scenario {
    try ScenarioDecoder.decode(Array(text.utf8), file: "s.json").0
  }

  func problems(_ text: String) -> [String] {
    do {
      _ = try decode(text)
      return []
    } catch {
      return error.problems.map(\.description)
    }
  }

  @Test func aVersionAndTwoDevicesRunWithModelDefaults() throws {
    let scenario = try decode(#"{"version": 1, "devices": [{"name": "a"}, {"name": "b"}]}"#)
    let defaults = WorldSpec()
    #expect(scenario.deviceNames == ["a", "b"])
    #expect(scenario.spec.duration == defaults.duration)
    #expect(scenario.spec.server == defaults.server)
    #expect(scenario.spec.push == defaults.push)
    #expect(scenario.spec.scheduler.policies.map(\.name) == defaults.scheduler.policies.map(\.name))
    #expect(scenario.spec.scheduler.decisionLatency == defaults.scheduler.decisionLatency)
    #expect(scenario.spec.devices[0].app == AppBehaviour())
    #expect(scenario.spec.devices[0].conditions == DeviceConditions())
    let report = ScenarioRunner.run(scenario)
    #expect(report.outcome.processedEvents > 0)
  }

  /// Found by mutating library scenarios: an edit rate of 1e300 trapped while the workload check
  /// printed its estimate as an integer.
  @Test func anAbsurdEditRateIsReportedNotATrap() {
    let found = problems(
      #"{"version": 1, "duration": "2d", "devices": [{"name": "a"}], "workloads": [{"devices": "all", "editsPerHour": 1e300}]}"#
    )
    #expect(
      found.contains { $0.contains("workloads[0].editsPerHour: 1e+300 edits per hour is over the limit of 360000") })
    #expect(found.contains { $0.contains("workloads: about 4.8e+301 edits in all is over the limit of 20000000") })
  }

  @Test func editsNameAStoreByItsIndexAndAMissingStoreIsAProblem() throws {
    let devices =
      #"[{"name": "phone", "stores": ["private", {"shared": {"owner": 0, "participants": [1]}}]}, {"name": "friend", "account": 1, "stores": [{"shared": {"owner": 0, "participants": [1]}}]}]"#
    let scenario = try decode(
      #"{"version": 1, "accounts": 2, "devices": "# + devices
        + #", "workloads": [{"devices": "phone", "editsPerHour": 6, "store": 1}], "timeline": [{"at": "1m", "devices": "phone", "action": {"edit": {"kind": "insert", "store": 1}}}, {"at": "2m", "devices": "friend", "action": {"bulkInsert": {"count": 3}}}]}"#
    )
    #expect(scenario.spec.devices[0].workload?.store == 1)
    #expect(scenario.spec.timeline.map(\.store) == [1, nil])
    let found = problems(
      #"{"version": 1, "accounts": 2, "devices": "# + devices
        + #", "workloads": [{"devices": "all", "editsPerHour": 6, "store": 1}], "timeline": [{"at": "1m", "devices": "phone", "action": {"bulkInsert": {"count": 3, "store": 2}}}]}"#
    )
    #expect(
      found == [
        "s.json: workloads[0].store: device \"friend\" has no store 1 (it has 1 store, numbered from 0 in the order of its \"stores\")",
        "s.json: timeline[0].action.bulkInsert.store: device \"phone\" has no store 2 (it has 2 stores, numbered from 0 in the order of its \"stores\")",
      ])
  }

  @Test func everyProblemIsReportedWithItsPathAndAHint() {
    let found = problems(
      #"""
      {
        "version": 1,
        "duraton": "1h",
        "duration": "2x",
        "devices": [
          {"name": "phone", "power": {"battery": 140}, "savePolicy": {"debounce": "-2s"}},
          {"name": "pad", "count": 0, "stores": ["privat"]}
        ],
        "push": {"dropProbability": 1.5, "fanoutLatency": {"lognormal": {"median": "2s", "p99": "1s"}}},
        "workloads": [{"devices": "phnoe", "editsPerHour": 0}],
        "timeline": [
          {"at": "2h", "devices": "phone", "action": "goOffline"},
          {"at": "10m", "devices": "all", "action": {"nudge": {"every": 0}}},
          {"at": "10m", "devices": "all", "action": "launchh"}
        ],
        "expect": [{"metric": "latency.p96", "max": "1m"}]
      }
      """#)
    let expected = [
      "s.json: duraton: unknown key \"duraton\" (did you mean \"duration\"?)",
      "s.json: duration: \"2x\" is not a duration",
      "s.json: devices[0].power.battery: 140 is above 100",
      "s.json: devices[0].savePolicy.debounce: -2s must be positive",
      "s.json: devices[1].count: 0 is below 1",
      "s.json: devices[1].stores[0]: unknown store \"privat\" (did you mean \"private\"?)",
      "s.json: push.dropProbability: 1.5 is not a ratio from 0 to 1",
      "s.json: push.fanoutLatency.lognormal.p99: p99 1s is below the median 2s",
      "s.json: workloads[0].devices: no device or group named \"phnoe\" (did you mean \"phone\"?)",
      "s.json: workloads[0].editsPerHour: 0 must be greater than 0",
      "s.json: timeline[1].action.nudge.every: 0s must be positive",
      "s.json: timeline[2].action: unknown action \"launchh\" (did you mean \"launch\"?)",
      "s.json: expect[0].metric: unknown metric \"latency.p96\" (did you mean \"latency.p90\"?)",
    ]
    for message in expected {
      #expect(found.contains { $0.hasPrefix(message) }, "missing: \(message)\nfound:\n\(found.joined(separator: "\n"))")
    }
    // The 2 h timeline entry is beyond the 1 h default duration only if the duration is valid;
    // here "2x" was refused, so the default (1 h) applies and the entry is reported too.
    #expect(found.contains { $0.hasPrefix("s.json: timeline[0].at: 2h is after the end of the run (1h)") })
  }

  @Test func malformedJSONReportsLineAndColumn() {
    let found = problems("{\n  \"version\": 1,\n  \"devices\": [\n    {\"name\": \"a\",}\n  ]\n}")
    #expect(found == ["s.json:4:18: malformed JSON: expected a quoted key"])
    #expect(problems("") == ["s.json:1:1: malformed JSON: unexpected end of file: a value was expected"])
    #expect(problems("{\"a\": 1, \"a\": 2}").first?.contains("duplicate key") == true)
  }

  @Test func unknownVersionsAreRejected() {
    #expect(
      problems(#"{"version": 2, "devices": [{"name": "a"}]}"#) == [
        "s.json: version: version 2 is newer than this SyncSim reads (1) (upgrade SyncSim)"
      ])
    #expect(problems(#"{"devices": []}"#).first?.hasPrefix("s.json: version: missing required key") == true)
  }

  @Test func runawayScenariosStopWithTheLimitNamed() {
    let huge = problems(#"{"version": 1, "devices": [{"name": "a", "count": 1000001}]}"#)
    #expect(huge.contains { $0.contains("more than 1000000 devices in all") && $0.contains("--shard I/N") })
    let larger = problems(#"{"version": 1, "devices": [{"name": "a", "count": 10000001}]}"#)
    #expect(larger.contains { $0.contains("is above 10000000") })
    let busy = problems(
      #"{"version": 1, "duration": "3650d", "devices": [{"name": "a", "count": 1000}], "workloads": [{"devices": "all", "editsPerHour": 1000}]}"#
    )
    #expect(busy.contains { $0.contains("over the limit of 20000000") })
  }

  @Test func noInputCrashesTheDecoder() {
    var rng = RandomStream(seed: 99)
    let valid = Array(
      #"{"version": 1, "duration": "1h", "devices": [{"name": "a", "count": 2}], "timeline": [{"at": "1m", "devices": "a", "action": {"nudge": {"every": "10s"}}}]}"#
        .utf8)
    for round in 0..<3000 {
      var bytes = valid
      let mutations = 1 + Int(rng.nextInt(below: 4))
      for _ in 0..<mutations where !bytes.isEmpty {
        let position = Int(rng.nextInt(below: UInt64(bytes.count)))
        switch rng.nextInt(below: 3) {
        case 0: bytes[position] = UInt8(truncatingIfNeeded: rng.next())
        case 1: bytes.remove(at: position)
        default:
          let alphabet = Array("{}[]\",:0-e.9\\u".utf8)
          bytes.insert(alphabet[Int(rng.nextInt(below: UInt64(alphabet.count)))], at: position)
        }
      }
      if round % 3 == 0 { bytes = (0..<Int(rng.nextInt(below: 64))).map { _ in UInt8(truncatingIfNeeded: rng.next()) } }
      do {
        _ = try ScenarioDecoder.decode(bytes, file: "fuzz.json")
      } catch {
        #expect(!error.problems.isEmpty)
      }
    }
    let deep = String(repeating: "[", count: 10_000)
    #expect(problems(deep).first?.contains("nesting deeper than") == true)
  }
}
