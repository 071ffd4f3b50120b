import Foundation
import SimTestSupport
import Testing

@testable import SimScenario

/// Issue 55, item 2: a timeline action is one row of `TimelineActionTable` (name, the action its
/// name is, its value's schema, decoder, example and meaning), and the decoder's lists, the
/// schema's `action` and docs/scenario-format.md's action table are made from the rows. The
/// schema and the decoder agree on each, both ways.
@Suite struct TimelineActionTableTests {
  let validator = JSONSchemaValidator(schema: try! JSONParser.parse(Array(ScenarioSchema.text.utf8)))

  /// Two devices with the client the action applies to (CKSyncEngine's own calls need engines).
  func scenario(_ action: String, engine: Bool = false) -> String {
    let client = engine ? #", "client": "syncEngine""# : ""
    return #"{"version": 1, "devices": [{"name": "a""# + client + #"}, {"name": "b""# + client
      + #"}], "timeline": [{"at": "1h", "devices": "a", "action": "# + action + "}]}"
  }

  @Test func theSchemasActionsAreTheDecodersActions() throws {
    let schema = ScenarioSchema.node
    let names = ScenarioBuilder.simpleActionList.map(\.name)
    #expect(names.count == 14 && Set(names).count == names.count)
    let valued = ScenarioSchema.valuedActionNames(schema)
    #expect(Set(valued) == Set(ScenarioBuilder.valuedActions), "\(valued)")
    #expect(valued.count == ScenarioBuilder.valuedActions.count, "one alternative each")
    #expect(ScenarioSchema.actionsWithoutSchema(schema) == nil)
    // Every name is accepted by both; a name not in the list by neither.
    for (name, action) in ScenarioBuilder.simpleActionList {
      let text = scenario("\"\(name)\"", engine: action.onlyFor == .syncEngine)
      #expect(validator.isValid(try JSONParser.parse(Array(text.utf8))), "schema: \(name)")
      #expect((try? ScenarioDecoder.decode(Array(text.utf8), file: "t.json")) != nil, "decoder: \(name)")
    }
    let unknown = scenario("\"hibernate\"")
    #expect(!validator.isValid(try JSONParser.parse(Array(unknown.utf8))))
    #expect((try? ScenarioDecoder.decode(Array(unknown.utf8), file: "t.json")) == nil)
  }

  /// A valued action the decoder reads but the schema lacks is caught as the schema is made.
  @Test func aValuedActionWithoutItsAlternativeIsFound() throws {
    let schema = ScenarioSchema.node
    var trimmed = schema
    let path: [JSONNode.PathStep] = [
      .key("properties"), .key("timeline"), .key("items"), .key("properties"), .key("action"), .key("oneOf"),
    ]
    var node: JSONNode? = schema
    for case .key(let key) in path { node = node?.member(key) }
    guard case .array(var alternatives)? = node?.value else {
      Issue.record("no action alternatives")
      return
    }
    alternatives.removeAll { ($0.member("properties")?.member("quota")) != nil }
    if case .success(let edited) = schema.setting(
      JSONNode(value: .array(alternatives), line: 0, column: 0), at: path[...])
    {
      trimmed = edited
    }
    #expect(ScenarioSchema.actionsWithoutSchema(trimmed) == "quota")
  }

  /// Every valued action's example is accepted by the schema and the decoder, and decodes to an
  /// action; a value of the wrong shape is refused by both.
  @Test func everyExampleIsAcceptedByTheSchemaAndTheDecoder() throws {
    let rows = TimelineActionTable.all.filter { $0.decode != nil }
    #expect(rows.count == 11 && rows.allSatisfy { $0.example != nil && $0.valueSchema != nil })
    for row in rows {
      let action = try #require(TimelineActionTable.exampleAction(row), "\(row.name) decodes")
      let text = scenario("{\"\(row.name)\": \(row.example!)}", engine: action.onlyFor == .syncEngine)
      #expect(validator.isValid(try JSONParser.parse(Array(text.utf8))), "schema: \(row.name)")
      let wrong = scenario("{\"\(row.name)\": [1, 2]}")
      #expect(!validator.isValid(try JSONParser.parse(Array(wrong.utf8))), "schema refuses: \(row.name)")
      #expect((try? ScenarioDecoder.decode(Array(wrong.utf8), file: "t.json")) == nil, "decoder refuses: \(row.name)")
    }
    // The table's rows, in order, are the decoder's lists.
    #expect(ScenarioBuilder.valuedActions == rows.map(\.name))
    #expect(
      ScenarioBuilder.simpleActionList.map(\.name) == TimelineActionTable.all.filter { $0.plain != nil }.map(\.name))
  }

  /// docs/scenario-format.md holds the table `syncsim schema actions` prints.
  @Test func theFormatDocumentHoldsTheActionTable() throws {
    let text = try String(contentsOfFile: packageRoot + "/docs/scenario-format.md", encoding: .utf8)
    #expect(text.contains("<!-- actions:begin -->\n" + ScenarioSchema.actionTable + "\n<!-- actions:end -->"))
    #expect(ScenarioSchema.actionTable.split(separator: "\n").count == 2 + TimelineActionTable.all.count)
    #expect(ScenarioSchema.actionTable.contains("| `resetSync` | `{\"resetSync\": \"accountChange\"}` |"))
    #expect(ScenarioSchema.actionTable.contains("| CKSyncEngine |"))
    #expect(syncsim("schema", "actions").out == ScenarioSchema.actionTable + "\n")
  }

  @Test func theFormatDocumentNamesEveryAction() throws {
    let text = try String(contentsOfFile: packageRoot + "/docs/scenario-format.md", encoding: .utf8)
    let section = try #require(text.range(of: "## `timeline[]`")).upperBound
    let timeline = String(text[section...].prefix { _ in true }.split(separator: "\n## ", maxSplits: 1)[0])
    for name in ScenarioBuilder.simpleActionList.map(\.name) {
      #expect(timeline.contains("`\(name)`"), "\(name)")
    }
    for name in ScenarioBuilder.valuedActions {
      #expect(timeline.contains("{\"\(name)\""), "\(name)")
    }
  }
}
