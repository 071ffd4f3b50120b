import Foundation
import SimKernel
import SimScenario
import SimTestSupport
import Testing

/// The committed JSON Schema and the decoder agree, both ways, on generated values and on every
/// library scenario: editors never mark a valid scenario wrong, nor pass a malformed one.
@Suite struct SchemaAgreementTests {
  let validator: JSONSchemaValidator = {
    let schema = try! JSONParser.parse(Array(ScenarioSchema.text.utf8))
    return JSONSchemaValidator(schema: schema)
  }()

  static func decodes(_ text: String) -> Bool {
    (try? ScenarioDecoder.decode(Array(text.utf8), file: "g.json")) != nil
  }

  func schemaAccepts(_ text: String) -> Bool {
    guard let node = try? JSONParser.parse(Array(text.utf8)) else { return false }
    return validator.isValid(node)
  }

  /// A scenario with `value` (JSON text) as a duration and as a distribution.
  static func withDuration(_ value: String) -> [String] {
    [
      #"{"version": 1, "devices": [{"name": "a"}], "cloud": {"applyTimePerRecord": "# + value + "}}",
      #"{"version": 1, "devices": [{"name": "a"}], "cloud": {"requestLatency": "# + value + "}}",
    ]
  }

  /// Random duration texts: valid ones (numbers with units, sums, spaces, plain seconds with
  /// exponents) and near misses (unknown units, doubled signs and dots, exponents with units,
  /// letters, hex, infinities, negatives, empty).
  static func durationTexts(count: Int, seed: UInt64) -> [String] {
    var random = RandomStream(seed: seed, name: "durations", index: 0)
    func pick<T>(_ options: [T]) -> T { options[Int(random.next() % UInt64(options.count))] }
    func number() -> String {
      pick([
        "0", "1", "7", "30", "99", "1.5", "0.25", ".5", "5.", "12.", "00", "007", "1.2.3", "", ".", "+3", "++3", "-2",
      ])
    }
    let units = ["ns", "us", "µs", "μs", "ms", "s", "m", "min", "h", "d", "w", "mins", "sec", "hr", "x", "S", "H", ""]
    var texts: [String] = []
    for _ in 0..<count {
      switch random.next() % 5 {
      case 0:
        texts.append(pick(["", " "]) + number() + pick(["", "e3", "E-2", "e+1", "e"]) + pick(["", " ", "  "]))
      case 1:
        texts.append(pick(["0x10", "inf", "nan", "1_000", "1,5s", "one", "30s30", "h", "1e3s", "1 e3", "٣s", "−5s"]))
      default:
        var text = pick(["", " "])
        for part in 0..<(1 + Int(random.next() % 3)) {
          if part > 0 { text += pick(["", " ", "+", " + "]) }
          text += number() + pick(["", " "]) + pick(units)
        }
        texts.append(text + pick(["", " "]))
      }
    }
    return texts
  }

  @Test func generatedDurationsAgreeBothWays() throws {
    var disagreements: [String] = []
    var accepted = 0
    for text in Self.durationTexts(count: 3000, seed: 2026) {
      let json = "\"" + text + "\""
      for scenario in Self.withDuration(json) {
        let decoder = Self.decodes(scenario)
        if decoder { accepted += 1 }
        if decoder != schemaAccepts(scenario) { disagreements.append("\(json): decoder \(decoder)") }
      }
    }
    for number in ["0", "-0", "3", "2.5", "1e3", "-1", "-0.5", "9e9", "1e12"] {
      for scenario in Self.withDuration(number) where Self.decodes(scenario) != schemaAccepts(scenario) {
        disagreements.append("\(number) (number)")
      }
    }
    #expect(validator.unknownKeywords.isEmpty, "\(validator.unknownKeywords)")
    #expect(accepted > 1000 && accepted < 5000, "the generator should make both kinds: \(accepted) accepted")
    #expect(disagreements.isEmpty, "\(Set(disagreements).sorted().prefix(20))")
  }

  @Test func compoundDurationsOfTheLibraryAreValid() {
    for text in ["12m30s", "3m30s", "30h30s", "1h 30m", "2d 6h", "1.5s", "90", "1e3", "250ms", "1h+30m"] {
      #expect(Self.decodes(Self.withDuration("\"\(text)\"")[0]), "\(text)")
      #expect(schemaAccepts(Self.withDuration("\"\(text)\"")[0]), "\(text)")
    }
  }

  @Test func generatedDistributionsAgreeBothWays() {
    let durations = ["\"1s\"", "2", "\"150ms\"", "\"x\"", "-1", "true"]
    var cases: [String] = []
    for a in durations {
      cases += [
        a, #"{"constant": \#(a)}"#, #"{"exponential": {"mean": \#(a)}}"#, #"{"uniform": [\#(a), "10s"]}"#,
        #"{"uniform": [\#(a)]}"#, #"{"normal": {"mean": \#(a), "sd": "1s"}}"#, #"{"normal": {"mean": \#(a)}}"#,
        #"{"lognormal": {"median": \#(a), "p99": "20s"}}"#, #"{"lognormal": {"median": \#(a)}}"#,
        #"{"choice": [{"value": \#(a), "weight": 1}, {"value": "3s", "weight": 2}]}"#,
        #"{"choice": [{"value": \#(a)}]}"#, #"{"constant": \#(a), "uniform": ["1s", "2s"]}"#,
        #"{"exponential": {"mean": \#(a), "sd": "1s"}}"#,
      ]
    }
    cases += [
      #"{"lognormal": {"mu": -1.9, "sigma": 1.1}}"#, #"{"lognormal": {"mu": -1.9}}"#,
      #"{"lognormal": {"mu": 1, "sigma": -1}}"#, #"{"lognormal": {"mu": 1, "sigma": 1, "median": "1s"}}"#,
      #"{"choice": []}"#, #"{"choice": [{"value": "1s", "weight": 0}]}"#, "{}", "[]", "null", #"{"gamma": 1}"#,
    ]
    var disagreements: [String] = []
    for distribution in cases {
      let scenario = #"{"version": 1, "devices": [{"name": "a"}], "cloud": {"requestLatency": "# + distribution + "}}"
      if Self.decodes(scenario) != schemaAccepts(scenario) {
        disagreements.append("\(distribution): decoder \(Self.decodes(scenario))")
      }
    }
    #expect(disagreements.isEmpty, "\(disagreements)")
  }

  /// Every leaf of every library scenario replaced by a value of each JSON type: whenever the
  /// decoder accepts, the schema does too; whenever the decoder refuses the value's type, the
  /// schema refuses it too. (The decoder may refuse more: names that must exist, ranges that depend
  /// on other fields; the schema cannot know those.)
  @Test func everyKindOfValueInTheLibraryAgrees() throws {
    // Every third file by default (the long tests take them all): each file is 2,400 decodes.
    let files = try FileManager.default.contentsOfDirectory(atPath: packageRoot + "/Scenarios")
      .filter { $0.hasSuffix(".json") && $0 != "schema.json" }.sorted()
      .enumerated().filter { longTestsEnabled || $0.offset % 3 == 0 }.map(\.element)
    var checked = 0
    var disagreements: [String] = []
    let replacements = ["true", "null", "[]", "{}", "\"zz\"", "7"]
    for file in files {
      let text = try String(contentsOfFile: packageRoot + "/Scenarios/" + file, encoding: .utf8)
      let root = try JSONParser.parse(Array(text.utf8))
      #expect(validator.isValid(root), "\(file): \(validator.errors(root).prefix(3))")
      for path in Self.leafPaths(root, []).prefix(400) {
        for replacement in replacements {
          let value = try JSONParser.parse(Array(replacement.utf8))
          guard case .success(let mutated) = root.setting(value, at: path[...]) else { continue }
          let scenario = mutated.serialized()
          checked += 1
          let schema = validator.isValid(mutated)
          var problems: [ScenarioProblem] = []
          do { _ = try ScenarioDecoder.decode(Array(scenario.utf8), file: file) } catch { problems = error.problems }
          let decoder = !problems.contains { $0.severity == .error }
          let typeRefused = problems.contains { $0.message.hasPrefix("expected ") && $0.message.contains(", got ") }
          if decoder && !schema || typeRefused && schema {
            disagreements.append(
              "\(file) \(Self.describe(path)) = \(replacement): decoder \(decoder), schema \(schema)")
          }
        }
      }
    }
    #expect(checked > (longTestsEnabled ? 3000 : 1000))
    #expect(disagreements.isEmpty, "\(disagreements.count): \(disagreements.joined(separator: "\n"))")
  }

  static func leafPaths(_ node: JSONNode, _ prefix: [JSONNode.PathStep]) -> [[JSONNode.PathStep]] {
    switch node.value {
    case .object(let members):
      return members.flatMap { leafPaths($0.value, prefix + [.key($0.key)]) } + (members.isEmpty ? [prefix] : [])
    case .array(let elements):
      return elements.prefix(3).enumerated().flatMap { leafPaths($1, prefix + [.index($0)]) }
        + (elements.isEmpty ? [prefix] : [])
    default: return [prefix]
    }
  }

  static func describe(_ path: [JSONNode.PathStep]) -> String {
    path.map { step in
      switch step {
      case .key(let key): "." + key
      case .index(let index): "[\(index)]"
      }
    }.joined()
  }
}
