import Foundation
import SimExperiments
import SimKernel
import SimMetrics
import SimModel
import SimScenario
import SimTestSupport
import Testing

/// A researcher's policy, defined outside SyncSim: nothing may start before `untilSeconds`
/// (a maintenance window after launch).
struct MaintenanceWindowPolicy: SchedulerPolicy {
  var untilSeconds = 600.0
  var name: String { Self.definition.name }

  func evaluate(_ activity: PolicyContext) -> PolicyVerdict {
    let end = SimTime.zero.advanced(by: SimDuration(seconds: untilSeconds))
    return activity.now < end ? .refuse(until: end) : .proceed
  }

  static let definition = PolicyDefinition(
    name: "maintenance", summary: "nothing starts before `until`", source: "[assumed]", isOnByDefault: false,
    options: [
      PolicyOption(
        key: "until", kind: .duration(positive: true, maxSeconds: 86_400), defaultText: "10m", source: "[assumed]",
        meaning: "end of the window after launch")
    ]
  ) { options in
    MaintenanceWindowPolicy(untilSeconds: options.seconds("until") ?? 600)
  }
}

/// Policies are plug-ins: one registry drives decoding, the summary's columns, the schema and
/// the README's table.
@Suite struct PolicyRegistryTests {
  static let scenario = #"""
    {"version": 1, "duration": "1h", "devices": [{"name": "a"}, {"name": "b"}],
     "workloads": [{"devices": "all", "editsPerHour": 30}],
     "scheduler": {"policies": {"maintenance": {"until": "15m"}}},
     "expect": [{"metric": "blocked.maintenance.count", "min": 1}]}
    """#

  @Test func aResearchersPolicyIsDecodedDecidesAndIsReported() throws {
    let registry = PolicyRegistry.standard.adding(MaintenanceWindowPolicy.definition)
    let (scenario, _) = try ScenarioDecoder.decode(Array(Self.scenario.utf8), file: "m.json", policies: registry)
    // The standard set in its order (from the registry), then the researcher's.
    #expect(
      scenario.spec.scheduler.policies.map(\.name)
        == PolicyRegistry.standard.defaultPolicies.map(\.name) + ["maintenance"])
    #expect(PolicyRegistry.standard.defaultPolicies.count >= 5)
    let policy = try #require(scenario.spec.scheduler.policies.last as? MaintenanceWindowPolicy)
    #expect(policy.untilSeconds == 900)
    let report = ScenarioRunner.run(scenario)
    // Every activity requested in the first 15 minutes waited for the window's end, and none longer.
    let count = try #require(report.summary.value("blocked.maintenance.count"))
    let longest = try #require(report.summary.value("blocked.maintenance.longest"))
    let total = try #require(report.summary.value("blocked.maintenance.total"))
    #expect(count >= 4)  // at least the setup and the first export of each device (later ones coalesce)
    #expect(longest > 800 && longest <= 900)
    #expect(total > longest)
    #expect(report.allExpectationsMet)
    // Nothing a device wrote became visible on the other before the window ended.
    #expect(report.rows.compactMap(\.visibleAt).allSatisfy { $0 >= SimTime.zero.advanced(by: .seconds(900)) })
    let table = report.summaryTable(version: "test")
    let column = try #require(table.columns.firstIndex(of: "blocked.maintenance.total"))
    #expect(table.rows[0][column] == CSVTable.value(total, isDuration: true))
    #expect(table.columns.contains("blocked.rateLimit.total"))
  }

  @Test func unknownPolicyNamesAreErrors() {
    for (name, registry) in [
      ("maintenance", PolicyRegistry.standard), ("rateLimits", .standard.adding(MaintenanceWindowPolicy.definition)),
    ] {
      let text = #"{"version": 1, "devices": [{"name": "a"}], "scheduler": {"policies": {""# + name + #"": true}}}"#
      var problems: [ScenarioProblem] = []
      do { _ = try ScenarioDecoder.decode(Array(text.utf8), file: "u.json", policies: registry) } catch {
        problems = error.problems
      }
      #expect(
        problems.contains { $0.path == "scheduler.policies.\(name)" && $0.message.contains("unknown key") },
        "\(problems)")
    }
  }

  @Test func defaultsAndOptionsComeFromEachPolicysDefinition() throws {
    let text =
      #"{"version": 1, "devices": [{"name": "a"}], "scheduler": {"policies": {"activityGroup": {"limit": 3}, "rateLimit": {"lowPowerWindow": "2h", "exemptPushLaunches": false, "windows": [{"maxRuns": 5, "window": "1m"}]}, "lowPowerMode": false, "singleDeviceAccount": {"delay": "1h"}}}}"#
    let (scenario, _) = try ScenarioDecoder.decode(Array(text.utf8), file: "d.json")
    let policies = scenario.spec.scheduler.policies
    #expect(
      policies.map(\.name) == ["activityGroup", "rateLimit", "network", "criticalBattery", "singleDeviceAccount"])
    #expect((policies[0] as? ActivityGroupPolicy)?.limit == 3)
    let limiter = try #require(policies[1] as? ActivityRateLimitPolicy)
    #expect(limiter.windows == [RateLimitWindow(maxRuns: 5, windowSeconds: 60)])
    #expect(limiter.lowPowerWindowSeconds == 7200 && !limiter.exemptPushLaunches)
    #expect((policies[4] as? SingleDeviceAccountPolicy)?.delaySeconds == 3600)
  }

  @Test func theSchemaAndTheReadmeTableComeFromTheRegistry() throws {
    let registry = PolicyRegistry.standard.adding(MaintenanceWindowPolicy.definition)
    let schema = try JSONSerialization.jsonObject(with: Data(ScenarioSchema.document(policies: registry).utf8))
    let policies = (((schema as? [String: Any])?["properties"] as? [String: Any])?["scheduler"] as? [String: Any])
      .flatMap { ($0["properties"] as? [String: Any])?["policies"] as? [String: Any] }
    let names = (policies?["properties"] as? [String: Any])?.keys.sorted()
    // Every registered policy, the researcher's among them (the list from the registry).
    #expect(names == (PolicyRegistry.standard.names + ["maintenance"]).sorted())
    #expect((names?.count ?? 0) >= 9)
    let reference = try String(contentsOfFile: packageRoot + "/docs/scenario-format.md", encoding: .utf8)
    #expect(reference.contains("<!-- policies:begin -->\n" + ScenarioSchema.policyTable() + "\n<!-- policies:end -->"))
    #expect(syncsim("schema", "policies").out == ScenarioSchema.policyTable() + "\n")
  }
}
