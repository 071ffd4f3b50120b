import SimKernel
import Testing

@testable import SimScenario

/// The kinds of a distribution are one table: each reads its example, the schema has an
/// alternative for each, and a kind outside the table is refused with the table's names.
@Suite struct DistributionKindTableTests {
  static let examples: [String: (json: String, expected: Distribution)] = [
    "constant": (#"{"constant": "2s"}"#, .constant(2)),
    "uniform": (#"{"uniform": ["1s", "3s"]}"#, .uniform(lower: 1, upper: 3)),
    "exponential": (#"{"exponential": {"mean": "5s"}}"#, .exponential(mean: 5)),
    "normal": (#"{"normal": {"mean": "5s", "sd": "1s"}}"#, .normal(mean: 5, standardDeviation: 1)),
    "lognormal": (#"{"lognormal": {"mu": 0, "sigma": 1}}"#, .lognormal(mu: 0, sigma: 1)),
    "choice": (#"{"choice": [{"value": "1s", "weight": 1}]}"#, .choice(values: [1], weights: [1])),
  ]

  @Test func eachKindReadsItsExampleAndTheSchemaHasIt() throws {
    #expect(Set(DistributionKindTable.names) == Set(Self.examples.keys))
    for (name, example) in Self.examples {
      let reader = ScenarioReader(file: "test.json")
      let node = try JSONParser.parse(Array(example.json.utf8))
      #expect(reader.distribution(node, "d") == example.expected, "\(name)")
      #expect(reader.problems.isEmpty, "\(name): \(reader.problems)")
    }
    let schema = DistributionKindTable.schemaNode()
    guard case .array(let alternatives)? = schema.member("oneOf")?.value else {
      Issue.record("no oneOf")
      return
    }
    #expect(alternatives.count == DistributionKindTable.names.count + 1)
  }

  @Test func aKindOutsideTheTableIsRefused() throws {
    let reader = ScenarioReader(file: "test.json")
    let node = try JSONParser.parse(Array(#"{"gamma": {"shape": 2}}"#.utf8))
    #expect(reader.distribution(node, "d") == nil)
    #expect(reader.problems.count == 1, "\(reader.problems)")
    #expect(reader.problems.first.map { "\($0)".contains("lognormal") } == true, "\(reader.problems)")
  }
}
