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

  @Test func aCopyWithAnotherFirstBranchIsNot() throws {
    let duration = try #require(ScenarioResolver.durationSchema)
    let changed = try duration.setting(.string("integer"), at: [.key("oneOf"), .index(0), .key("type")]).get()
    #expect(!Self.isDurationByText(changed))
    #expect(!ScenarioResolver.isDurationSchema(changed))
  }
}
