import Testing

@testable import SimScenario

/// `ScenarioResolver.isDurationSchema` rules schemas out by their `oneOf` before writing their
/// canonical text: it must answer as the full comparison does, or `scenarioHash` would change.
@Suite struct DurationSchemaTests {
  /// Every node of a JSON document, depth first.
  static func nodes(of root: JSONNode) -> [JSONNode] {
    var found: [JSONNode] = []
    func walk(_ node: JSONNode) {
      found.append(node)
      switch node.value {
      case .object(let members): for member in members { walk(member.value) }
      case .array(let elements): for element in elements { walk(element) }
      default: break
      }
    }
    walk(root)
    return found
  }

  /// The comparison the quick test stands in for.
  static func isDurationByText(_ node: JSONNode) -> Bool {
    node.member("oneOf") != nil && ScenarioResolver.canonicalText(node) == ScenarioResolver.durationSchemaText
  }

  @Test func theQuickTestAgreesWithTheCanonicalTextOnEverySchemaNode() {
    var durations = 0
    var withBranches = 0
    for node in Self.nodes(of: ScenarioResolver.schema) {
      let expected = Self.isDurationByText(node)
      #expect(ScenarioResolver.isDurationSchema(node) == expected)
      if expected { durations += 1 }
      if node.member("oneOf") != nil { withBranches += 1 }
    }
    #expect(durations >= 1)
    #expect(withBranches > durations)
  }

  @Test func aCopyWithAnotherDescriptionIsStillADuration() throws {
    // The canonical text leaves a top-level description out, so the quick test must not read it.
    let duration = try #require(ScenarioResolver.durationSchema)
    let renamed = try duration.setting(.string("another description"), at: [.key("description")]).get()
    #expect(Self.isDurationByText(renamed))
    #expect(ScenarioResolver.isDurationSchema(renamed))
  }

  @Test func scalarsCompareAsTheirCanonicalTexts() {
    // Numbers as written and by value: whole and fractional, negative zero, the edge of the
    // integer form (9e15), large and tiny values, the same value written two ways.
    let numbers: [(String, Double)] = [
      ("0", 0), ("-0", -0.0), ("1", 1), ("1.0", 1), ("1e0", 1), ("0.5", 0.5), ("-3", -3), ("9e15", 9e15),
      ("8999999999999999", 8_999_999_999_999_999), ("1e16", 1e16), ("0.1", 0.1), ("1e-300", 1e-300),
      ("250", 250), ("2.5e2", 250),
    ]
    var values = numbers.map { JSONNode(value: .number($0.0, $0.1), line: 0, column: 0) }
    values += ["", "1", "250ms", "true", "null", "a\"b"].map { JSONNode.string($0) }
    values += [
      JSONNode(value: .bool(true), line: 0, column: 0), JSONNode(value: .bool(false), line: 0, column: 0),
      JSONNode(value: .null, line: 0, column: 0), JSONNode(value: .array([]), line: 0, column: 0),
      JSONNode(value: .array([JSONNode.string("1")]), line: 0, column: 0), JSONNode.object([]),
      JSONNode.object([("a", JSONNode.string("1"))]),
    ]
    var same = 0
    for a in values {
      for b in values {
        let expected = ScenarioResolver.canonicalText(a) == ScenarioResolver.canonicalText(b)
        #expect(ScenarioResolver.sameCanonicalText(a, b) == expected, "\(a.value) against \(b.value)")
        if expected { same += 1 }
      }
    }
    // Each value with itself, and the pairs written two ways: 0/-0, 1/1.0/1e0, 250/2.5e2.
    #expect(same == values.count + 2 + 6 + 2)
  }

  @Test func aCopyWithAnotherFirstBranchIsNot() throws {
    let duration = try #require(ScenarioResolver.durationSchema)
    let changed = try duration.setting(.string("integer"), at: [.key("oneOf"), .index(0), .key("type")]).get()
    #expect(!Self.isDurationByText(changed))
    #expect(!ScenarioResolver.isDurationSchema(changed))
  }
}
