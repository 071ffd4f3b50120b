import Foundation
import SimExperiments
import SimMetrics
import SimScenario
import SimTestSupport
import Testing

/// Keeps `Scenarios/schema.json`, `syncsim schema` and the decoder in agreement.
@Suite struct SchemaTests {
  static let bogus = "zzzzzzzzzzzzzzzz"

  /// Scenarios with the bogus key placed in one object each, and where that object is in the schema.
  static let probes: [(scenario: String, schemaPath: [String])] = {
    let b = "\"\(bogus)\": 1"
    func top(_ extra: String) -> String { #"{"version": 1, "devices": [{"name": "a"}], "# + extra + "}" }
    return [
      (#"{"version": 1, "devices": [{"name": "a"}], "# + b + "}", ["properties"]),
      (#"{"version": 1, "devices": [{"name": "a", "# + b + "}]}", ["properties", "devices", "items", "properties"]),
      (
        #"{"version": 1, "devices": [{"name": "a", "power": {"# + b + "}}]}",
        ["properties", "devices", "items", "properties", "power", "properties"]
      ),
      (
        #"{"version": 1, "devices": [{"name": "a", "network": {"# + b + "}}]}",
        ["properties", "devices", "items", "properties", "network", "properties"]
      ),
      (top(#""model": {"# + b + "}"), ["properties", "model", "properties"]),
      (
        top(#""model": {"entities": [{"name": "E", "# + b + "}]}"),
        ["properties", "model", "properties", "entities", "items", "properties"]
      ),
      (
        top(#""model": {"entities": [{"name": "E", "attributes": [{"name": "x", "bytes": 1, "# + b + "}]}]}"),
        ["properties", "model", "properties", "entities", "items", "properties", "attributes", "items", "properties"]
      ),
      (
        top(
          #""model": {"entities": [{"name": "E", "relationships": [{"name": "r", "destination": "E", "inverse": "r", "#
            + b + "}]}]}"),
        [
          "properties", "model", "properties", "entities", "items", "properties", "relationships", "items",
          "properties",
        ]
      ),
      (
        top(
          #""model": {"entities": [{"name": "E"}], "configurations": [{"name": "C", "entities": ["E"], "# + b + "}]}"),
        ["properties", "model", "properties", "configurations", "items", "properties"]
      ),
      (top(#""cloud": {"# + b + "}"), ["properties", "cloud", "properties"]),
      (top(#""push": {"# + b + "}"), ["properties", "push", "properties"]),
      (top(#""polling": {"# + b + "}"), ["properties", "polling", "properties"]),
      (top(#""scheduler": {"# + b + "}"), ["properties", "scheduler", "properties"]),
      (
        top(#""scheduler": {"policies": {"# + b + "}}"),
        ["properties", "scheduler", "properties", "policies", "properties"]
      ),
      (
        top(#""scheduler": {"policies": {"rateLimit": {"# + b + "}}}"),
        ["properties", "scheduler", "properties", "policies", "properties", "rateLimit", "oneOf", "1", "properties"]
      ),
      (
        top(#""scheduler": {"policies": {"rateLimit": {"windows": [{"maxRuns": 1, "window": 1, "# + b + "}]}}}"),
        [
          "properties", "scheduler", "properties", "policies", "properties", "rateLimit", "oneOf", "1", "properties",
          "windows", "items", "properties",
        ]
      ),
      (
        top(#""scheduler": {"policies": {"activityGroup": {"# + b + "}}}"),
        [
          "properties", "scheduler", "properties", "policies", "properties", "activityGroup", "oneOf", "1",
          "properties",
        ]
      ),
      (
        top(#""scheduler": {"policies": {"lowPowerMode": {"# + b + "}}}"),
        ["properties", "scheduler", "properties", "policies", "properties", "lowPowerMode", "oneOf", "1", "properties"]
      ),
      (
        top(#""scheduler": {"policies": {"singleDeviceAccount": {"# + b + "}}}"),
        [
          "properties", "scheduler", "properties", "policies", "properties", "singleDeviceAccount", "oneOf", "1",
          "properties",
        ]
      ),
      (
        top(#""workloads": [{"devices": "a", "editsPerHour": 1, "# + b + "}]"),
        ["properties", "workloads", "items", "properties"]
      ),
      (
        top(#""usage": [{"devices": "a", "sessionsPerDay": 1, "# + b + "}]"),
        ["properties", "usage", "items", "properties"]
      ),
      (
        top(#""timeline": [{"at": 1, "devices": "a", "action": "plug", "# + b + "}]"),
        ["properties", "timeline", "items", "properties"]
      ),
      (
        top(#""timeline": [{"at": 1, "devices": "a", "action": {"nudge": {"# + b + "}}}]"),
        ["properties", "timeline", "items", "properties", "action", "oneOf", "3", "properties", "nudge", "properties"]
      ),
      (
        top(#""timeline": [{"at": 1, "devices": "a", "action": {"edit": {"kind": "update", "# + b + "}}}]"),
        [
          "properties", "timeline", "items", "properties", "action", "oneOf", "4", "properties", "edit", "oneOf", "1",
          "properties",
        ]
      ),
      (
        top(#""timeline": [{"at": 1, "devices": "a", "action": {"bulkInsert": {"count": 1, "# + b + "}}}]"),
        [
          "properties", "timeline", "items", "properties", "action", "oneOf", "5", "properties", "bulkInsert",
          "properties",
        ]
      ),
      (
        top(#""expect": [{"metric": "writes", "max": 1, "# + b + "}]"), ["properties", "expect", "items", "properties"]
      ),
      (
        #"{"version": 1, "devices": [{"name": "a", "stores": [{"shared": {"owner": 0, "# + b + "}}]}]}",
        [
          "properties", "devices", "items", "properties", "stores", "items", "oneOf", "1", "properties", "shared",
          "properties",
        ]
      ),
      (
        top(#""cloud": {"requestLatency": {"lognormal": {"median": 1, "p99": 2, "# + b + "}}}"),
        ["$defs", "distribution", "oneOf", "5", "properties", "lognormal", "oneOf", "*", "properties"]
      ),
    ]
  }()

  func schema() throws -> Any {
    try JSONSerialization.jsonObject(with: Data(ScenarioSchema.text.utf8))
  }

  func node(_ root: Any, _ path: [String]) -> Any? {
    var current: Any? = root
    for step in path {
      if let index = Int(step), let array = current as? [Any] {
        current = index < array.count ? array[index] : nil
      } else {
        current = (current as? [String: Any])?[step]
      }
    }
    return current
  }

  @Test func schemaFileEqualsWhatTheCommandPrints() throws {
    let file = try String(contentsOfFile: packageRoot + "/Scenarios/schema.json", encoding: .utf8)
    #expect(file == ScenarioSchema.text + "\n")
    #expect(syncsim("schema").out == ScenarioSchema.text + "\n")
  }

  @Test func schemaPropertiesEqualTheKeysTheDecoderAccepts() throws {
    let root = try schema()
    #expect(Self.probes.count >= 25)
    for probe in Self.probes {
      var hint: String?
      do {
        _ = try ScenarioDecoder.decode(Array(probe.scenario.utf8), file: "p.json")
      } catch {
        hint = error.problems.first { $0.message == "unknown key \"\(Self.bogus)\"" }?.hint
      }
      let decoderKeys = Set(
        (hint ?? "").replacingOccurrences(of: "known keys: ", with: "").components(separatedBy: ", "))
      // "*" stands for every branch of a oneOf: their properties together.
      let properties: [String: Any]?
      if let star = probe.schemaPath.firstIndex(of: "*") {
        let branches = node(root, Array(probe.schemaPath[..<star])) as? [Any] ?? []
        properties = branches.indices.reduce(into: [String: Any]()) { all, index in
          let path = Array(probe.schemaPath[..<star]) + [String(index)] + probe.schemaPath[(star + 1)...]
          all.merge(node(root, path) as? [String: Any] ?? [:]) { first, _ in first }
        }
      } else {
        properties = node(root, probe.schemaPath) as? [String: Any]
      }
      #expect(properties != nil, "no schema object at \(probe.schemaPath)")
      #expect(
        Set(properties?.keys.map { $0 } ?? []) == decoderKeys,
        "at \(probe.schemaPath.joined(separator: "/")): \(probe.scenario)")
    }
  }

  @Test func everyScenarioInTheLibraryValidates() throws {
    let files = try FileManager.default.contentsOfDirectory(atPath: packageRoot + "/Scenarios")
      .filter { $0.hasSuffix(".json") && $0 != "schema.json" }.sorted()
    #expect(!files.isEmpty)
    for file in files {
      // Not --strict: some scenarios show advice warnings on purpose (e.g. many-to-many costs).
      let result = syncsim("validate", packageRoot + "/Scenarios/" + file)
      #expect(result.code == 0, "\(file): \(result.err)")
    }
  }
}
