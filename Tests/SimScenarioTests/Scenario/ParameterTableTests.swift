import Foundation
import SimKernel
import SimMetrics
import SimTestSupport
import Testing

@testable import SimExperiments
@testable import SimModel
@testable import SimScenario

/// The parameter table is the one declaration of every single-valued key: these tests hold the
/// decoder, schema, defaults, documentation, warnings and swarm to it.
@Suite struct ParameterTableTests {
  static let minimal = #"{"version": 1, "name": "p", "devices": [{"name": "a"}]}"#

  /// The scenario (nil when refused) and every problem found.
  func decode(
    _ text: String, parameters: ParameterSet = .standard
  ) -> (scenario: Scenario?, problems: [ScenarioProblem]) {
    do {
      let (scenario, problems) = try ScenarioDecoder.decode(Array(text.utf8), file: "p.json", parameters: parameters)
      return (scenario, problems)
    } catch {
      return (nil, error.problems)
    }
  }

  @Test func theCommittedDocumentsAreWhatTheDeclarationsPrint() throws {
    let parameters = try String(contentsOfFile: packageRoot + "/docs/parameters.md", encoding: .utf8)
    #expect(parameters == ParameterDocument.text + "\n", "run: syncsim schema parameters > docs/parameters.md")
    let metrics = try String(contentsOfFile: packageRoot + "/docs/metrics.md", encoding: .utf8)
    #expect(metrics == RunSummary.document + "\n", "run: syncsim schema metrics > docs/metrics.md")
    let paths = try String(contentsOfFile: packageRoot + "/docs/paths.md", encoding: .utf8)
    #expect(paths == ActivityPaths.document + "\n", "run: syncsim schema paths > docs/paths.md")
    #expect(syncsim("schema", "paths").out == ActivityPaths.document + "\n")
    #expect(syncsim("schema", "parameters").out == ParameterDocument.text + "\n")
    // Every declared key is in the document, with its default.
    for definition in ParameterTable.world {
      #expect(parameters.contains("| `\(definition.path.split(separator: ".").dropFirst().joined(separator: "."))` |"))
    }
    #expect(parameters.contains("| `zoneBusyBackoffCap` | duration > 0 | 5m |"))
    #expect(metrics.contains("| `latency.p95` | s | lower | 95th percentile latency |"))
  }

  /// Writing every default out (as `resolved.json` does) decodes to the world a scenario that
  /// writes none gets, which is the model's own default: the table and `ModelParameters` agree.
  @Test func everyDeclaredDefaultIsTheModelsDefault() throws {
    let plain = try #require(decode(Self.minimal).scenario)
    let resolved = ScenarioResolver.resolve(plain)
    let explicit = try #require(decode(resolved.serialized()).scenario)
    var checked = 0
    for definition in ParameterTable.world {
      let model = definition.read(WorldSpec())
      #expect(definition.read(explicit.spec) == model, "\(definition.path)")
      #expect(definition.read(plain.spec) == model, "\(definition.path)")
      if case .absent = definition.defaultValue { #expect(model == nil, "\(definition.path)") }
      checked += 1
    }
    for definition in ParameterTable.device {
      let model = definition.read(DeviceSpec(name: "a"))
      #expect(definition.read(explicit.spec.devices[0]) == model, "\(definition.path)")
      checked += 1
    }
    #expect(checked == ParameterTable.world.count + ParameterTable.device.count)
    #expect(checked >= 60)
    // The written-out defaults include durations and distributions (a `$ref` member's own default).
    let cloud = try #require(resolved.member("cloud"))
    #expect(cloud.member("applyTimePerRecord")?.serialized() == #""2.2ms""#)
    #expect(cloud.member("requestLatency")?.member("lognormal")?.member("p99")?.serialized() == #""2s""#)
  }

  @Test func swarmRangesAreForKeysDirectlyInASection() {
    let ranged = ParameterTable.world.filter { $0.swarm != nil }
    #expect(
      ranged.map(\.path) == [
        "cloud.networkFailureProbability", "cloud.changeTokenRetention", "cloud.zoneBusyProbability",
        "cloud.zoneNotFoundProbability", "cloud.accountUnavailableProbability", "push.dropProbability",
      ])
    for definition in ranged { #expect(definition.steps.count == 2) }
  }

  /// A key added to the table alone: decoded, in the schema, defaulted in `resolved.json`,
  /// warned about when inert, drawn by the swarm, and no scenario's hash moves at its default.
  @Test func aKeyAddedToTheTableAloneReachesEveryReader() throws {
    var parameters = ParameterSet.standard
    parameters.world.append(
      ParameterDefinition(
        "cloud.zoneBusyRetries", .integer(min: 0, max: 10), unit: "retries", default: .integer(3),
        source: "[assumed]", meaning: "a test's key", needs: "cloud.zoneBusyProbability",
        swarm: .init(probability: 1, lower: 7, upper: 8, whole: true),
        apply: { $0.server.importPageSize = 100 * $1.integer }, read: { .integer($0.server.importPageSize / 100) }))
    // Decoded, with its range checked.
    let set = decode(
      #"{"version": 1, "devices": [{"name": "a"}], "cloud": {"zoneBusyRetries": 5}}"#, parameters: parameters)
    #expect(set.scenario?.spec.server.importPageSize == 500)
    let outOfRange = decode(
      #"{"version": 1, "devices": [{"name": "a"}], "cloud": {"zoneBusyRetries": 11}}"#, parameters: parameters)
    #expect(outOfRange.problems.contains { $0.path == "cloud.zoneBusyRetries" && $0.message == "11 is above 10" })
    #expect(
      decode(#"{"version": 1, "devices": [{"name": "a"}], "cloud": {"zoneBusyRetries": 5}}"#).problems.contains {
        $0.message == "unknown key \"zoneBusyRetries\""
      })
    // Warned about while the key it needs is 0.
    #expect(
      set.problems.contains {
        $0.severity == .warning && $0.path == "cloud.zoneBusyRetries"
          && $0.message == "ignored: cloud.zoneBusyProbability is 0, so nothing backs off"
      })
    // In the schema, with its range and default.
    let schema = ScenarioSchema.documentNode(policies: .standard, parameters: parameters)
    let node = try #require(
      schema.member("properties")?.member("cloud")?.member("properties")?.member("zoneBusyRetries"))
    #expect(node.member("maximum")?.serialized() == "10")
    #expect(node.member("default")?.serialized() == "3")
    // Defaulted in resolved.json; at its default, the hash is the one without the key.
    let plain = try #require(decode(Self.minimal, parameters: parameters).scenario)
    let resolved = ScenarioResolver.resolve(plain, schema: schema)
    #expect(resolved.member("cloud")?.member("zoneBusyRetries")?.serialized() == "3")
    let standard = ScenarioResolver.resolve(try #require(decode(Self.minimal).scenario))
    #expect(ScenarioResolver.hash(resolved, schema: schema) == ScenarioResolver.hash(standard))
    #expect(standard.member("cloud")?.member("zoneBusyRetries") == nil)
    // Drawn by the swarm.
    var random = RandomStream(seed: 1)
    let drawn = SwarmWorld.drawParameters(&random, table: parameters.world)
    #expect(drawn["cloud"]?.contains("\"zoneBusyRetries\": 7") == true)
  }

  /// A device key added to the table alone is a key of every device in the schema (the device's
  /// object is declared, its keys read by hand first: `ScenarioObject.device`), and the decoder
  /// takes it. Before, the schema listed the device keys by hand and left a new one out.
  @Test func aDeviceKeyAddedToTheTableAloneIsInTheSchema() throws {
    var parameters = ParameterSet.standard
    parameters.device.append(
      ParameterDefinition(
        "testerPatience", .bool, default: .bool(false), source: "[assumed]", meaning: "a test's device key",
        apply: { $0.conditions.debuggerAttached = $1.bool }, read: { .bool($0.conditions.debuggerAttached) }))
    let schema = ScenarioSchema.documentNode(policies: .standard, parameters: parameters)
    let device = try #require(schema.member("properties")?.member("devices")?.member("items")?.member("properties"))
    #expect(device.member("testerPatience")?.member("default")?.serialized() == "false")
    #expect(device.member("name") != nil && device.member("stores") != nil && device.member("power") != nil)
    let set = decode(#"{"version": 1, "devices": [{"name": "a", "testerPatience": true}]}"#, parameters: parameters)
    #expect(set.problems.filter { $0.severity == .error }.isEmpty, "\(set.problems)")
    #expect(set.scenario?.spec.devices.first?.conditions.debuggerAttached == true)
  }

  /// A request fault's own settings (`FaultKnob`) are keys under `cloud` with the fault's source
  /// and meaning: decoded into `faultKnobs` (a default leaves the world as if unwritten), range-
  /// checked, warned about while the key they need is 0, and in the schema with their defaults.
  @Test func aFaultsOwnKnobsAreKeysOfTheTable() throws {
    let knobs = RequestFaults.knobs
    #expect(knobs.map(\.name) == ["zoneNotFoundProbability", "accountUnavailableProbability", "accountUnavailableFor"])
    for knob in knobs {
      let definition = try #require(ParameterTable.world.first { $0.path == "cloud." + knob.name })
      #expect(definition.source == knob.source && definition.meaning == knob.meaning)
    }
    let set = decode(
      #"{"version": 1, "devices": [{"name": "a"}], "cloud": {"accountUnavailableProbability": 0.2, "accountUnavailableFor": "5m"}}"#
    )
    let server = try #require(set.scenario?.spec.server)
    #expect(server.faultKnobs.probability(AccountUnavailableFault.probability) == 0.2)
    #expect(server.faultKnobs.distribution(AccountUnavailableFault.duration) == .constant(300))
    #expect(RequestFaults.active(for: server).map(\.error).contains(.accountTemporarilyUnavailable))
    // Written at their defaults, the world is the one without them.
    let defaults = decode(
      #"{"version": 1, "devices": [{"name": "a"}], "cloud": {"zoneNotFoundProbability": 0, "accountUnavailableFor": "10m"}}"#
    )
    #expect(
      defaults.scenario?.spec.server == decode(#"{"version": 1, "devices": [{"name": "a"}]}"#).scenario?.spec.server)
    let outOfRange = decode(#"{"version": 1, "devices": [{"name": "a"}], "cloud": {"zoneNotFoundProbability": 1}}"#)
    #expect(outOfRange.problems.contains { $0.path == "cloud.zoneNotFoundProbability" })
    let inert = decode(#"{"version": 1, "devices": [{"name": "a"}], "cloud": {"accountUnavailableFor": "5m"}}"#)
    #expect(inert.problems.contains { $0.severity == .warning && $0.path == "cloud.accountUnavailableFor" })
    let schema = ScenarioSchema.node.member("properties")?.member("cloud")?.member("properties")
    #expect(schema?.member("accountUnavailableFor")?.member("default")?.serialized() == "\"10m\"")
    #expect(schema?.member("zoneNotFoundProbability")?.member("exclusiveMaximum")?.serialized() == "1")
  }

  /// The hash leaves defaults out and reads durations by value: writing a default, or the same
  /// duration in other units, is the same scenario; another value is not.
  @Test func theScenarioHashLeavesDefaultsOut() throws {
    func hash(_ text: String) throws -> String {
      ScenarioResolver.hash(ScenarioResolver.resolve(try #require(decode(text).scenario)))
    }
    let base = try hash(Self.minimal)
    #expect(try hash(#"{"version": 1, "name": "p", "devices": [{"name": "a", "backgroundPush": true}]}"#) == base)
    #expect(
      try hash(#"{"version": 1, "name": "p", "devices": [{"name": "a"}], "scheduler": {"policyValidity": "15m"}}"#)
        == base)
    #expect(try hash(#"{"version": 1, "name": "p", "devices": [{"name": "a"}], "cloud": {"setupTime": 0.8}}"#) == base)
    #expect(try hash(#"{"version": 1, "name": "p", "devices": [{"name": "a"}], "cloud": {"setupTime": 0.9}}"#) != base)
    #expect(try hash(#"{"version": 1, "name": "p", "devices": [{"name": "a"}], "duration": "2h"}"#) != base)
  }
}
